// ControlReclaimer (reclaim/control_reclaimer.h): idle reclaim on the control interface, over an
// in-memory cluster that records every write. Times are worked out by hand from notify_after =
// 30 min, reclaim_after = 60 min and an idle threshold of 5 % SM-active.
#include "reclaim/control_reclaimer.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "control/gated_control.h"

namespace steward::reclaim {
namespace {

using control::ObjectRef;
using control::PodInfo;

class FakeCluster : public control::ClusterControl {
 public:
  SimTime Now() const override { return now; }
  std::optional<control::NodeInfo> Node(std::string_view name) const override {
    control::NodeInfo n;
    n.name = std::string(name);
    return n;
  }
  std::vector<control::NodeInfo> Nodes() const override {
    std::vector<control::NodeInfo> out;
    for (const auto& [name, pods] : pods_) out.push_back(*Node(name));
    return out;
  }
  std::vector<PodInfo> PodsOnNode(std::string_view node) const override {
    auto it = pods_.find(std::string(node));
    return it == pods_.end() ? std::vector<PodInfo>{} : it->second;
  }
  Status Cordon(std::string_view, bool, std::string_view) override { return Status::Ok(); }
  Status LabelNode(std::string_view, std::string_view, std::optional<std::string>,
                   std::string_view) override {
    return Status::Ok();
  }
  Status TaintNode(std::string_view, const model::Taint&, bool, std::string_view) override {
    return Status::Ok();
  }
  Status Annotate(const ObjectRef& o, std::string_view key, std::optional<std::string> value,
                  std::string_view) override {
    for (auto& [node, pods] : pods_)
      for (PodInfo& p : pods)
        if (p.ref.namespace_name == o.namespace_name && p.ref.name == o.name) {
          if (value)
            p.annotations[std::string(key)] = *value;
          else
            p.annotations.erase(std::string(key));
        }
    writes.push_back("annotate " + o.name + " " + std::string(key) + "=" + value.value_or("-"));
    return Status::Ok();
  }
  Status Evict(const control::PodRef& pod, SimDuration grace, std::string_view) override {
    if (!evict_answer.ok()) return evict_answer;
    for (auto& [node, pods] : pods_)
      std::erase_if(pods, [&](const PodInfo& p) { return p.ref.name == pod.name; });
    writes.push_back("evict " + pod.name + " " + std::to_string(grace.micros() / 1000000));
    return Status::Ok();
  }
  Status EmitEvent(const ObjectRef& o, std::string_view, std::string_view reason,
                   std::string_view message) override {
    writes.push_back("event " + o.name + " " + std::string(reason));
    messages.push_back(std::string(message));
    return Status::Ok();
  }

  void AddPod(const std::string& node, const std::string& name, const std::string& workload,
              model::WorkloadKind kind, int gpus) {
    PodInfo p;
    p.ref = {"research", name};
    p.node = node;
    p.workload = "research/" + workload;
    p.kind = kind;
    p.gpus = gpus;
    p.running = true;
    pods_[node].push_back(p);
  }
  PodInfo& Pod(const std::string& name) {
    for (auto& [node, pods] : pods_)
      for (PodInfo& p : pods)
        if (p.ref.name == name) return p;
    throw std::runtime_error("no pod " + name);
  }

  SimTime now = SimTime::FromMicros(1'800'000'000'000'000);  // 2027-01-15T08:00:00Z.
  std::vector<std::string> writes, messages;
  Status evict_answer;

 private:
  std::map<std::string, std::vector<PodInfo>> pods_;
};

ControlReclaimerOptions Options() {
  ControlReclaimerOptions o;
  o.spec.notify_after_minutes = 30;
  o.spec.reclaim_after_minutes = 60;
  o.spec.idle_sm_active_below = 0.05;
  o.spec.kinds = {model::WorkloadKind::kNotebook, model::WorkloadKind::kBatch};
  o.grace = Seconds(30);
  o.checkpoint_grace = Minutes(5);
  o.retry_after = Minutes(1);
  return o;
}

class ControlReclaimerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.AddPod("n1", "nb-0", "nb", model::WorkloadKind::kNotebook, 1);
    cluster_.AddPod("n1", "job-a-0", "job-a", model::WorkloadKind::kBatch, 4);
    cluster_.AddPod("n2", "job-a-1", "job-a", model::WorkloadKind::kBatch, 4);
    cluster_.AddPod("n2", "train-0", "train", model::WorkloadKind::kTraining, 8);
    Result<ControlReclaimer> r = ControlReclaimer::Create(Options(), cluster_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    reclaimer_.emplace(std::move(*r));
  }
  void PassAt(int minutes, const std::map<std::string, double>& usage) {
    cluster_.now = start_ + Minutes(minutes);
    ASSERT_TRUE(reclaimer_->Pass(usage).ok());
  }
  int Count(const std::string& prefix) const {
    int n = 0;
    for (const std::string& w : cluster_.writes) n += w.rfind(prefix, 0) == 0;
    return n;
  }

  FakeCluster cluster_;
  SimTime start_ = cluster_.now;
  std::optional<ControlReclaimer> reclaimer_;
};

TEST_F(ControlReclaimerTest, IdleNotebookIsNoticedAt30AndEvictedAt60) {
  const std::map<std::string, double> idle = {{"research/nb-0", 0.01},
                                              {"research/job-a-0", 0.9},
                                              {"research/job-a-1", 0.9},
                                              {"research/train-0", 0.0}};
  PassAt(0, idle);
  PassAt(29, idle);
  EXPECT_TRUE(cluster_.writes.empty());
  PassAt(30, idle);
  EXPECT_EQ(cluster_.writes,
            (std::vector<std::string>{"annotate nb-0 steward.io/idle-since=2027-01-15T08:00:00Z",
                                      "event nb-0 IdleGPUReclaimNotice"}));
  EXPECT_NE(cluster_.messages[0].find("reclaimed at 2027-01-15T09:00:00Z"), std::string::npos)
      << cluster_.messages[0];
  EXPECT_NE(cluster_.messages[0].find("steward.io/reclaim-exempt"), std::string::npos);
  PassAt(59, idle);
  EXPECT_EQ(Count("evict"), 0);
  PassAt(60, idle);
  EXPECT_EQ(Count("evict nb-0 30"), 1);
  EXPECT_EQ(Count("event nb-0 IdleGPUReclaimed"), 1);
  // Training is not a reclaimed kind, however idle; busy job-a never started a streak.
  EXPECT_EQ(Count("evict train"), 0);
  EXPECT_EQ(Count("evict job-a"), 0);
  EXPECT_EQ(reclaimer_->stats().notices, 1);
  EXPECT_EQ(reclaimer_->stats().reclaims, 1);
}

TEST_F(ControlReclaimerTest, AWorkloadIsIdleOnlyWhenItsGpusAreOnAverage) {
  // job-a: 4 GPUs at 0 % and 4 at 9 %: 4.5 % on average, idle; at 11 % on the second, 5.5 %.
  PassAt(0, {{"research/job-a-0", 0.0}, {"research/job-a-1", 0.11}});
  PassAt(60, {{"research/job-a-0", 0.0}, {"research/job-a-1", 0.11}});
  EXPECT_EQ(Count("evict job-a"), 0);
  PassAt(61, {{"research/job-a-0", 0.0}, {"research/job-a-1", 0.09}});
  PassAt(121, {{"research/job-a-0", 0.0}, {"research/job-a-1", 0.09}});
  EXPECT_EQ(Count("evict job-a-0"), 1);  // The whole workload goes, on both nodes.
  EXPECT_EQ(Count("evict job-a-1"), 1);
}

TEST_F(ControlReclaimerTest, NoDataIsNotIdle) {
  PassAt(0, {{"research/job-a-0", 0.0}});  // job-a-1 has no series.
  PassAt(120, {{"research/job-a-0", 0.0}});
  EXPECT_EQ(Count("evict job-a"), 0);
  EXPECT_EQ(reclaimer_->stats().unjudged_workloads, 2);  // job-a and nb-0.
}

TEST_F(ControlReclaimerTest, BusyAgainCancelsTheNoticeAndRestartsTheClock) {
  PassAt(0, {{"research/nb-0", 0.0}});
  PassAt(30, {{"research/nb-0", 0.0}});
  ASSERT_EQ(Count("event nb-0 IdleGPUReclaimNotice"), 1);
  PassAt(40, {{"research/nb-0", 0.5}});
  EXPECT_EQ(Count("annotate nb-0 steward.io/idle-since=-"), 1);
  PassAt(50, {{"research/nb-0", 0.0}});
  PassAt(100, {{"research/nb-0", 0.0}});  // 50 min into the new streak: not yet.
  EXPECT_EQ(Count("evict"), 0);
  PassAt(110, {{"research/nb-0", 0.0}});
  EXPECT_EQ(Count("evict nb-0"), 1);
}

TEST_F(ControlReclaimerTest, ExemptLabelSparesTheWorkload) {
  cluster_.Pod("nb-0").labels["steward.io/reclaim-exempt"] = "true";
  PassAt(0, {{"research/nb-0", 0.0}});
  PassAt(30, {{"research/nb-0", 0.0}});
  PassAt(60, {{"research/nb-0", 0.0}});
  EXPECT_TRUE(cluster_.writes.empty());
  EXPECT_EQ(reclaimer_->stats().exempted, 1);
}

TEST_F(ControlReclaimerTest, ANewControllerResumesFromTheNoticeAnnotation) {
  // A predecessor noticed nb-0, idle since 07:30; this one starts at 08:00 and reclaims at
  // 08:30 without a second notice.
  cluster_.Pod("nb-0").annotations[kIdleSinceAnnotation] = "2027-01-15T07:30:00Z";
  PassAt(0, {{"research/nb-0", 0.0}});
  PassAt(29, {{"research/nb-0", 0.0}});
  EXPECT_TRUE(cluster_.writes.empty());
  PassAt(30, {{"research/nb-0", 0.0}});
  EXPECT_EQ(Count("event nb-0 IdleGPUReclaimNotice"), 0);
  EXPECT_EQ(Count("evict nb-0"), 1);
}

TEST_F(ControlReclaimerTest, ABudgetsRefusalIsRetriedNotForced) {
  cluster_.evict_answer = Status::Unavailable("Cannot evict pod as it would violate the budget");
  PassAt(0, {{"research/nb-0", 0.0}});
  PassAt(60, {{"research/nb-0", 0.0}});
  EXPECT_EQ(Count("evict"), 0);
  EXPECT_EQ(reclaimer_->stats().retries, 1);
  cluster_.evict_answer = Status::Ok();
  PassAt(60, {{"research/nb-0", 0.0}});  // Not before retry_after.
  EXPECT_EQ(Count("evict"), 0);
  PassAt(61, {{"research/nb-0", 0.0}});
  EXPECT_EQ(Count("evict nb-0"), 1);
}

TEST_F(ControlReclaimerTest, CheckpointingPodsGetTheirGrace) {
  cluster_.Pod("job-a-0").can_checkpoint = true;
  PassAt(0, {{"research/job-a-0", 0.0}, {"research/job-a-1", 0.0}});
  PassAt(60, {{"research/job-a-0", 0.0}, {"research/job-a-1", 0.0}});
  EXPECT_EQ(Count("evict job-a-0 300"), 1);
  EXPECT_EQ(Count("evict job-a-1 30"), 1);
}

TEST_F(ControlReclaimerTest, PlanLinesNameTheReclaimActions) {
  control::GateOptions o;  // Plan mode: nothing reaches the cluster.
  std::vector<std::string> lines;
  o.on_record = [&](const store::AuditRow& r) { lines.push_back(r.action + " " + r.object); };
  control::GatedControl gate(cluster_, nullptr, o);
  Result<ControlReclaimer> r = ControlReclaimer::Create(Options(), gate);
  ASSERT_TRUE(r.ok());
  for (int m : {0, 30, 60}) {
    cluster_.now = start_ + Minutes(m);
    ASSERT_TRUE(r->Pass({{"research/nb-0", 0.0}}).ok());
  }
  EXPECT_TRUE(cluster_.writes.empty());
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "reclaim-notice pod/research/nb-0", "reclaim-notice pod/research/nb-0",
                       "reclaim-evict pod/research/nb-0", "reclaim-evict pod/research/nb-0"}));
}

TEST(ControlReclaimerSpecTest, RefusesReclaimBeforeTheNotice) {
  FakeCluster cluster;
  ControlReclaimerOptions o = Options();
  o.spec.reclaim_after_minutes = 30;
  Result<ControlReclaimer> r = ControlReclaimer::Create(o, cluster);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("reclaim_after_minutes"), std::string::npos);
}

}  // namespace
}  // namespace steward::reclaim

// GatedControl (control/gated_control.h): plan vs apply, the audit rows, pause and leadership,
// the eviction cap. The cluster behind it is an in-memory fake that counts the writes that
// reach it, so "nothing is written without --apply" is checked by count, not by trust.
#include "control/gated_control.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "store/audit_log.h"

namespace steward::control {
namespace {

class FakeCluster : public ClusterControl {
 public:
  FakeCluster() {
    NodeInfo n;
    n.name = "gpu-1";
    n.labels["team"] = "a";
    nodes_[n.name] = n;
  }
  SimTime Now() const override { return now; }
  std::optional<NodeInfo> Node(std::string_view name) const override {
    auto it = nodes_.find(std::string(name));
    if (it == nodes_.end()) return std::nullopt;
    return it->second;
  }
  std::vector<NodeInfo> Nodes() const override { return {nodes_.at("gpu-1")}; }
  std::vector<PodInfo> PodsOnNode(std::string_view) const override { return {}; }
  Status Cordon(std::string_view node, bool cordoned, std::string_view) override {
    ++writes;
    auto it = nodes_.find(std::string(node));
    if (it == nodes_.end()) return Status::NotFound("no node");
    it->second.unschedulable = cordoned;
    return Status::Ok();
  }
  Status LabelNode(std::string_view node, std::string_view key, std::optional<std::string> value,
                   std::string_view) override {
    ++writes;
    auto& labels = nodes_.at(std::string(node)).labels;
    if (value)
      labels[std::string(key)] = *value;
    else
      labels.erase(std::string(key));
    return Status::Ok();
  }
  Status TaintNode(std::string_view, const model::Taint&, bool, std::string_view) override {
    ++writes;
    return Status::Ok();
  }
  Status Annotate(const ObjectRef&, std::string_view, std::optional<std::string>,
                  std::string_view) override {
    ++writes;
    return Status::Ok();
  }
  Status Evict(const PodRef&, SimDuration, std::string_view) override {
    ++writes;
    return evict_answer;
  }
  Status EmitEvent(const ObjectRef&, std::string_view, std::string_view,
                   std::string_view) override {
    ++writes;
    return Status::Ok();
  }
  std::vector<QueueInfo> ClusterQueues() const override {
    return {
        {"team-a", "org", "7", {{"h100", "nvidia.com/gpu", "8", std::string("4"), std::nullopt}}}};
  }
  Status PatchQueueQuota(std::string_view, std::string_view resource_version, const QueueQuota&,
                         std::string_view) override {
    ++writes;
    return resource_version == "7" ? Status::Ok() : Status::Aborted("409 Conflict");
  }

  Status ResizeWorkload(std::string_view, int workers, std::string_view) override {
    ++writes;
    return workers >= 1 ? Status::Ok() : Status::InvalidArgument("at least 1 worker");
  }

  SimTime now = kSimStart;
  int writes = 0;
  Status evict_answer;

 private:
  std::map<std::string, NodeInfo> nodes_;
};

class GatedControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ =
        std::filesystem::temp_directory_path() /
        ("gated_control_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db");
    std::filesystem::remove(path_);
    auto log = store::AuditLog::Open(path_.string());
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    log_ = std::move(*log);
  }
  void TearDown() override {
    log_.reset();
    std::filesystem::remove(path_);
    std::filesystem::remove(path_.string() + "-wal");
    std::filesystem::remove(path_.string() + "-shm");
  }
  std::vector<store::AuditRow> Rows() {
    auto rows = log_->Read();
    EXPECT_TRUE(rows.ok());
    return rows.ok() ? *rows : std::vector<store::AuditRow>{};
  }

  std::filesystem::path path_;
  std::unique_ptr<store::AuditLog> log_;
  FakeCluster cluster_;
};

TEST_F(GatedControlTest, PlanModeWritesNothingAndRecordsEachPlanOnce) {
  GateOptions o;  // kPlan by default.
  std::vector<std::string> printed;
  o.on_record = [&](const store::AuditRow& r) { printed.push_back(r.action + " " + r.object); };
  GatedControl gate(cluster_, log_.get(), o);
  EXPECT_TRUE(gate.Cordon("gpu-1", true, "XID 79 on GPU 3").ok());
  EXPECT_TRUE(gate.Cordon("gpu-1", true, "XID 79 on GPU 3").ok());  // Re-planned: not re-recorded.
  EXPECT_TRUE(gate.LabelNode("gpu-1", "team", std::string("b"), "move").ok());
  EXPECT_TRUE(gate.Evict({"ns", "p"}, Seconds(30), "drain gpu-1").ok());
  EXPECT_EQ(cluster_.writes, 0);
  EXPECT_FALSE(cluster_.Node("gpu-1")->unschedulable);
  std::vector<store::AuditRow> rows = Rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].mode, "planned");
  EXPECT_EQ(rows[0].action, "cordon");
  EXPECT_EQ(rows[0].object, "node/gpu-1");
  EXPECT_EQ(rows[0].reason, "XID 79 on GPU 3");
  EXPECT_EQ(rows[0].before, "schedulable");
  EXPECT_EQ(rows[0].after, "unschedulable");
  EXPECT_EQ(rows[1].before, "team=a");
  EXPECT_EQ(rows[1].after, "team=b");
  EXPECT_EQ(rows[2].object, "pod/ns/p");
  EXPECT_EQ(rows[2].after, "evicted (grace 30s)");
  EXPECT_EQ(printed,
            (std::vector<std::string>{"cordon node/gpu-1", "label node/gpu-1", "evict pod/ns/p"}));
}

TEST_F(GatedControlTest, QuotaPatchesArePlannedAndAppliedWithBeforeAndAfter) {
  GateOptions o;
  GatedControl plan(cluster_, log_.get(), o);
  const QueueQuota more{"h100", "nvidia.com/gpu", "16", std::string("4"), std::nullopt};
  EXPECT_TRUE(plan.PatchQueueQuota("team-a", "7", more, "lend the trough").ok());
  EXPECT_EQ(cluster_.writes, 0);
  o.mode = GateOptions::Mode::kApply;
  GatedControl apply(cluster_, log_.get(), o);
  EXPECT_TRUE(apply.PatchQueueQuota("team-a", "7", more, "lend the trough").ok());
  EXPECT_EQ(apply.PatchQueueQuota("team-a", "6", more, "stale").code(), Status::Code::kAborted);
  EXPECT_EQ(cluster_.writes, 2);
  std::vector<store::AuditRow> rows = Rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].mode, "planned");
  EXPECT_EQ(rows[0].action, "patch-quota");
  EXPECT_EQ(rows[0].object, "clusterqueue/team-a");
  EXPECT_EQ(rows[0].before, "h100 nvidia.com/gpu: nominal 8, borrowing 4, lending none");
  EXPECT_EQ(rows[0].after, "h100 nvidia.com/gpu: nominal 16, borrowing 4, lending none");
  EXPECT_EQ(rows[1].mode, "applied");
  EXPECT_EQ(rows[2].mode, "failed");
  EXPECT_NE(rows[2].error.find("409"), std::string::npos);
}

TEST_F(GatedControlTest, ResizesArePlannedAndAppliedAsJobs) {
  GateOptions o;
  GatedControl plan(cluster_, log_.get(), o);
  EXPECT_TRUE(plan.ResizeWorkload("training/llm", 2, "serving takes 8 GPUs back").ok());
  EXPECT_EQ(cluster_.writes, 0);
  o.mode = GateOptions::Mode::kApply;
  GatedControl apply(cluster_, log_.get(), o);
  EXPECT_TRUE(apply.ResizeWorkload("training/llm", 2, "serving takes 8 GPUs back").ok());
  EXPECT_EQ(apply.ResizeWorkload("training/llm", 0, "bad").code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(cluster_.writes, 2);
  std::vector<store::AuditRow> rows = Rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].mode, "planned");
  EXPECT_EQ(rows[0].action, "resize");
  EXPECT_EQ(rows[0].object, "job/training/llm");
  EXPECT_EQ(rows[0].after, "workers=2");
  EXPECT_EQ(rows[1].mode, "applied");
  EXPECT_EQ(rows[2].mode, "failed");
}

TEST_F(GatedControlTest, ApplyModeActsAndRecordsFailuresWithTheError) {
  GateOptions o;
  o.mode = GateOptions::Mode::kApply;
  GatedControl gate(cluster_, log_.get(), o);
  ASSERT_TRUE(gate.Cordon("gpu-1", true, "XID 79").ok());
  EXPECT_TRUE(cluster_.Node("gpu-1")->unschedulable);
  cluster_.evict_answer = Status::Unavailable("Cannot evict pod as it would violate the budget");
  EXPECT_EQ(gate.Evict({"ns", "p"}, Seconds(30), "drain").code(), Status::Code::kUnavailable);
  std::vector<store::AuditRow> rows = Rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].mode, "applied");
  EXPECT_EQ(rows[1].mode, "failed");
  EXPECT_NE(rows[1].error.find("violate the budget"), std::string::npos);
  EXPECT_EQ(cluster_.writes, 2);
}

TEST_F(GatedControlTest, PauseAndLeadershipRefuseEveryWriteAndAreRecordedOncePerChange) {
  bool paused = true, leader = true;
  GateOptions o;
  o.mode = GateOptions::Mode::kApply;
  o.paused = [&] { return paused; };
  o.is_leader = [&] { return leader; };
  GatedControl gate(cluster_, log_.get(), o);
  EXPECT_EQ(gate.Cordon("gpu-1", true, "x").code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(gate.Cordon("gpu-1", true, "x").code(), Status::Code::kFailedPrecondition);
  paused = false;
  leader = false;
  EXPECT_EQ(gate.Cordon("gpu-1", true, "x").code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(cluster_.writes, 0);
  leader = true;
  EXPECT_TRUE(gate.Cordon("gpu-1", true, "x").ok());
  EXPECT_EQ(cluster_.writes, 1);
  std::vector<store::AuditRow> rows = Rows();
  ASSERT_EQ(rows.size(), 3u);  // paused (once), not leader (once), applied.
  EXPECT_NE(rows[0].error.find("paused"), std::string::npos);
  EXPECT_NE(rows[1].error.find("not the leader"), std::string::npos);
  EXPECT_EQ(rows[2].mode, "applied");
}

TEST_F(GatedControlTest, EvictionCapPerMinute) {
  GateOptions o;
  o.mode = GateOptions::Mode::kApply;
  o.max_evictions_per_minute = 2;
  GatedControl gate(cluster_, log_.get(), o);
  EXPECT_TRUE(gate.Evict({"ns", "a"}, Seconds(0), "d").ok());
  cluster_.now = cluster_.now + Seconds(30);
  EXPECT_TRUE(gate.Evict({"ns", "b"}, Seconds(0), "d").ok());
  EXPECT_EQ(gate.Evict({"ns", "c"}, Seconds(0), "d").code(), Status::Code::kUnavailable);
  cluster_.now = cluster_.now + Seconds(30);  // The first left the window.
  EXPECT_TRUE(gate.Evict({"ns", "c"}, Seconds(0), "d").ok());
  EXPECT_EQ(cluster_.writes, 3);
}

TEST_F(GatedControlTest, AuditLogSurvivesReopening) {
  {
    GateOptions o;
    o.mode = GateOptions::Mode::kApply;
    o.now_micros = [] { return int64_t{1764806400000000}; };
    GatedControl gate(cluster_, log_.get(), o);
    ASSERT_TRUE(gate.TaintNode("gpu-1", {"k", "v", "NoSchedule"}, false, "maintenance").ok());
  }
  log_.reset();
  auto reopened = store::AuditLog::OpenExisting(path_.string());
  ASSERT_TRUE(reopened.ok());
  auto rows = (*reopened)->Read();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].at_micros, 1764806400000000);
  EXPECT_EQ((*rows)[0].before, "no k=v:NoSchedule");
  EXPECT_EQ((*rows)[0].after, "k=v:NoSchedule");
  EXPECT_EQ(store::AuditLog::OpenExisting("/nonexistent/audit.db").status().code(),
            Status::Code::kNotFound);
}

}  // namespace
}  // namespace steward::control

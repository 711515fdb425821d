// The tidal controller on an in-memory ClusterControl: no lending without a day of history,
// lending in whole nodes and never below the reserve, taking GPUs back ahead of the ramp by
// the lead time, victims by least lost work with the save as grace, a 409 re-read.
#include "tidal/tidal_controller.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

namespace steward::tidal {
namespace {

class FakeControl final : public control::ClusterControl {
 public:
  SimTime now;
  std::map<std::string, int> nominal = {{"serving", 96}, {"training", 32}};
  std::map<std::string, int> lending_limit;  // GPU lendingLimits set (none: unset).
  std::string cohort;                        // Both queues' cohort ("" = none).
  uint64_t version = 1;
  int aborts_left = 0;  // The next PatchQueueQuota calls answer 409.
  std::map<std::string, std::vector<control::PodInfo>> pods;  // By node.
  struct Eviction {
    std::string pod;
    SimDuration grace;
  };
  std::vector<Eviction> evictions;
  std::vector<std::string> patches;                  // "queue=gpus".
  std::vector<std::pair<std::string, int>> resizes;  // (workload, workers).

  FakeControl() {
    for (int i = 0; i < 16; ++i) pods[NodeName(i)];
  }
  static std::string NodeName(int i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "n%02d", i);
    return buf;
  }
  void AddTraining(const std::string& node, const std::string& workload, int gpus, bool ckpt) {
    control::PodInfo p;
    p.ref = {"training", workload + "-0"};
    p.node = node;
    p.workload = "training/" + workload;
    p.kind = model::WorkloadKind::kTraining;
    p.can_checkpoint = ckpt;
    p.gpus = gpus;
    p.running = true;
    pods[node].push_back(p);
  }

  SimTime Now() const override { return now; }
  std::optional<control::NodeInfo> Node(std::string_view) const override { return std::nullopt; }
  std::vector<control::NodeInfo> Nodes() const override {
    std::vector<control::NodeInfo> out;
    for (const auto& [name, p] : pods) {
      control::NodeInfo n;
      n.name = name;
      n.gpu_capacity = n.gpu_allocatable = 8;
      out.push_back(n);
    }
    return out;
  }
  std::vector<control::PodInfo> PodsOnNode(std::string_view node) const override {
    return pods.at(std::string(node));
  }
  std::vector<control::QueueInfo> ClusterQueues() const override {
    std::vector<control::QueueInfo> out;
    for (const auto& [q, n] : nominal) {
      out.push_back({q,
                     cohort,
                     std::to_string(version),
                     {{"default-flavor", "nvidia.com/gpu", std::to_string(n), {}, {}}}});
      if (auto ll = lending_limit.find(q); ll != lending_limit.end())
        out.back().quotas[0].lending_limit = std::to_string(ll->second);
    }
    return out;
  }
  Status PatchQueueQuota(std::string_view queue, std::string_view rv,
                         const control::QueueQuota& quota, std::string_view) override {
    if (aborts_left > 0) {
      --aborts_left;
      ++version;  // Someone else changed the queues.
      return Status::Aborted("conflict");
    }
    if (rv != std::to_string(version)) return Status::Aborted("stale");
    ++version;
    const std::string q(queue);
    auto ll = lending_limit.find(q);
    const std::optional<int> before =
        ll == lending_limit.end() ? std::nullopt : std::optional<int>(ll->second);
    const std::optional<int> after =
        quota.lending_limit ? std::optional<int>(std::stoi(*quota.lending_limit)) : std::nullopt;
    if (before != after) {
      if (after)
        lending_limit[q] = *after;
      else
        lending_limit.erase(q);
      patches.push_back(q + " lendingLimit=" + quota.lending_limit.value_or("none"));
      if (std::stoi(quota.nominal) == nominal[q]) return Status::Ok();
    }
    nominal[q] = std::stoi(quota.nominal);
    patches.push_back(q + "=" + quota.nominal);
    return Status::Ok();
  }
  Status Cordon(std::string_view, bool, std::string_view) override { return Status::Ok(); }
  Status LabelNode(std::string_view, std::string_view, std::optional<std::string>,
                   std::string_view) override {
    return Status::Ok();
  }
  Status TaintNode(std::string_view, const model::Taint&, bool, std::string_view) override {
    return Status::Ok();
  }
  Status Annotate(const control::ObjectRef&, std::string_view, std::optional<std::string>,
                  std::string_view) override {
    return Status::Ok();
  }
  // An elastic job: `workers` pods of `gpus` each on `node`, resizable down to `min`.
  void AddElastic(const std::string& node, const std::string& workload, int workers, int gpus,
                  int min) {
    for (int i = 0; i < workers; ++i) {
      control::PodInfo p;
      p.ref = {"training", workload + "-" + std::to_string(i)};
      p.node = node;
      p.workload = "training/" + workload;
      p.kind = model::WorkloadKind::kTraining;
      p.can_checkpoint = true;
      p.gpus = gpus;
      p.running = true;
      p.min_workers = min;
      pods[node].push_back(p);
    }
  }
  // Training's 104 GPUs on nodes n00-n12: one job that cannot checkpoint on n00, checkpointing
  // 8-GPU jobs on n01 up to n(first_elastic - 1), and from there elastic jobs of 8 one-GPU
  // workers that may shrink to 2.
  void AddBorrowers(int first_elastic) {
    AddTraining("n00", "nockpt", 8, false);
    for (int i = 1; i < first_elastic && i <= 12; ++i)
      AddTraining(NodeName(i), "job" + std::to_string(i), 8, true);
    for (int i = first_elastic; i <= 12; ++i)
      AddElastic(NodeName(i), "elastic" + std::to_string(i), 8, 1, 2);
  }
  // The cluster resizes at once: the highest ordinals go, or new ones join on the same node.
  Status ResizeWorkload(std::string_view workload, int workers, std::string_view) override {
    resizes.emplace_back(std::string(workload), workers);
    for (auto& [node, list] : pods) {
      std::vector<control::PodInfo> mine;
      for (const control::PodInfo& p : list)
        if (p.workload == workload && p.min_workers > 0) mine.push_back(p);
      if (mine.empty()) continue;
      std::erase_if(list, [&](const control::PodInfo& p) {
        return p.workload == workload && p.min_workers > 0;
      });
      for (int i = 0; i < workers; ++i) {
        control::PodInfo p = mine[0];
        p.ref.name = std::string(workload.substr(workload.find('/') + 1)) + "-" + std::to_string(i);
        list.push_back(p);
      }
    }
    return Status::Ok();
  }
  // The pods of evicted workloads leave (after their save, here at once).
  void RemoveEvicted() {
    for (const Eviction& e : evictions) {
      const std::string workload = "training/" + e.pod.substr(0, e.pod.rfind('-'));
      for (auto& [node, list] : pods)
        std::erase_if(list, [&](const control::PodInfo& p) { return p.workload == workload; });
    }
  }
  int Workers(const std::string& workload) const {
    int n = 0;
    for (const auto& [node, list] : pods)
      for (const control::PodInfo& p : list) n += p.workload == "training/" + workload;
    return n;
  }
  Status Evict(const control::PodRef& pod, SimDuration grace, std::string_view) override {
    evictions.push_back({pod.name, grace});
    return Status::Ok();
  }
  Status EmitEvent(const control::ObjectRef&, std::string_view, std::string_view,
                   std::string_view) override {
    return Status::Ok();
  }
  int lent() const { return 96 - nominal.at("serving"); }
};

TidalOptions Options() {
  TidalOptions o;
  o.lend_from = "serving";
  o.lend_to = "training";
  o.forecast = {.days = 1, .bucket = Minutes(15)};
  o.save = Seconds(120);
  o.restart = Seconds(90);
  o.period = Minutes(1);
  return o;
}

// One service of 2-GPU replicas, 12 rps per replica on target; `replicas(t)` of demand.
ServiceLoad Chat(double replicas) {
  ServiceLoad s;
  s.name = "serving/chat";
  s.capacity_per_replica = 20;
  s.target_utilization = 0.6;
  s.rps = replicas * 12;
  s.desired_replicas = s.ready_replicas = static_cast<int>(replicas);
  s.min_replicas = 2;
  s.max_replicas = 48;
  s.gpus_per_replica = 2;
  return s;
}

// Demand: 6 replicas at night, 40 from 08:00 to 20:00.
double Demand(SimTime t) {
  const double h = std::fmod(t.ToHours(), 24.0);
  return h >= 8 && h < 20 ? 40 : 6;
}

// Steps `tidal` once a minute through a day of night-level demand and one minute into the
// next: 72 of serving's GPUs lent (training's quota: 104).
void LendThroughTheFirstDay(FakeControl& c, TidalController& tidal) {
  for (c.now = kSimStart; c.now <= kSimStart + Hours(24) + Minutes(1); c.now = c.now + Minutes(1))
    ASSERT_TRUE(tidal.Step({Chat(6)}).ok());
  ASSERT_EQ(c.lent(), 72);
}

TEST(TidalControllerTest, LendsOnlyAfterADayOfHistory) {
  FakeControl c;
  TidalController tidal(c, Options());
  for (c.now = kSimStart; c.now < kSimStart + Hours(24); c.now = c.now + Minutes(1))
    ASSERT_TRUE(tidal.Step({Chat(Demand(c.now))}).ok());
  EXPECT_TRUE(c.patches.empty());
  EXPECT_EQ(tidal.stats().lent_gpus, 0);
  c.now = kSimStart + Hours(24) + Minutes(1);
  ASSERT_TRUE(tidal.Step({Chat(6)}).ok());
  // Night: 6 replicas + one step (max(4, 6) = 6) = 12 x 2 GPUs = 24 kept; 72 lent (9 nodes).
  EXPECT_EQ(tidal.last_need(), 24);
  EXPECT_EQ(c.lent(), 72);
  EXPECT_EQ(c.nominal["training"], 32 + 72);
  // Serving gave up its quota before training got it.
  EXPECT_EQ(c.patches, (std::vector<std::string>{"serving=24", "training=104"}));
}

TEST(TidalControllerTest, TakesGpusBackAheadOfTheRampAndNeverLendsBelowTheReserve) {
  FakeControl c;
  TidalController tidal(c, Options());
  SimTime reclaimed = SimTime::Never();
  for (c.now = kSimStart; c.now < kSimStart + Hours(48); c.now = c.now + Minutes(1)) {
    ASSERT_TRUE(tidal.Step({Chat(Demand(c.now))}).ok());
    // Never lent below what serving needs (demand now + one scale-up step).
    const int now_replicas = static_cast<int>(Demand(c.now));
    EXPECT_GE(c.nominal["serving"], std::min(48, 2 * now_replicas) * 2) << c.now.ToHours();
    if (c.now > kSimStart + Hours(24) && reclaimed.is_never() && c.lent() < 72) reclaimed = c.now;
    // At the peak: 40 + 8 (capped at 48) = 48 replicas = 96 GPUs: nothing lent.
    if (c.now == kSimStart + Hours(36)) {
      EXPECT_EQ(c.lent(), 0);
    }
  }
  // The morning ramp of day 1 is at 32 h: GPUs came back at least a lead time (save + restart)
  // before it, and not hours early (the forecast's window and smoothing: under 30 minutes).
  ASSERT_FALSE(reclaimed.is_never());
  const SimTime ramp = kSimStart + Hours(32);
  EXPECT_LE(reclaimed, ramp + SecondsF(-210));
  EXPECT_GE(reclaimed, ramp + Minutes(-30));
  EXPECT_GT(tidal.stats().gpu_hours_lent, 0);
  EXPECT_EQ(tidal.stats().reclaims, 1);
}

TEST(TidalControllerTest, ReclaimEvictsLeastLostWorkWithTheSaveAsGrace) {
  FakeControl c;
  TidalController tidal(c, Options());
  ASSERT_NO_FATAL_FAILURE(LendThroughTheFirstDay(c, tidal));
  // Training runs 104 GPUs: one job that cannot checkpoint, the rest checkpoint.
  c.AddBorrowers(/*first_elastic=*/13);
  // Demand jumps (an unforecast burst): serving needs 20 + 20 = 40 replicas = 80 GPUs now.
  c.now = c.now + Minutes(1);
  ASSERT_TRUE(tidal.Step({Chat(20)}).ok());
  EXPECT_EQ(c.lent(), 16);  // 96 - 80.
  // Training's quota is 48: 56 GPUs over, 7 checkpointing jobs go, each with 120 s to save.
  ASSERT_EQ(c.evictions.size(), 7u);
  for (const auto& e : c.evictions) {
    EXPECT_NE(e.pod, "nockpt-0");
    EXPECT_EQ(e.grace, Seconds(120));
  }
  // While they save, the next step does not evict them (or others) again.
  c.now = c.now + Minutes(1);
  ASSERT_TRUE(tidal.Step({Chat(20)}).ok());
  EXPECT_EQ(c.evictions.size(), 7u);
  // 56 GPUs (72 lent -> 16) came back a minute ago and are not lent again: 56 x 1/60 GPU-hours
  // so far; an hour after the reclaim, 56.
  EXPECT_NEAR(tidal.stats().gpu_hours_reclaimed, 56.0 / 60, 1e-9);
  EXPECT_NEAR(tidal.GpuHoursReclaimed(c.now + Minutes(59)), 56.0, 1e-9);
}

// The live fail-safe (no demand reading for too long): everything lent comes back at once, the
// borrower's quota first, and borrowers beyond it are evicted as after any reclaim; further
// calls while it lasts patch nothing more.
TEST(TidalControllerTest, ReclaimAllTakesTheWholeLoanBack) {
  FakeControl c;
  TidalController tidal(c, Options());
  ASSERT_NO_FATAL_FAILURE(LendThroughTheFirstDay(c, tidal));
  c.AddBorrowers(/*first_elastic=*/13);  // Training runs its 104 GPUs.
  c.patches.clear();
  c.now = c.now + Minutes(1);
  ASSERT_TRUE(tidal.ReclaimAll("no demand reading for 10 minutes").ok());
  EXPECT_EQ(c.lent(), 0);
  EXPECT_EQ(c.patches, (std::vector<std::string>{"training=32", "serving=96"}));
  EXPECT_EQ(tidal.stats().lent_gpus, 0);
  EXPECT_EQ(tidal.stats().gpus_reclaimed, 72);
  // Training's quota is 32 of the 104 GPUs it runs: 72 over, 9 checkpointing 8-GPU jobs go.
  ASSERT_EQ(c.evictions.size(), 9u);
  for (const auto& e : c.evictions) EXPECT_NE(e.pod, "nockpt-0");
  c.now = c.now + Minutes(1);
  ASSERT_TRUE(tidal.ReclaimAll("no demand reading for 11 minutes").ok());
  EXPECT_EQ(c.patches.size(), 2u);
  EXPECT_EQ(c.evictions.size(), 9u);  // Those saving are not counted again.
}

TEST(TidalControllerTest, AConflictIsReReadAndRetried) {
  FakeControl c;
  TidalController tidal(c, Options());
  for (c.now = kSimStart; c.now < kSimStart + Hours(24); c.now = c.now + Minutes(1))
    ASSERT_TRUE(tidal.Step({Chat(6)}).ok());
  c.aborts_left = 1;
  c.now = kSimStart + Hours(24) + Minutes(1);
  ASSERT_TRUE(tidal.Step({Chat(6)}).ok());
  EXPECT_EQ(c.lent(), 72);
}

// A live controller primed from the request-rate metric's history (operate --tidal) lends at
// once, as the one that stepped through the day does.
TEST(TidalControllerTest, PrimedFromHistoryLendsWithoutADayOfSteps) {
  FakeControl c;
  TidalController tidal(c, Options());
  for (SimTime t = kSimStart; t < kSimStart + Hours(24); t = t + Minutes(1))
    tidal.ObserveHistory(Chat(Demand(t)), t);
  EXPECT_TRUE(c.patches.empty());  // Observing acts on nothing.
  c.now = kSimStart + Hours(24) + Minutes(1);
  ASSERT_TRUE(tidal.Step({Chat(6)}).ok());
  EXPECT_EQ(tidal.last_need(), 24);
  EXPECT_EQ(c.patches, (std::vector<std::string>{"serving=24", "training=104"}));
}

// A restart while lending: with the static split stated, the quotas found below it are what is
// lent, and without a forecast it is all taken back (the borrower's quota first).
TEST(TidalControllerTest, AStatedSplitTakesBackWhatARestartFoundLent) {
  FakeControl c;
  c.nominal = {{"serving", 24}, {"training", 104}};
  TidalOptions o = Options();
  o.serving_quota = 96;
  o.borrower_quota = 32;
  TidalController tidal(c, o);
  c.now = kSimStart + Hours(30);
  ASSERT_TRUE(tidal.Step({Chat(6)}).ok());
  EXPECT_EQ(c.patches, (std::vector<std::string>{"training=32", "serving=96"}));
  EXPECT_EQ(tidal.stats().lent_gpus, 0);
  EXPECT_EQ(tidal.stats().gpus_reclaimed, 72);
}

TEST(TidalControllerTest, ElasticBorrowersShrinkInsteadOfBeingEvicted) {
  FakeControl c;
  TidalController tidal(c, Options());
  ASSERT_NO_FATAL_FAILURE(LendThroughTheFirstDay(c, tidal));
  // The same 104 GPUs as above, but six of the checkpointing jobs are elastic: 8 workers of
  // 1 GPU each, down to 2 (6 GPUs each may go: 36 in all).
  c.AddBorrowers(/*first_elastic=*/7);
  // The burst: training's quota drops to 48, 56 GPUs over. Shrinking frees 36 at most, so 20
  // more by eviction, among the fixed-size jobs: the checkpointing ones lose least, job1..job3
  // go whole (24); the other 32 come from shrinks: elastic10, 11, 12, 7, 8 (all give 6, so by
  // name) to their 2 workers (30), and elastic9 by the 2 workers still needed.
  c.now = c.now + Minutes(1);
  ASSERT_TRUE(tidal.Step({Chat(20)}).ok());
  EXPECT_EQ(c.lent(), 16);
  ASSERT_EQ(c.evictions.size(), 3u);
  for (const auto& e : c.evictions) {
    EXPECT_NE(e.pod, "nockpt-0");
    EXPECT_EQ(e.pod.rfind("job", 0), 0u) << e.pod;
  }
  ASSERT_EQ(c.resizes.size(), 6u);
  EXPECT_EQ(c.resizes[0], std::make_pair(std::string("training/elastic10"), 2));
  EXPECT_EQ(c.resizes[5], std::make_pair(std::string("training/elastic9"), 6));
  int freed = 0;
  for (const auto& [w, workers] : c.resizes) freed += 8 - workers;
  EXPECT_EQ(freed, 32);
  EXPECT_EQ(tidal.stats().shrinks, 6);
  EXPECT_EQ(tidal.stats().gpus_shrunk, 32);
  EXPECT_EQ(tidal.stats().evictions, 3);
  // Without elastic jobs the same reclaim evicts 7 (ReclaimEvictsLeastLostWork above); here 3.
  // The next step finds training within its quota: nothing more.
  c.now = c.now + Minutes(1);
  ASSERT_TRUE(tidal.Step({Chat(20)}).ok());
  EXPECT_EQ(c.evictions.size(), 3u);
  EXPECT_EQ(c.resizes.size(), 6u);
  // Demand falls back and the trough is lent again: without grow_back the shrunk jobs keep
  // their size.
  c.RemoveEvicted();
  for (int i = 0; i < 20; ++i) {
    c.now = c.now + Minutes(1);
    ASSERT_TRUE(tidal.Step({Chat(6)}).ok());
  }
  EXPECT_EQ(c.lent(), 72);
  EXPECT_EQ(c.resizes.size(), 6u);
  EXPECT_EQ(tidal.stats().regrows, 0);
}

TEST(TidalControllerTest, WithGrowBackShrunkBorrowersGrowWhenLentAgain) {
  FakeControl c;
  TidalOptions o = Options();
  o.grow_back = true;
  TidalController tidal(c, o);
  ASSERT_NO_FATAL_FAILURE(LendThroughTheFirstDay(c, tidal));
  c.AddBorrowers(/*first_elastic=*/7);
  c.now = c.now + Minutes(1);
  ASSERT_TRUE(tidal.Step({Chat(20)}).ok());  // As above: 3 evictions, 6 shrinks (32 GPUs).
  ASSERT_EQ(tidal.stats().gpus_shrunk, 32);
  c.RemoveEvicted();
  // Lent again: training's quota is 104 and it holds 48, so the six grow back to 8 workers
  // (32 GPUs) once the reclaim's check window (save + restart + 2 periods) is over.
  for (int i = 0; i < 20; ++i) {
    c.now = c.now + Minutes(1);
    ASSERT_TRUE(tidal.Step({Chat(6)}).ok());
  }
  EXPECT_EQ(c.lent(), 72);
  EXPECT_EQ(tidal.stats().regrows, 6);
  EXPECT_EQ(tidal.stats().gpus_regrown, 32);
  for (int i = 7; i <= 12; ++i) EXPECT_EQ(c.Workers("elastic" + std::to_string(i)), 8) << i;
  ASSERT_EQ(c.resizes.size(), 12u);
  EXPECT_EQ(c.resizes[6], std::make_pair(std::string("training/elastic10"), 8));
}

// The lendingLimit form (Kueue's pattern): serving and training in one cohort, serving's
// nominal quota stays 96 and its lendingLimit is what it lends; training's nominal stays 32 and
// it borrows through the cohort. The same loan and the same reclaim as moving nominal quota.
TEST(TidalControllerTest, TheLendingLimitFormLendsThroughTheCohort) {
  FakeControl c;
  c.cohort = "tidal";
  c.lending_limit = {{"serving", 0}};  // The static split lends nothing.
  TidalOptions o = Options();
  o.lend_by = LendBy::kLendingLimit;
  TidalController tidal(c, o);
  for (c.now = kSimStart; c.now <= kSimStart + Hours(24) + Minutes(1); c.now = c.now + Minutes(1))
    ASSERT_TRUE(tidal.Step({Chat(6)}).ok());
  // Night: serving keeps 24 GPUs (6 replicas + a step of 6, x 2): it lends 72, nine nodes.
  EXPECT_EQ(c.patches, (std::vector<std::string>{"serving lendingLimit=72"}));
  EXPECT_EQ(c.nominal["serving"], 96);
  EXPECT_EQ(c.nominal["training"], 32);
  EXPECT_EQ(tidal.stats().lent_gpus, 72);
  // Training borrows all of it (104 GPUs); an unforecast burst: serving needs 80 GPUs, so the
  // cohort may lend 16; training may hold 32 + 16 = 48, 56 over: 7 checkpointing jobs go.
  c.AddBorrowers(/*first_elastic=*/13);
  c.now = c.now + Minutes(1);
  ASSERT_TRUE(tidal.Step({Chat(20)}).ok());
  EXPECT_EQ(c.patches.back(), "serving lendingLimit=16");
  EXPECT_EQ(c.nominal["training"], 32);
  ASSERT_EQ(c.evictions.size(), 7u);
  for (const auto& e : c.evictions) {
    EXPECT_NE(e.pod, "nockpt-0");
    EXPECT_EQ(e.grace, Seconds(120));
  }
  EXPECT_EQ(tidal.stats().reclaims, 1);
  EXPECT_EQ(tidal.stats().gpus_reclaimed, 56);
}

// Restarted while lending by lendingLimit: what serving lends is the limit as found (none set:
// all of its nominal), and without a forecast it is taken back.
TEST(TidalControllerTest, TheLendingLimitFormReadsTheLoanFromTheLimit) {
  FakeControl c;
  c.cohort = "tidal";
  c.lending_limit = {{"serving", 40}};
  TidalOptions o = Options();
  o.lend_by = LendBy::kLendingLimit;
  TidalController tidal(c, o);
  c.now = kSimStart + Hours(30);
  ASSERT_TRUE(tidal.Step({Chat(6)}).ok());
  EXPECT_EQ(c.patches, (std::vector<std::string>{"serving lendingLimit=0"}));
  EXPECT_EQ(tidal.stats().gpus_reclaimed, 40);

  FakeControl unset;  // No lendingLimit: the cohort may borrow all 96.
  unset.cohort = "tidal";
  TidalController again(unset, o);
  unset.now = kSimStart + Hours(30);
  ASSERT_TRUE(again.Step({Chat(6)}).ok());
  EXPECT_EQ(unset.patches, (std::vector<std::string>{"serving lendingLimit=0"}));
  EXPECT_EQ(again.stats().gpus_reclaimed, 96);
}

// Without a cohort shared by both queues there is nothing to lend through: an error, no patch.
TEST(TidalControllerTest, TheLendingLimitFormNeedsOneCohort) {
  FakeControl c;  // No cohort.
  TidalOptions o = Options();
  o.lend_by = LendBy::kLendingLimit;
  TidalController tidal(c, o);
  c.now = kSimStart;
  Status s = tidal.Step({Chat(6)});
  EXPECT_EQ(s.code(), Status::Code::kFailedPrecondition) << s.ToString();
  EXPECT_NE(s.message().find("one cohort"), std::string::npos) << s.message();
  EXPECT_TRUE(c.patches.empty());
}

}  // namespace
}  // namespace steward::tidal

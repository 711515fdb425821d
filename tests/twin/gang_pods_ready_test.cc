// Kueue's Configuration in the twin: waitForPodsReady (timeout -> release -> requeue after an
// exponential backoff; blockAdmission) and the gang stress test of issue 6 item 5: many
// 4-worker jobs under heavy load, slow starts so timeouts fire, pods created over time; no job
// is ever partially placed and the cluster never deadlocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "twin/controller.h"
#include "twin/report.h"
#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

std::string Config(const std::string& wait_for_pods_ready, const std::string& extra = "") {
  return "---\napiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n" + extra +
         "waitForPodsReady:\n  enable: true\n" + wait_for_pods_ready;
}

// One 4-worker gang (4 x 2 GPUs) whose pods need 90 s to start; the timeout is 60 s, so every
// attempt times out. Backoff base 10 s, max 30 s, at most 3 requeues:
//   admit 0, evict 60 (1st: +10 s) -> admit 70, evict 130 (2nd: +20 s) -> admit 150,
//   evict 210 (3rd: +40 s, capped at 30 s) -> admit 240, evict 300: count 3 + 1 > 3 ->
//   deactivated, pending for good.
TEST(PodsReadyTwinTest, TimeoutRequeuesWithExponentialBackoffThenDeactivates) {
  TwinOptions o;
  o.policy_files = {testing::WriteTempFile(
      "wfpr-backoff.yaml",
      testing::TwoTeamPolicyYaml(8, 8, "{}") +
          Config("  timeout: 60s\n  requeuingStrategy: {backoffBaseSeconds: 10, "
                 "backoffMaxSeconds: 30, backoffLimitCount: 3}\n"))};
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(
      1, "team-a:0,team-b:0",
      "policies: {startup_seconds: 90}\n"
      "generators:\n"
      "  - {name: g, team: team-a, kind: batch, arrival: {process: once, count: 1},\n"
      "     pods: 4, gpus_per_pod: 2, duration_hours: 1}\n"));
  int evictions_logged = 0;  // Each timeout is the admitter's eviction in the lifecycle log.
  o.on_lifecycle = [&](const LifecycleRecord& r) {
    evictions_logged += r.kind == LifecycleKind::kPreempt;
  };
  auto t = Twin::Create(std::move(s), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  Twin& twin = **t;
  auto at = [&](int seconds) {
    twin.RunUntil(kSimStart + Seconds(seconds));
    return twin.FindRun("g-000000");
  };
  struct Step {
    int seconds;
    RunState state;
    const char* reason;  // When pending.
  };
  const Step steps[] = {
      {0, RunState::kStarting, ""},
      {59, RunState::kStarting, ""},
      {60, RunState::kPending, "waiting_for_backoff"},
      {69, RunState::kPending, "waiting_for_backoff"},
      {70, RunState::kStarting, ""},
      {129, RunState::kStarting, ""},
      {130, RunState::kPending, "waiting_for_backoff"},
      {149, RunState::kPending, "waiting_for_backoff"},
      {150, RunState::kStarting, ""},
      {210, RunState::kPending, "waiting_for_backoff"},
      {239, RunState::kPending, "waiting_for_backoff"},
      {240, RunState::kStarting, ""},
      {300, RunState::kPending, "deactivated"},
      {3600, RunState::kPending, "deactivated"},
  };
  for (const Step& st : steps) {
    const WorkloadRun* run = at(st.seconds);
    ASSERT_NE(run, nullptr);
    EXPECT_EQ(run->state, st.state) << "t=" << st.seconds;
    if (st.state == RunState::kPending) {
      EXPECT_EQ(run->reason, st.reason) << "t=" << st.seconds << " " << run->reason_detail;
      EXPECT_TRUE(run->pods.empty());
    } else {
      EXPECT_EQ(run->pods.size(), 4u) << "t=" << st.seconds;
    }
  }
  const Report r = twin.BuildReport();
  EXPECT_EQ(r.pods_ready_timeouts, 4);
  EXPECT_EQ(evictions_logged, 4);
  EXPECT_EQ(r.pending_by_reason.at("deactivated"), 1);
  for (const auto& cq : r.scheduler.cluster_queues) {
    if (cq.name != "team-a") continue;
    EXPECT_EQ(cq.admitted_workloads_total, 4);
    EXPECT_EQ(cq.evicted_workloads_total.at("PodsReadyTimeout"), 4);
  }
}

// blockAdmission: while an admitted workload's pods are not all running, nothing else is
// admitted. Two 1-pod jobs, startup 90 s: the second waits (waiting_for_pods_ready) until the
// first runs at 90 s. Without blockAdmission both start at 0.
TEST(PodsReadyTwinTest, BlockAdmissionSerialisesStartups) {
  for (bool block : {true, false}) {
    TwinOptions o;
    o.policy_files = {
        testing::WriteTempFile(block ? "wfpr-block.yaml" : "wfpr-noblock.yaml",
                               testing::TwoTeamPolicyYaml(16, 16, "{}") +
                                   Config(std::string("  timeout: 5m\n  blockAdmission: ") +
                                          (block ? "true" : "false") + "\n"))};
    Scenario s = testing::MustParse(testing::SmallScenarioYaml(
        2, "team-a:0,team-b:0",
        "policies: {startup_seconds: 90}\n"
        "generators:\n"
        "  - {name: j, team: team-a, kind: batch, arrival: {process: once, count: 2},\n"
        "     gpus_per_pod: 8, duration_hours: 1}\n"));
    auto t = Twin::Create(std::move(s), o);
    ASSERT_TRUE(t.ok()) << t.status().message();
    (*t)->RunUntil(kSimStart + Seconds(89));
    const WorkloadRun* second = (*t)->FindRun("j-000001");
    ASSERT_NE(second, nullptr);
    if (block) {
      EXPECT_EQ(second->state, RunState::kPending);
      EXPECT_EQ(second->reason, "waiting_for_pods_ready") << second->reason_detail;
      (*t)->RunUntil(kSimStart + Seconds(90));
      EXPECT_EQ(second->state, RunState::kStarting);  // Admitted the instant the first runs.
      (*t)->RunUntil(kSimStart + Seconds(180));
      EXPECT_EQ(second->state, RunState::kRunning);
    } else {
      EXPECT_EQ(second->state, RunState::kStarting);
    }
    EXPECT_EQ((*t)->BuildReport().pods_ready_timeouts, 0);
  }
}

// Watches every placement and release: a gang holds all of its GPUs or none, at every signal.
class GangInvariant final : public TwinController {
 public:
  std::string_view Name() const override { return "gang-invariant"; }
  Status Attach(TwinOps& ops) override {
    ops_ = &ops;
    return Status::Ok();
  }
  bool ObservesWorkloads() const override { return true; }
  void OnSignal(const TwinSignal& s) override {
    if (s.kind != TwinSignal::Kind::kUsage) return;  // After each placement / release.
    Result<WorkloadView> v = ops_->View(s.workload);
    if (!v.ok()) return;
    ++checks;
    const int total = v->spec->TotalGpus();
    if (v->gpus != 0 && v->gpus != total) {
      ++partial;
      first_partial = v->spec->name;
    }
  }
  int64_t checks = 0;
  int64_t partial = 0;
  std::string first_partial;

 private:
  TwinOps* ops_ = nullptr;
};

// Issue 6 item 5. 8 nodes x 8 GPUs; two ClusterQueues of 32 GPUs in one cohort, each may
// borrow the other's idle quota, reclaim it (Any) and preempt lower priority in its own queue.
// 480 gangs of 4 workers (4 x 2 GPUs, 8 x 2 via 4 x 4 for some) arrive in 6 waves over 5 h,
// ~4.5x the cluster; pods take 30 s + up to 120 s to start while the timeout is 60 s, so many
// attempts time out and back off (base 30 s, max 240 s). One generator creates its pods 20 s
// apart (a gang is incomplete until all 4 exist). Checked: no partial gang at any placement or
// release; quota held = GPUs placed at every step; pending reaches 0 and every job completes.
TEST(GangStressTest, ManyFourWorkerGangsNeverPartialNeverDeadlock) {
  TwinOptions o;
  o.policy_files = {testing::WriteTempFile(
      "gang-stress.yaml",
      testing::TwoTeamPolicyYaml(32, 32,
                                 "{reclaimWithinCohort: Any, withinClusterQueue: LowerPriority}") +
          Config("  timeout: 60s\n  blockAdmission: false\n  requeuingStrategy: "
                 "{backoffBaseSeconds: 30, backoffMaxSeconds: 240}\n"))};
  std::string gens = "generators:\n";
  for (int wave = 0; wave < 6; ++wave) {
    const std::string team = wave % 2 ? "team-b" : "team-a";
    const std::string kind = wave % 3 == 2 ? "training" : "batch";
    gens += "  - {name: w" + std::to_string(wave) + ", team: " + team + ", kind: " + kind +
            ", arrival: {process: once, count: 80, start_hours: " + std::to_string(wave) +
            "},\n     pods: 4, gpus_per_pod: " + (wave == 4 ? "4" : "2") +
            ", duration_hours: {dist: uniform, min: 0.1, max: 0.4},"
            " checkpoint_interval_minutes: 5, restore_minutes: 1, startup_jitter_seconds: 120" +
            (wave == 3 ? ", pod_creation_seconds: 20" : "") + "}\n";
  }
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(
      8, "team-a:0,team-b:0", "policies: {startup_seconds: 30}\n" + gens, /*days=*/2));
  auto t = Twin::Create(std::move(s), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  Twin& twin = **t;
  auto watcher = std::make_unique<GangInvariant>();
  GangInvariant* inv = watcher.get();
  ASSERT_TRUE(twin.AddController(std::move(watcher)).ok());
  int max_pending = 0;
  for (SimTime now = kSimStart; now < kSimStart + Days(2); now = now + Minutes(5)) {
    twin.RunUntil(now);
    // Between events: every GPU the admitter counts as reserved is placed, and vice versa.
    int placed = 0, pending = 0;
    for (const WorkloadRun& run : twin.runs()) {
      for (const auto& p : run.pods) placed += std::popcount(p.gpus);
      pending += run.state == RunState::kPending;
    }
    double reserved = 0;
    for (const auto& cq : twin.Scheduler().cluster_queues)
      for (const auto& q : cq.quotas)
        if (q.resource == "nvidia.com/gpu") reserved += q.usage;
    ASSERT_EQ(reserved, placed) << "at " << (now - kSimStart).ToSeconds() << " s";
    max_pending = std::max(max_pending, pending);
  }
  const Report r = twin.Run();
  EXPECT_EQ(inv->partial, 0) << "first partial gang: " << inv->first_partial;
  EXPECT_GT(inv->checks, 480 * 2);        // At least a placement and a release per job.
  EXPECT_GT(max_pending, 200);            // Heavy load: most of a wave waits.
  EXPECT_GT(r.pods_ready_timeouts, 50);   // The timeouts really fired.
  EXPECT_EQ(r.workloads_completed, 480);  // No deadlock: every gang ran to its end.
  int pending_now = 0;
  for (const auto& [reason, n] : r.pending_by_reason) pending_now += n;
  EXPECT_EQ(pending_now, 0);
}

// Issue 6 item 6: every preemption is recorded with its lost GPU-hours, totalled by team and
// tier. One 8-GPU node; ClusterQueue team-a (8 GPUs, withinClusterQueue LowerPriority). A
// training job (8 GPUs, checkpoint every 30 min, restore 6 min) starts at 90 s (startup); its
// checkpoints land at 90 + 1800 = 1890 s and 3690 s. A production job arrives at 5400 s and
// preempts it: lost = (5400 - 3690 s since the checkpoint + 360 s restore) x 8 GPUs
// = 2070 s x 8 = 4.6 GPU-hours.
TEST(PreemptionLossTest, EveryPreemptionRecordedWithLostGpuHoursByTeamAndTier) {
  TwinOptions o;
  o.policy_files = {testing::WriteTempFile(
      "loss.yaml", testing::TwoTeamPolicyYaml(8, 0, "{withinClusterQueue: LowerPriority}"))};
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(
      1, "team-a:0,team-b:0",
      "policies: {startup_seconds: 90}\n"
      "generators:\n"
      "  - {name: train, team: team-a, kind: training, tier: training,\n"
      "     arrival: {process: once, count: 1}, gpus_per_pod: 8, duration_hours: 10,\n"
      "     checkpoint_interval_minutes: 30, restore_minutes: 6}\n"
      "  - {name: prod, team: team-a, kind: batch, tier: production,\n"
      "     arrival: {process: once, count: 1, start_hours: 1.5}, gpus_per_pod: 8,\n"
      "     duration_hours: 1}\n"));
  auto t = Twin::Create(std::move(s), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  (*t)->RunUntil(kSimStart + Seconds(5400));
  const double lost = (5400.0 - 3690 + 360) / 3600 * 8;  // 4.6
  ASSERT_EQ((*t)->preemption_records().size(), 1u);
  const PreemptionRecord& rec = (*t)->preemption_records()[0];
  EXPECT_EQ(rec.at, kSimStart + Seconds(5400));
  EXPECT_EQ(rec.victim, "train-000000");
  EXPECT_EQ(rec.preemptor, "prod-000000");
  EXPECT_EQ(rec.team, "team-a");
  EXPECT_EQ(rec.tier, model::Tier::kTraining);
  EXPECT_EQ(rec.gpus, 8);
  EXPECT_NEAR(rec.lost_gpu_hours, lost, 1e-9);
  const Report r = (*t)->BuildReport();
  EXPECT_EQ(r.preemptions.at("training"), 1);
  EXPECT_EQ(r.preemptions.at("production"), 0);
  EXPECT_NEAR(r.preemption_lost_gpu_hours_by_tier.at("training"), lost, 1e-9);
  EXPECT_EQ(r.preemption_lost_gpu_hours_by_tier.at("dev"), 0);
  EXPECT_NEAR(r.preemption_lost_gpu_hours_by_team.at("team-a"), lost, 1e-9);
  EXPECT_EQ(r.preemption_lost_gpu_hours_by_team.at("team-b"), 0);
  // No failures in this run: all of the loss is the preemption's.
  EXPECT_NEAR(r.lost_gpu_hours_by_team.at("team-a"), lost, 1e-9);
  EXPECT_NEAR(r.lost_gpu_hours_by_tier.at("training"), lost, 1e-9);
  const nlohmann::json j = ToJson(r);
  EXPECT_NEAR(j["preemption_lost_gpu_hours_by_tier"]["training"].get<double>(), 4.6, 1e-9);
  EXPECT_NEAR(j["lost_gpu_hours_by_team"]["team-a"].get<double>(), 4.6, 1e-9);
}

}  // namespace
}  // namespace steward::twin

// The twin under Kueue policies: the guide's case 2 (examples/case2/) and hand-sized cases.
#include <gtest/gtest.h>

#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

std::string Example(const std::string& f) {
  return std::string(STEWARD_SOURCE_DIR) + "/examples/" + f;
}

Report RunCase2(const std::string& policy) {
  Result<Scenario> s = LoadScenario(Example("case2/scenario.yaml"));
  EXPECT_TRUE(s.ok()) << s.status().message();
  TwinOptions o;
  o.policy_files = {Example("case2/" + policy)};
  auto t = Twin::Create(std::move(s).value(), o);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return (*t)->Run();
}

TEST(KueueAdmitterTest, Case2WithoutLimitsTeamBStarvesAndTheAlertFires) {
  Report r = RunCase2("no-limits.yaml");
  EXPECT_EQ(r.admission_policy, "kueue");
  // team-a borrowed the whole cohort overnight and nothing reclaims it.
  ASSERT_EQ(r.tenant_alerts.size(), 1u);
  EXPECT_EQ(r.tenant_alerts[0].team, "team-a");
  EXPECT_DOUBLE_EQ(r.tenant_alerts[0].peak_share, 1.0);
  EXPECT_EQ(r.preemptions.at("training"), 0);
  EXPECT_GT(r.queue_wait_seconds_by_team.at("team-b").p95, 3 * 3600);
}

TEST(KueueAdmitterTest, Case2WithLimitsTeamBIsAdmittedAndTeamALosesOnlyCheckpointedWork) {
  Report r = RunCase2("with-limits.yaml");
  // borrowingLimit 128 caps team-a at 384 of 512 GPUs: never above the 75% alert line.
  EXPECT_TRUE(r.tenant_alerts.empty());
  // team-b reclaims its nominal quota by preempting team-a's borrowed training.
  EXPECT_GT(r.preemptions.at("training"), 0);
  EXPECT_LT(r.queue_wait_seconds_by_team.at("team-b").p99, 1800);
  // Each preempted 32-GPU team-a job loses at most one 30-minute checkpoint interval.
  EXPECT_LE(r.lost_gpu_hours_by_team.at("team-a"), r.preemptions.at("training") * 32 * 0.5 + 1e-9);
  EXPECT_DOUBLE_EQ(r.lost_gpu_hours_by_team.at("team-b"), 0);
  EXPECT_EQ(r.preemptions.at("production"), 0);
}

TEST(KueueAdmitterTest, MissingLocalQueueIsAPendingReason) {
  const std::string policy = std::string(STEWARD_SOURCE_DIR) + "/examples/case2/with-limits.yaml";
  Scenario s = testing::MustParse(
      testing::SmallScenarioYaml(2, "stranger:16",
                                 "generators:\n  - {name: j, team: stranger, kind: batch, arrival: "
                                 "{process: once, count: 1}}\n"));
  TwinOptions o;
  o.policy_files = {policy};
  auto t = Twin::Create(s, o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  Report r = (*t)->Run();
  EXPECT_EQ(r.pending_by_reason.at("misconfigured_queue"), 1);
}

TEST(KueueAdmitterTest, VolcanoQueuesDriveTheTwin) {
  // examples/volcano/queues.yaml: queues training (deserved 64, capability 96), serving
  // (deserved 48) and research (capability 32). Workloads name their Queue directly.
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(
      32, "training:0,research:0",
      "generators:\n"
      "  - {name: t, team: training, kind: training, arrival: {process: once, count: 20},\n"
      "     pods: 1, gpus_per_pod: 8, duration_hours: 10, checkpoint_interval_minutes: 30}\n"
      "  - {name: r, team: research, kind: batch, arrival: {process: once, count: 10},\n"
      "     gpus_per_pod: 8, duration_hours: 10}\n"));
  TwinOptions o;
  o.policy_files = {std::string(STEWARD_SOURCE_DIR) + "/examples/volcano/queues.yaml"};
  auto t = Twin::Create(s, o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  (*t)->RunUntil(kSimStart + Hours(1));
  int training = 0, research = 0;
  for (const auto& run : (*t)->runs()) {
    if (run.state == RunState::kPending) continue;
    (run.spec.team == 0 ? training : research) += run.spec.TotalGpus();
  }
  // Capability caps each queue: training at 96 GPUs (12 jobs), research at 32 (4 jobs).
  EXPECT_EQ(training, 96);
  EXPECT_EQ(research, 32);
}

}  // namespace
}  // namespace steward::twin

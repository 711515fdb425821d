// The kueue admitter's Kueue-metric-style scheduler report, and the live quota control on a
// ClusterQueue, on a 16-GPU cluster where every number is computed by hand.
#include <gtest/gtest.h>

#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

// 2 nodes x 8 H100. team-a: three 8-GPU training jobs at t=0 (10 h, checkpoint every 30 min);
// team-b: one 8-GPU batch job at t=1h. Policy: nominal 8 each, cohort org, reclaim Any.
std::unique_ptr<Twin> MakeTwin() {
  const std::string policy = testing::WriteTempFile(
      "sched-policy.yaml", testing::TwoTeamPolicyYaml(8, 8, "{reclaimWithinCohort: Any}"));
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(
      2, "team-a:0,team-b:0",
      "generators:\n"
      "  - {name: a, team: team-a, kind: training, arrival: {process: once, count: 3},\n"
      "     gpus_per_pod: 8, duration_hours: 10, checkpoint_interval_minutes: 30}\n"
      "  - {name: b, team: team-b, kind: batch, arrival: {process: once, count: 1, start_hours: "
      "1},\n     gpus_per_pod: 8, duration_hours: 1}\n"));
  TwinOptions o;
  o.policy_files = {policy};
  auto t = Twin::Create(std::move(s), o);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(t).value();
}

const ClusterQueueReport& Cq(const SchedulerReport& r, const std::string& name) {
  for (const auto& q : r.cluster_queues)
    if (q.name == name) return q;
  throw std::runtime_error("no ClusterQueue " + name);
}

TEST(SchedulerReportTest, CountsLikeKueueMetrics) {
  auto t = MakeTwin();
  t->RunUntil(kSimStart + Minutes(30));
  SchedulerReport r = t->Scheduler();
  ASSERT_EQ(r.cluster_queues.size(), 2u);
  ASSERT_EQ(r.team_cluster_queues, (std::vector<std::string>{"team-a", "team-b"}));
  {
    // a-0 fits in nominal, a-1 borrows team-b's idle 8, a-2 has nowhere to go (parked).
    const ClusterQueueReport& a = Cq(r, "team-a");
    EXPECT_EQ(a.cohort, "org");
    EXPECT_EQ(a.queueing_strategy, "BestEffortFIFO");
    EXPECT_EQ(a.admitted_workloads_total, 2);
    EXPECT_EQ(a.reserving_workloads, 2);
    EXPECT_EQ(a.pending_active, 0);
    EXPECT_EQ(a.pending_inadmissible, 1);
    ASSERT_EQ(a.quotas.size(), 1u);
    EXPECT_EQ(a.quotas[0].nominal, 8);
    EXPECT_EQ(a.quotas[0].usage, 16);
    EXPECT_EQ(a.quotas[0].borrowed, 8);
    EXPECT_EQ(a.quotas[0].available, 0);
    EXPECT_EQ(a.quotas[0].max_usable, 16);
    EXPECT_FALSE(a.quotas[0].borrowing_limit.has_value());
    // Both admitted at once: two waits of 0 s, in the first bucket (le 1).
    EXPECT_EQ(a.admission_wait.count, 2);
    EXPECT_EQ(a.admission_wait.counts[0], 2);
    // DRS: 1000 * borrowed 8 / lendable 16 = 500 (weight 1).
    EXPECT_DOUBLE_EQ(a.weighted_share, 500);
  }
  // t = 1h: team-b's job reclaims its nominal 8 by preempting one of team-a's borrowed jobs.
  t->RunUntil(kSimStart + Hours(1) + Minutes(1));
  r = t->Scheduler();
  const ClusterQueueReport& a = Cq(r, "team-a");
  const ClusterQueueReport& b = Cq(r, "team-b");
  EXPECT_EQ(a.evicted_workloads_total.at("Preempted"), 1);
  EXPECT_EQ(b.preempted_workloads_total.at("InCohortReclamation"), 1);
  EXPECT_TRUE(b.evicted_workloads_total.empty());
  EXPECT_EQ(a.reserving_workloads, 1);
  EXPECT_EQ(a.pending_inadmissible, 2);  // a-2 and the victim, both tried and parked.
  EXPECT_EQ(b.admitted_workloads_total, 1);
  EXPECT_EQ(b.admission_wait.count, 1);
  EXPECT_EQ(a.quotas[0].borrowed, 0);
  EXPECT_DOUBLE_EQ(a.weighted_share, 0);
  EXPECT_EQ(b.quotas[0].usage, 8);
  // The report JSON carries the same object.
  const nlohmann::json j = ToJson(t->BuildReport());
  EXPECT_EQ(j["scheduler"]["cluster_queues"][0]["name"], "team-a");
  EXPECT_EQ(j["scheduler"]["cluster_queues"][0]["evicted_workloads_total"]["Preempted"], 1);
  EXPECT_EQ(j["scheduler"]["cluster_queues"][1]["admission_wait_time_seconds"]["count"], 1);
}

TEST(SchedulerReportTest, QuotaControlChangesTheClusterQueuesNominalQuota) {
  auto t = MakeTwin();
  t->RunUntil(kSimStart + Minutes(1));
  // The team's quota control lands on its ClusterQueue under the kueue admitter.
  ASSERT_TRUE(t->SetTeamQuota(1, 0).ok());
  SchedulerReport r = t->Scheduler();
  EXPECT_EQ(Cq(r, "team-b").quotas[0].nominal, 0);
  // Cohort now 8 + 0: team-a (using 16) is 8 above its cohort; max usable 8.
  EXPECT_EQ(Cq(r, "team-a").quotas[0].max_usable, 8);
  ASSERT_TRUE(t->SetClusterQueueQuota("team-a", "h100", 24).ok());
  r = t->Scheduler();
  EXPECT_EQ(Cq(r, "team-a").quotas[0].nominal, 24);
  EXPECT_EQ(Cq(r, "team-a").quotas[0].borrowed, 0);
  EXPECT_EQ(Cq(r, "team-a").quotas[0].available, 8);  // 24 - 16.
  // The third job fits in quota now, but the cluster's 16 GPUs are all in use.
  t->RunUntil(kSimStart + Minutes(2));
  EXPECT_EQ(Cq(t->Scheduler(), "team-a").admitted_workloads_total, 2);
  EXPECT_EQ(t->runs()[2].reason, "insufficient_capacity");
  EXPECT_EQ(t->SetClusterQueueQuota("nope", "", 1).code(), Status::Code::kNotFound);
}

TEST(SchedulerReportTest, FifoQuotaHasNoClusterQueues) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(1, "a:8", ""));
  auto t = Twin::Create(std::move(s));
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE((*t)->Scheduler().cluster_queues.empty());
  EXPECT_EQ((*t)->SetClusterQueueQuota("a", "", 1).code(), Status::Code::kFailedPrecondition);
  EXPECT_TRUE((*t)->SetTeamQuota(0, 4).ok());
}

}  // namespace
}  // namespace steward::twin

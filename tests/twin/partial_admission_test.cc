// Kueue partial admission in the twin (a pod set's min_count, Kueue's minCount): the workload is
// admitted with the most pods its ClusterQueue can take, runs those alone, holds exactly their
// quota and gives it back when it finishes or is preempted. Expectations worked out by hand.
#include <gtest/gtest.h>

#include <string>

#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

// GPUs ClusterQueue `cq` uses now, as its scheduler report says.
double GpuUsage(const Twin& t, const std::string& cq) {
  for (const ClusterQueueReport& q : t.Scheduler().cluster_queues)
    if (q.name == cq)
      for (const QuotaUsage& u : q.quotas)
        if (u.resource == "nvidia.com/gpu") return u.usage;
  ADD_FAILURE() << "no ClusterQueue " << cq;
  return -1;
}

// `elastic`: one pod set of 4 pods x 2 GPUs with min_count `min`, `hours` long, at `start`.
std::string Elastic(const std::string& name, double start, int min, double hours = 1) {
  return testing::Once(name, "team-a", "batch", 1, start,
                       "duration_hours: " + std::to_string(hours) +
                           ", pod_sets: [{name: worker, count: 4, gpus_per_pod: 2" +
                           (min > 0 ? ", min_count: " + std::to_string(min) : "") + "}]");
}

std::unique_ptr<Twin> MakeTwin(const std::string& preemption, const std::string& generators) {
  TwinOptions o;
  o.policy_files = {
      testing::WriteTempFile("partial-policy.yaml", testing::TwoTeamPolicyYaml(6, 0, preemption))};
  o.finished_runs_kept = -1;
  auto t = Twin::Create(testing::MustParse(testing::SmallScenarioYaml(
                            2, "team-a:0,team-b:0", "generators:\n" + generators)),
                        o);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(t).value() : nullptr;
}

// team-a's ClusterQueue has 6 GPUs (team-b lends none); `used`, a 2-GPU training job, holds 2.
// `elastic` asks 4 x 2 GPUs = 8 > the 4 free, min_count 2: D = 2 droppable pods; keep 0 →
// 2 pods (4 GPUs, fits), keep 1 → 3 pods (6 GPUs, does not): admitted with 2 pods, 4 GPUs, so
// the queue uses 2 + 4 = 6. After its hour it finishes and the queue is back to 2.
TEST(TwinPartialAdmissionTest, AdmittedWithTheMostPodsThatFitHoldingExactlyTheirQuota) {
  auto t = MakeTwin("{}", testing::Once("used", "team-a", "training", 1, 0,
                                        "gpus_per_pod: 2, duration_hours: 10") +
                              Elastic("elastic", 0.1, 2));
  ASSERT_TRUE(t);
  t->RunUntil(kSimStart + Minutes(15));
  const WorkloadRun* e = t->FindRun("elastic-000000");
  ASSERT_TRUE(e);
  EXPECT_NE(e->state, RunState::kPending) << e->reason << ": " << e->reason_detail;
  EXPECT_EQ(e->pods.size(), 2u);
  EXPECT_EQ(e->GpusHeld(), 4);
  EXPECT_EQ(e->spec.pod_sets[0].count, 2);                // Runs the admitted pods.
  EXPECT_EQ(e->requested_counts, (std::vector<int>{4}));  // Asked for 4.
  EXPECT_EQ(GpuUsage(*t, "team-a"), 6);
  EXPECT_EQ(t->AdmissionOf(e->spec.id).cluster_queue, "team-a");

  t->RunUntil(kSimStart + Hours(3));
  EXPECT_EQ(e->state, RunState::kDone);
  EXPECT_EQ(GpuUsage(*t, "team-a"), 2);  // Only `used` is left.
}

// The same workload without min_count is all or nothing: it waits.
TEST(TwinPartialAdmissionTest, WithoutMinCountTheWorkloadWaits) {
  auto t = MakeTwin("{}", testing::Once("used", "team-a", "training", 1, 0,
                                        "gpus_per_pod: 2, duration_hours: 10") +
                              Elastic("rigid", 0.1, 0));
  ASSERT_TRUE(t);
  t->RunUntil(kSimStart + Minutes(15));
  EXPECT_EQ(t->FindRun("rigid-000000")->state, RunState::kPending);
  EXPECT_EQ(GpuUsage(*t, "team-a"), 2);
}

// Preemption gives the reduced quota back, and the requeued workload asks for every pod again.
// `elastic` (batch, dev tier, priority 10) runs 2 pods (4 GPUs) as above. At 1 h `urgent`, a
// 4-GPU training job (priority 500), finds 0 free and preempts it (withinClusterQueue:
// LowerPriority; `used`, training without checkpoints, is no victim): the queue then holds
// 2 + 4 = 6, none of it elastic's. elastic waits with its 4 pods asked: even 2 pods (4 GPUs)
// do not fit in 0. When urgent ends (1 h later, after its start-up), elastic is admitted
// again with 2 pods: 4 free.
TEST(TwinPartialAdmissionTest, PreemptionReleasesTheReducedQuotaAndRequeuedAsksForAllPods) {
  auto t = MakeTwin(
      "{withinClusterQueue: LowerPriority}",
      testing::Once("used", "team-a", "training", 1, 0, "gpus_per_pod: 2, duration_hours: 10") +
          Elastic("elastic", 0.1, 2, 10) +
          testing::Once("urgent", "team-a", "training", 1, 1,
                        "gpus_per_pod: 4, duration_hours: 1"));
  ASSERT_TRUE(t);
  t->RunUntil(kSimStart + Minutes(30));
  const WorkloadRun* e = t->FindRun("elastic-000000");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->pods.size(), 2u);
  EXPECT_EQ(GpuUsage(*t, "team-a"), 6);

  t->RunUntil(kSimStart + Minutes(65));
  EXPECT_NE(t->FindRun("urgent-000000")->state, RunState::kPending);
  EXPECT_EQ(e->state, RunState::kPending);
  EXPECT_EQ(e->interruptions, 1);
  EXPECT_TRUE(e->pods.empty());
  EXPECT_EQ(e->spec.pod_sets[0].count, 4);  // Asks for all its pods again.
  EXPECT_TRUE(e->requested_counts.empty());
  EXPECT_EQ(GpuUsage(*t, "team-a"), 6);  // used 2 + urgent 4.

  t->RunUntil(kSimStart + Hours(3));
  EXPECT_EQ(t->FindRun("urgent-000000")->state, RunState::kDone);
  EXPECT_NE(e->state, RunState::kPending);
  EXPECT_EQ(e->pods.size(), 2u);
  EXPECT_EQ(GpuUsage(*t, "team-a"), 6);
}

// BestEffortFIFO skips a workload dominated by an earlier failure of the same shape; one with a
// min_count must still be tried. `rigid` (4 x 2 GPUs, no minimum) fails at 6 minutes (8 > 4
// free); `elastic`, the same shape with min_count 2, arrives at 9 minutes, behind it in the
// queue: it is tried and admitted with 2 pods.
TEST(TwinPartialAdmissionTest, AWorkloadWithMinCountIsNotDominatedByItsShape) {
  auto t = MakeTwin("{}", testing::Once("used", "team-a", "training", 1, 0,
                                        "gpus_per_pod: 2, duration_hours: 10") +
                              Elastic("rigid", 0.1, 0) + Elastic("elastic", 0.15, 2));
  ASSERT_TRUE(t);
  t->RunUntil(kSimStart + Minutes(15));
  EXPECT_EQ(t->FindRun("rigid-000000")->state, RunState::kPending);
  const WorkloadRun* e = t->FindRun("elastic-000000");
  ASSERT_TRUE(e);
  EXPECT_NE(e->state, RunState::kPending) << e->reason << ": " << e->reason_detail;
  EXPECT_EQ(e->pods.size(), 2u);
  EXPECT_EQ(GpuUsage(*t, "team-a"), 6);
}

// fifo-quota ignores min_count: team-a's quota of 6 with 2 used leaves 4, and the workload of
// 8 GPUs waits whole.
TEST(TwinPartialAdmissionTest, FifoQuotaIgnoresMinCount) {
  auto t = Twin::Create(testing::MustParse(testing::SmallScenarioYaml(
      2, "team-a:6",
      "generators:\n" +
          testing::Once("used", "team-a", "training", 1, 0, "gpus_per_pod: 2, duration_hours: 10") +
          Elastic("elastic", 0.1, 2))));
  ASSERT_TRUE(t.ok()) << t.status().message();
  (*t)->RunUntil(kSimStart + Minutes(15));
  const WorkloadRun* e = (*t)->FindRun("elastic-000000");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->state, RunState::kPending);
  EXPECT_EQ(e->spec.pod_sets[0].count, 4);
}

// min_count must lie in 1..count; the error names file, line and field.
TEST(TwinPartialAdmissionTest, MinCountOutsideOneToCountIsAnError) {
  for (const char* bad : {"0", "5"}) {
    Result<Scenario> s = ParseScenario(
        testing::SmallScenarioYaml(
            1, "team-a:8",
            "generators:\n" +
                testing::Once("e", "team-a", "batch", 1, 0,
                              std::string("duration_hours: 1, pod_sets: [{name: worker, count: 4, "
                                          "gpus_per_pod: 2, min_count: ") +
                                  bad + "}]")),
        "test.yaml");
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.status().message().find("test.yaml:"), std::string::npos) << s.status().message();
    EXPECT_NE(s.status().message().find("pod_sets[0].min_count"), std::string::npos)
        << s.status().message();
    EXPECT_NE(s.status().message().find("[1, count = 4]"), std::string::npos)
        << s.status().message();
  }
}

}  // namespace
}  // namespace steward::twin

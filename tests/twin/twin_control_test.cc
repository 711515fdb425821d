// The twin's live controls (Twin::Submit, SetNodeCordoned, SetTeamQuota) used by steward serve.
#include <gtest/gtest.h>

#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

using testing::MustParse;
using testing::SmallScenarioYaml;

std::unique_ptr<Twin> MakeTwin(int nodes, const std::string& teams) {
  auto t = Twin::Create(MustParse(SmallScenarioYaml(nodes, teams, "")));
  if (!t.ok()) throw std::runtime_error(t.status().message());
  return std::move(t).value();
}

model::Workload Job(int team, int pods, int gpus_per_pod, double hours) {
  model::Workload w;
  w.team = team;
  w.kind = model::WorkloadKind::kBatch;
  w.pod_sets = {{"worker", pods, gpus_per_pod}};
  w.duration = SecondsF(hours * 3600);
  return w;
}

TEST(TwinControlTest, SubmittedJobRunsAndFinishes) {
  auto t = MakeTwin(2, "a:16");
  t->RunUntil(kSimStart + Hours(1));
  auto id = t->Submit(Job(0, 1, 8, 2));
  ASSERT_TRUE(id.ok()) << id.status().message();
  const WorkloadRun& run = t->runs()[*id];
  EXPECT_EQ(run.spec.submit_time, kSimStart + Hours(1));
  EXPECT_EQ(run.spec.name, "submitted-0");
  EXPECT_EQ(run.state, RunState::kPending);
  t->RunUntil(kSimStart + Hours(1) + Minutes(2));  // Past the 90 s startup.
  EXPECT_EQ(t->runs()[*id].state, RunState::kRunning);
  EXPECT_EQ(t->state().allocated_gpus(), 8);
  t->RunUntil(kSimStart + Hours(4));  // 1 h + 90 s + 2 h < 4 h.
  EXPECT_EQ(t->runs()[*id].state, RunState::kDone);
  EXPECT_EQ(t->state().allocated_gpus(), 0);
  // 8 GPUs x (2 h + 90 s startup) allocated.
  EXPECT_NEAR(t->BuildReport().allocated_gpu_hours, 8 * (2 + 90.0 / 3600), 1e-9);
}

TEST(TwinControlTest, SubmitRejectsBadWorkloads) {
  auto t = MakeTwin(2, "a:16");
  EXPECT_FALSE(t->Submit(Job(3, 1, 8, 1)).ok());  // No team 3.
  EXPECT_FALSE(t->Submit(Job(0, 1, 9, 1)).ok());  // No node has 9 GPUs.
  EXPECT_FALSE(t->Submit(Job(0, 0, 1, 1)).ok());  // No pods.
  EXPECT_FALSE(t->Submit(Job(0, 1, 1, 0)).ok());  // No duration.
  model::Workload none = Job(0, 1, 1, 1);
  none.pod_sets.clear();
  EXPECT_FALSE(t->Submit(none).ok());
  model::Workload mig = Job(0, 1, 1, 1);
  mig.pod_sets[0].mig_profile = "1g.5gb";  // An A100 40GB profile, not an H100 one.
  EXPECT_NE(t->Submit(mig).status().message().find("unknown MIG profile '1g.5gb'"),
            std::string::npos);
  model::Workload wide = Job(0, 1, 2, 1);
  wide.pod_sets[0].gpu_milli = 500;  // A shared-GPU pod takes one GPU.
  EXPECT_FALSE(t->Submit(wide).ok());
  EXPECT_TRUE(t->runs().empty());
}

TEST(TwinControlTest, SubmittedMigPodHoldsASeventhOfAGpu) {
  auto t = MakeTwin(1, "a:8");
  model::Workload w = Job(0, 1, 1, 1);
  w.pod_sets[0].mig_profile = "3g.40gb";
  ASSERT_TRUE(t->Submit(w).ok());
  t->RunUntil(kSimStart + Minutes(30));
  EXPECT_EQ(t->state().allocated_gpus(), 1);
  EXPECT_EQ(t->state().placement().node(0).mig_used[0], 0b1111'0000);  // Slices 4-7.
  // 3/7 GPU for 1 h + 90 s.
  EXPECT_NEAR(t->Run().allocated_gpu_hours, 3.0 / 7 * (1 + 90.0 / 3600), 1e-9);
}

TEST(TwinControlTest, CordonedNodeTakesNoNewPods) {
  auto t = MakeTwin(2, "a:16");
  ASSERT_TRUE(t->SetNodeCordoned(0, true).ok());
  EXPECT_TRUE(t->cluster().node(0).cordoned);
  EXPECT_FALSE(t->state().schedulable(0));
  EXPECT_EQ(t->state().free_gpus(), 8);
  auto a = t->Submit(Job(0, 1, 8, 5));
  auto b = t->Submit(Job(0, 1, 8, 5));
  t->RunUntil(kSimStart + Hours(1));
  // First-fit would take node 0; cordoned, the first job lands on node 1, the second waits.
  ASSERT_EQ(t->runs()[*a].pods.size(), 1u);
  EXPECT_EQ(t->runs()[*a].pods[0].node, 1);
  EXPECT_EQ(t->runs()[*b].state, RunState::kPending);
  // It would fit on the cordoned node: unhealthy (cordoned) capacity, not a lack of GPUs.
  EXPECT_EQ(t->BuildReport().pending_by_reason.at("unhealthy_capacity"), 1);
  EXPECT_EQ(t->BuildReport().pending_by_reason.at("insufficient_capacity"), 0);
  // Uncordoning lets it in at once.
  ASSERT_TRUE(t->SetNodeCordoned(0, false).ok());
  t->RunUntil(kSimStart + Hours(1) + Minutes(5));
  EXPECT_EQ(t->runs()[*b].state, RunState::kRunning);
  EXPECT_EQ(t->runs()[*b].pods[0].node, 0);
  EXPECT_FALSE(t->SetNodeCordoned(2, true).ok());
}

TEST(TwinControlTest, QuotaChangeGatesAdmission) {
  auto t = MakeTwin(2, "a:16,b:0");
  auto id = t->Submit(Job(1, 1, 4, 1));  // Team b has no quota.
  t->RunUntil(kSimStart + Hours(1));
  EXPECT_EQ(t->runs()[*id].state, RunState::kPending);
  EXPECT_EQ(t->BuildReport().pending_by_reason.at("quota_exhausted"), 1);
  ASSERT_TRUE(t->SetTeamQuota(1, 4).ok());
  EXPECT_EQ(t->scenario().teams[1].quota_gpus, 4);
  t->RunUntil(kSimStart + Hours(1) + Minutes(5));
  EXPECT_EQ(t->runs()[*id].state, RunState::kRunning);
  EXPECT_FALSE(t->SetTeamQuota(2, 4).ok());
  EXPECT_FALSE(t->SetTeamQuota(0, -1).ok());
}

}  // namespace
}  // namespace steward::twin

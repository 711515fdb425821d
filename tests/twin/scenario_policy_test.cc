// A fifo-quota scenario's policy as Kueue objects: one StrictFIFO ClusterQueue per team with
// its quota, no cohort; it imports back and behaves like fifo-quota (no borrowing).
#include "twin/scenario_policy.h"

#include <gtest/gtest.h>

#include "govern/governance_engine.h"
#include "govern/policy_io.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

TEST(ScenarioPolicyTest, FifoQuotaTeamsBecomeStrictFifoClusterQueues) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(2, "a:16,b:0", ""));
  auto p = ScenarioPolicy(s);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->cluster_queues.size(), 2u);
  const govern::ClusterQueue& a = p->cluster_queues[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_TRUE(a.cohort.empty());
  EXPECT_EQ(a.queueing_strategy, govern::QueueingStrategy::kStrictFIFO);
  EXPECT_EQ(a.resource_groups[0].flavors[0].resources[0].nominal, 16);
  ASSERT_EQ(p->local_queues.size(), 2u);
  EXPECT_EQ(p->local_queues[1].namespace_name, "b");
  // Export -> import gives the same queues; team a can hold its 16 and no more.
  govern::Policy back;
  ASSERT_TRUE(govern::ImportYaml(govern::ExportKueueYaml(*p), "exported.yaml", &back).ok());
  ASSERT_TRUE(govern::ValidatePolicy(&back).ok());
  auto e = govern::GovernanceEngine::Create(back);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->MaxUsable("a", "gpu", "nvidia.com/gpu"), 16);
  EXPECT_EQ((*e)->MaxUsable("b", "gpu", "nvidia.com/gpu"), 0);
  govern::WorkloadRequest r;
  r.namespace_name = "b";
  r.local_queue = "a";  // Team b's namespace has no LocalQueue a.
  EXPECT_FALSE((*e)->ResolveClusterQueue(r).ok());
}

TEST(ScenarioPolicyTest, BuiltInScenarioExports) {
  auto p = ScenarioPolicy(DefaultScenario());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->cluster_queues.size(), DefaultScenario().teams.size());
}

}  // namespace
}  // namespace steward::twin

#include "rollout/batches.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace steward::rollout {
namespace {

std::vector<control::NodeInfo> Nodes(int n) {
  std::vector<control::NodeInfo> out;
  for (int i = 0; i < n; ++i) {
    control::NodeInfo node;
    node.name = fmt::format("n{:02}", i);
    node.labels["steward.io/rack"] = fmt::format("rack-{}", i / 4);
    node.labels["steward.io/pool"] = i < 8 ? "a" : "b";
    out.push_back(node);
  }
  return out;
}

TEST(rollout_SplitBatchesTest, ExplicitThenRackThenPercentThenRest) {
  RolloutPlan plan;
  BatchSpec canary, rack, percent, rest;
  canary.nodes = {"n05", "n01"};
  rack.rack = "rack-1";  // n04..n07, minus n05 already taken.
  percent.percent = 10;  // 10% of 16 = 1.6, rounded up: 2 nodes.
  rest.rest = true;
  plan.batches = {canary, rack, percent, rest};
  Result<std::vector<std::vector<std::string>>> b = SplitBatches(plan, Nodes(16));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->size(), 4u);
  EXPECT_EQ((*b)[0], (std::vector<std::string>{"n05", "n01"}));
  EXPECT_EQ((*b)[1], (std::vector<std::string>{"n04", "n06", "n07"}));
  EXPECT_EQ((*b)[2], (std::vector<std::string>{"n00", "n02"}));
  EXPECT_EQ((*b)[3].size(), 16u - 2 - 3 - 2);
}

TEST(rollout_SplitBatchesTest, UnknownCanaryNodeIsAnError) {
  RolloutPlan plan;
  plan.file = "p.yaml";
  BatchSpec canary;
  canary.nodes = {"nope"};
  canary.line = 7;
  plan.batches = {canary};
  Result<std::vector<std::vector<std::string>>> b = SplitBatches(plan, Nodes(4));
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("p.yaml:7"), std::string::npos) << b.status().message();
}

TEST(rollout_TargetNodesTest, SelectorLabels) {
  RolloutPlan plan;
  plan.selector = {{"steward.io/pool", "b"}};
  EXPECT_EQ(TargetNodes(plan, Nodes(16)).size(), 8u);
}

// The worked example of rollout-facts.md 2.2: 16 nodes, maxParallelUpgrades 1, maxUnavailable
// 25% (4).
TEST(rollout_UpgradeSlotsTest, GpuOperatorBudget) {
  Budget b;
  b.total = 16;
  b.max_parallel = 1;
  b.max_unavailable = 4;
  EXPECT_EQ(UpgradeSlots(b), 1);
  b.in_progress = 1;
  EXPECT_EQ(UpgradeSlots(b), 0);  // One at a time.
  b.in_progress = 0;
  b.max_parallel = 0;  // Unlimited parallelism: maxUnavailable bounds it.
  EXPECT_EQ(UpgradeSlots(b), 4);
  b.unavailable = 3;  // 3 already cordoned or NotReady: 1 more may start.
  EXPECT_EQ(UpgradeSlots(b), 1);
  b.unavailable = 4;  // At the budget: the rollout waits.
  EXPECT_EQ(UpgradeSlots(b), 0);
  RolloutPlan plan;  // 25% of 16 rounds to 4; of 10 rounds up to 3.
  EXPECT_EQ(plan.MaxUnavailable(16), 4);
  EXPECT_EQ(plan.MaxUnavailable(10), 3);
}

TEST(rollout_UnavailableTest, CordonedOrNotReady) {
  control::NodeInfo n;
  EXPECT_FALSE(Unavailable(n));
  n.conditions.push_back({"Ready", false, "KubeletNotReady"});
  EXPECT_TRUE(Unavailable(n));
  n.conditions.clear();
  n.unschedulable = true;
  EXPECT_TRUE(Unavailable(n));
}

}  // namespace
}  // namespace steward::rollout

#include "twin/cluster_state.h"

#include <gtest/gtest.h>

#include "twin/placer.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

model::Cluster FourNodes() {
  Result<model::Cluster> c =
      BuildCluster(testing::MustParse(testing::SmallScenarioYaml(4, "a:32", "")));
  return std::move(c).value();
}

TEST(ClusterStateTest, AllocateAndReleaseKeepCountersExact) {
  model::Cluster c = FourNodes();
  ClusterState s(c);
  EXPECT_EQ(s.free_gpus(), 32);
  EXPECT_EQ(s.whole_free_nodes(), 4);
  const uint64_t a = s.Allocate(1, 3);
  EXPECT_EQ(a, 0b111u);
  EXPECT_EQ(s.free_count(1), 5);
  EXPECT_EQ(s.allocated_gpus(), 3);
  EXPECT_EQ(s.whole_free_nodes(), 3);
  EXPECT_EQ(s.stranded_free_gpus(), 5);  // The 5 free GPUs of the partly used node.
  const uint64_t b = s.Allocate(1, 2);
  EXPECT_EQ(b, 0b11000u);
  s.Release(1, a);
  EXPECT_EQ(s.free_mask(1), 0b11100111u);
  EXPECT_EQ(s.stranded_free_gpus(), 6);
  s.Release(1, b);
  EXPECT_EQ(s.whole_free_nodes(), 4);
  EXPECT_EQ(s.stranded_free_gpus(), 0);
  EXPECT_EQ(s.largest_free_block(), 8);
}

TEST(ClusterStateTest, CordonedNodesLeavePlacement) {
  model::Cluster c = FourNodes();
  ClusterState s(c);
  s.SetSchedulable(0, false);
  EXPECT_EQ(s.free_gpus(), 24);
  EXPECT_EQ(s.whole_free_nodes(), 3);
  s.SetSchedulable(0, true);
  EXPECT_EQ(s.free_gpus(), 32);
}

TEST(PlacerTest, FirstFitTakesLowestNodeBinpackTakesFullest) {
  model::Cluster c = FourNodes();
  ClusterState s(c);
  s.Allocate(2, 6);  // node 2: 2 free
  s.Allocate(3, 4);  // node 3: 4 free
  auto first = NewPlacer("first-fit");
  auto pack = NewPlacer("binpack");
  ASSERT_TRUE(first.ok() && pack.ok());
  PodRequest one{1, -1, model::kNoNode, model::TopologyPreference::kNone};
  EXPECT_EQ((*first)->ChooseNode(s, one), 0);
  EXPECT_EQ((*pack)->ChooseNode(s, one), 2);
  PodRequest three{3, -1, model::kNoNode, model::TopologyPreference::kNone};
  EXPECT_EQ((*pack)->ChooseNode(s, three), 3);
  PodRequest eight{8, -1, model::kNoNode, model::TopologyPreference::kNone};
  EXPECT_EQ((*pack)->ChooseNode(s, eight), 0);
  s.Allocate(0, 8);
  s.Allocate(1, 8);
  EXPECT_EQ((*first)->ChooseNode(s, eight), model::kNoNode);
}

TEST(PlacerTest, TopologyPrefersTheNeighboursLeaf) {
  // 8 nodes, leaves of 4: nodes 0-3 and 4-7.
  Result<model::Cluster> c =
      BuildCluster(testing::MustParse(testing::SmallScenarioYaml(8, "a:64", "")));
  ClusterState s(*c);
  auto first = NewPlacer("first-fit");
  PodRequest req{8, -1, 5, model::TopologyPreference::kSameLeaf};
  EXPECT_EQ((*first)->ChooseNode(s, req), 4);  // Same leaf as node 5, not node 0.
  for (int n = 4; n < 8; ++n) s.Allocate(n, 8);
  EXPECT_EQ((*first)->ChooseNode(s, req), 0);  // Leaf full: anywhere.
}

TEST(PlacerTest, UnknownNameListsValidOnes) {
  auto p = NewPlacer("magic");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("first-fit, binpack"), std::string::npos);
}

}  // namespace
}  // namespace steward::twin

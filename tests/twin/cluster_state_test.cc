#include "twin/cluster_state.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace steward::twin

#include "twin/cluster_state.h"

#include <gtest/gtest.h>

#include "twin/build_cluster.h"
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

// A node's residents: one entry per pod, past the dozen kept inline (many fractional pods on a
// node), removed one entry at a time by swapping in the last, as the twin's order relies on.
TEST(ClusterStateTest, ResidentsKeepOneEntryPerPodPastTheInlineDozen) {
  model::Cluster c = FourNodes();
  ClusterState s(c);
  std::vector<model::WorkloadId> expected;
  for (model::WorkloadId w = 0; w < 40; ++w) {
    s.AddResident(2, w % 25);  // Workloads 0..14 have two pods.
    expected.push_back(w % 25);
    ASSERT_EQ(std::vector<model::WorkloadId>(s.residents(2).begin(), s.residents(2).end()),
              expected);
  }
  EXPECT_TRUE(s.residents(1).empty());
  s.RemoveResident(2, 3);  // The first entry of 3 (index 3) takes the last entry's place (14).
  expected[3] = expected.back();
  expected.pop_back();
  EXPECT_EQ(std::vector<model::WorkloadId>(s.residents(2).begin(), s.residents(2).end()), expected);
  for (model::WorkloadId w : expected) s.RemoveResident(2, w);
  EXPECT_TRUE(s.residents(2).empty());
  s.AddResident(2, 7);
  EXPECT_EQ(s.residents(2).size(), 1u);
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

TEST(ClusterStateTest, BrokenGpusAreWithheldUntilRepaired) {
  model::Cluster c = FourNodes();
  ClusterState s(c);
  s.SetGpuBroken(0, 3, true);  // Free and broken: withheld at once.
  EXPECT_EQ(s.free_mask(0), 0b11110111u);
  EXPECT_EQ(s.unavailable_gpus(), 1);
  EXPECT_EQ(s.allocated_gpus(), 0);
  EXPECT_EQ(s.whole_free_nodes(), 3);
  const uint64_t held = s.Allocate(1, 2);  // GPUs 0-1 of node 1.
  s.SetGpuBroken(1, 0, true);              // Held: counted allocated until released.
  EXPECT_EQ(s.broken_mask(1), 1u);
  EXPECT_EQ(s.unavailable_gpus(), 1);
  EXPECT_EQ(s.allocated_gpus(), 2);
  s.Release(1, held);
  EXPECT_EQ(s.free_mask(1), 0b11111110u);  // GPU 0 comes back withheld, not free.
  EXPECT_EQ(s.unavailable_gpus(), 2);
  EXPECT_EQ(s.allocated_gpus(), 0);
  // A shared GPU that breaks takes no new pod; its capacity is withheld as its pods leave.
  place::PodRequest shared;
  shared.num_gpu = 1;
  shared.gpu_milli = 400;
  place::GpuList g;
  g.Add(5);
  s.placement().Apply(2, shared, g);
  s.SetGpuBroken(2, 5, true);
  EXPECT_EQ(s.placement().node(2).gpu_free[5], 0);
  EXPECT_EQ(s.allocated_gpus(), 1);
  s.ReleasePod(2, uint64_t{1} << 5, 400, place::kNoMig, -1);
  EXPECT_EQ(s.unavailable_gpus(), 3);
  s.SetGpuBroken(2, 5, false);  // Repaired: whole and free again.
  s.SetGpuBroken(1, 0, false);
  s.SetGpuBroken(0, 3, false);
  EXPECT_EQ(s.unavailable_gpus(), 0);
  EXPECT_EQ(s.free_gpus(), 32);
  // Cordoning makes a node's free GPUs unavailable.
  s.SetSchedulable(3, false);
  EXPECT_EQ(s.unavailable_gpus(), 8);
}

}  // namespace
}  // namespace steward::twin

#include "place/fragmentation.h"

#include <gtest/gtest.h>

#include "place/rng.h"
#include "test_util.h"

namespace steward::place {
namespace {

using testing::Bind;
using testing::MakeCluster;
using testing::Node;
using testing::Pod;

TEST(TypicalPodsTest, TakesSpecsByCountUntil95PercentAndRenormalises) {
  std::vector<PodRequest> pop;
  for (int i = 0; i < 10; ++i) pop.push_back(Pod(1000, 1, 500));
  for (int i = 0; i < 5; ++i) pop.push_back(Pod(2000, 1, 1000, 4096));  // Memory is not a key.
  for (int i = 0; i < 4; ++i) pop.push_back(Pod(4000, 0, 0));
  pop.push_back(Pod(8000, 8, 1000));
  // 20 pods, 95% = 19: 10 + 5 + 4 = 19 reaches it; the 8-GPU spec is cut.
  std::vector<TypicalPod> t = TypicalPodsOf(pop);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].pod.gpu_milli, 500);
  EXPECT_DOUBLE_EQ(t[0].weight, 10.0 / 19);
  EXPECT_DOUBLE_EQ(t[1].weight, 5.0 / 19);
  EXPECT_EQ(t[2].pod.num_gpu, 0);
  EXPECT_DOUBLE_EQ(t[2].weight, 4.0 / 19);
}

TEST(TypicalPodsTest, LearnedOnePodAtATimeAsFromTheWholePopulation) {
  PodSpecCounts counts;
  EXPECT_TRUE(counts.Typical().empty());  // Nothing seen yet.
  std::vector<PodRequest> pop = {Pod(1000, 1, 500), Pod(4000, 0, 0), Pod(1000, 1, 500),
                                 Pod(0, 1, 1000)};
  std::vector<PodRequest> seen;
  for (const PodRequest& p : pop) {
    counts.Add(p);
    seen.push_back(p);
    std::vector<TypicalPod> online = counts.Typical(), whole = TypicalPodsOf(seen);
    ASSERT_EQ(online.size(), whole.size());
    for (size_t i = 0; i < online.size(); ++i) {
      EXPECT_EQ(online[i].pod.cpu_milli, whole[i].pod.cpu_milli);
      EXPECT_EQ(online[i].pod.gpu_milli, whole[i].pod.gpu_milli);
      EXPECT_DOUBLE_EQ(online[i].weight, whole[i].weight);
    }
  }
  // 4 pods: <1 CPU, 500m> x2 first; then the ties (1 each) by the smaller spec: <0.1 CPU (a
  // zero request counts as 100m), 1000m> before <4 CPU, 0 GPU>. 95% of 4 = 3.8 takes all.
  std::vector<TypicalPod> t = counts.Typical();
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[1].pod.cpu_milli, 100);
  EXPECT_EQ(t[2].pod.cpu_milli, 4000);
  EXPECT_DOUBLE_EQ(t[0].weight, 0.5);
  EXPECT_DOUBLE_EQ(counts.total(), 4);
}

TEST(FragmentationTest, HandComputedNodeFragment) {
  // Typical: 50% <2 CPU, 1x600m>, 25% <1 CPU, 2x1000m>, 25% CPU-only <1 CPU>.
  std::vector<PodRequest> pop = {Pod(2000, 1, 600), Pod(2000, 1, 600), Pod(1000, 2, 1000),
                                 Pod(1000, 0, 0)};
  FragmentationModel f(TypicalPodsOf(pop, 1.0));
  ClusterState c = MakeCluster({Node("n", 64, 4)});
  Bind(c, 0, Pod(1000, 1, 500), {0});  // GPUs [500, 1000, 1000, 1000], idle 3500.
  // 600m pod: fits; fragment = GPUs below 600 = 500 -> 0.5·500 = 250.
  // 2x1000 pod: fits (3 free); fragment = 500 -> 0.25·500 = 125.
  // CPU-only pod: all idle -> 0.25·3500 = 875.
  EXPECT_DOUBLE_EQ(f.ComputeNodeFrag(c.node(0)), 1250.0);
  EXPECT_DOUBLE_EQ(f.NodeFrag(c.node(0)), 1250.0);
  Bind(c, 0, Pod(1000, 1, 1000), {1});
  Bind(c, 0, Pod(1000, 1, 1000), {2});  // [500, 0, 0, 1000], idle 1500.
  // 600m: fits, fragment 500 -> 250; 2x1000: no longer fits -> 0.25·1500 = 375; CPU: 375.
  EXPECT_DOUBLE_EQ(f.NodeFrag(c.node(0)), 1000.0);
}

TEST(FragmentationTest, CpuShortageMakesEverythingFragment) {
  std::vector<PodRequest> pop = {Pod(8000, 1, 500)};
  FragmentationModel f(TypicalPodsOf(pop));
  ClusterState c = MakeCluster({Node("n", 8, 2)});
  EXPECT_DOUBLE_EQ(f.NodeFrag(c.node(0)), 0.0);
  Bind(c, 0, Pod(1000, 0, 0), {});  // 7 cores left < 8: q4, all 2000 idle milli is fragment.
  EXPECT_DOUBLE_EQ(f.NodeFrag(c.node(0)), 2000.0);
}

TEST(FragmentationTest, MemoAgreesWithDirectComputation) {
  std::vector<PodRequest> pop = {Pod(2000, 1, 300), Pod(4000, 1, 1000), Pod(1000, 4, 1000),
                                 Pod(500, 0, 0), Pod(3000, 1, 700)};
  FragmentationModel f(TypicalPodsOf(pop, 1.0));
  ClusterState c = MakeCluster({Node("n", 96, 8), Node("m", 32, 2, "T4")});
  Rng rng(7);
  for (int step = 0; step < 300; ++step) {
    NodeId id = static_cast<NodeId>(rng.Uniform(2));
    PodRequest p = pop[rng.Uniform(pop.size())];
    if (!Fits(c.node(id), p)) continue;
    c.Apply(id, p, TightestGpus(c.node(id), p));
    for (NodeId n = 0; n < 2; ++n)
      ASSERT_DOUBLE_EQ(f.NodeFrag(c.node(n)), f.ComputeNodeFrag(c.node(n))) << step;
  }
  EXPECT_GT(f.memo_size(), 0);
}

}  // namespace
}  // namespace steward::place

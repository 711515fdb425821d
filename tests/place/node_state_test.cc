#include "place/node_state.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace steward::place {
namespace {

using testing::Bind;
using testing::MakeCluster;
using testing::Node;
using testing::Pod;

TEST(NodeStateTest, FitsChecksCpuMemoryModelAndGpus) {
  ClusterState c = MakeCluster({Node("a", 8, 2, "T4")});
  const NodeState& n = c.node(0);
  EXPECT_TRUE(Fits(n, Pod(8000, 2, 1000)));
  EXPECT_FALSE(Fits(n, Pod(8001, 0, 0)));                  // CPU.
  EXPECT_FALSE(Fits(n, Pod(1000, 0, 0, 256 * 1024 + 1)));  // Memory.
  EXPECT_FALSE(Fits(n, Pod(1000, 3, 1000)));               // Only 2 GPUs.
  PodRequest v100 = Pod(1000, 1, 500);
  v100.allowed_models = c.ParseModelList("V100M16|V100M32");
  EXPECT_FALSE(Fits(n, v100));  // Model not on the node (and not in the cluster).
  v100.allowed_models = c.ParseModelList("V100M16|T4");
  EXPECT_TRUE(Fits(n, v100));
}

TEST(NodeStateTest, SharingPodsShareOneGpuUpTo1000Milli) {
  ClusterState c = MakeCluster({Node("a", 64, 1)});
  Bind(c, 0, Pod(1000, 1, 600), {0});
  EXPECT_TRUE(Fits(c.node(0), Pod(1000, 1, 400)));
  EXPECT_FALSE(Fits(c.node(0), Pod(1000, 1, 401)));
  EXPECT_FALSE(Fits(c.node(0), Pod(1000, 1, 1000)));  // A whole GPU needs a fully free one.
  EXPECT_EQ(c.used_gpu_milli(), 600);
}

TEST(NodeStateTest, TightestGpusPicksLeastFreeThatFitsAndLowestFreeIndices) {
  ClusterState c = MakeCluster({Node("a", 64, 4)});
  Bind(c, 0, Pod(100, 1, 300), {0});  // GPU0 700 free.
  Bind(c, 0, Pod(100, 1, 500), {2});  // GPU2 500 free.
  const NodeState& n = c.node(0);
  GpuList g = TightestGpus(n, Pod(100, 1, 400));
  ASSERT_EQ(g.count, 1);
  EXPECT_EQ(g.index[0], 2);  // 500 is the tightest fit for 400.
  g = TightestGpus(n, Pod(100, 1, 600));
  EXPECT_EQ(g.index[0], 0);  // Only GPU0 (700) among partial ones; 1000s are looser.
  g = TightestGpus(n, Pod(100, 2, 1000));
  ASSERT_EQ(g.count, 2);
  EXPECT_EQ(g.index[0], 1);
  EXPECT_EQ(g.index[1], 3);
}

TEST(NodeStateTest, ReleaseUndoesApply) {
  ClusterState c = MakeCluster({Node("a", 64, 2)});
  NodeState before = c.node(0);
  PodRequest p = Pod(3000, 1, 250);
  Bind(c, 0, p, {1});
  GpuList g;
  g.Add(1);
  c.Release(0, p, g);
  EXPECT_EQ(c.node(0).cpu_free, before.cpu_free);
  EXPECT_EQ(c.node(0).gpu_free[1], 1000);
  EXPECT_EQ(c.node(0).pods, 0);
  EXPECT_EQ(c.used_gpu_milli(), 0);
  EXPECT_EQ(c.log_end() - c.log_begin(), 2u);
}

TEST(NodeStateTest, ExtendedResourcesBoundFitAndCountAndAreGivenBack) {
  NodeSpec spec = Node("a", 64, 8, "H100");
  spec.extended[1] = 3;  // Slot 1: three of some device.
  ClusterState c = MakeCluster({spec});
  NodeState n = c.node(0);
  PodRequest pod = Pod(1000, 1, 1000);
  EXPECT_TRUE(Fits(n, pod));
  EXPECT_EQ(PodsThatFit(n, pod), 8);  // GPUs bound it.
  pod.extended[1] = 2;
  EXPECT_TRUE(Fits(n, pod));
  EXPECT_EQ(PodsThatFit(n, pod), 1);  // 3 / 2 devices.
  pod.extended[0] = 1;                // A slot the node has none of.
  EXPECT_FALSE(Fits(n, pod));
  pod.extended[0] = 0;
  const GpuList gpus = TightestGpus(n, pod);
  ApplyPod(n, pod, gpus);
  EXPECT_EQ(n.extended_free[1], 1);
  EXPECT_FALSE(Fits(n, pod));
  EXPECT_EQ(AfterTightest(c.node(0), pod).extended_free[1], 1);
  ReleasePod(n, pod, gpus);
  EXPECT_EQ(n.extended_free[1], 3);
  EXPECT_TRUE(Fits(n, pod));
}

}  // namespace
}  // namespace steward::place

#include "model/cluster.h"

#include <gtest/gtest.h>

namespace steward::model {
namespace {

Cluster TwoRacks() {
  Cluster c;
  const int h100 = c.AddGpuModel({"H100", "NVIDIA-H100-80GB-HBM3", 81559, true});
  const int pool = c.AddPool("main", h100);
  for (int i = 0; i < 4; ++i) {
    Node n;
    n.name = "node-" + std::to_string(i);
    n.pool = pool;
    n.model = h100;
    n.rack = i / 2;
    n.leaf = 0;
    n.nvlink_domain = i;
    n.gpu_capacity = n.gpu_allocatable = 8;
    c.AddNode(n);
  }
  return c;
}

TEST(ClusterTest, GpusAreContiguousPerNode) {
  Cluster c = TwoRacks();
  ASSERT_EQ(c.total_gpus(), 32);
  EXPECT_EQ(c.node(2).first_gpu, 16);
  EXPECT_EQ(c.gpu(17).node, 2);
  EXPECT_EQ(c.gpu(17).index, 1);
  EXPECT_NE(c.gpu(0).uuid, c.gpu(1).uuid);
}

TEST(ClusterTest, TopologyQueries) {
  Cluster c = TwoRacks();
  EXPECT_TRUE(c.SameNode(8, 15));
  EXPECT_FALSE(c.SameNode(7, 8));
  EXPECT_TRUE(c.SameRack(0, 1));
  EXPECT_FALSE(c.SameRack(1, 2));
  EXPECT_TRUE(c.SameLeaf(0, 3));
  EXPECT_FALSE(c.SameNvlinkDomain(0, 1));
  EXPECT_EQ(c.num_racks(), 2);
  EXPECT_EQ(c.FindNode("node-3"), 3);
  EXPECT_EQ(c.FindNode("nope"), kNoNode);
}

}  // namespace
}  // namespace steward::model

#include "snapshot/node_pools.h"

#include <gtest/gtest.h>

namespace steward::snapshot {
namespace {

kube::Node GpuNode(const std::string& name, const std::string& product, int gpus,
                   std::map<std::string, std::string> labels = {}) {
  kube::Node n;
  n.metadata.name = name;
  n.metadata.labels = std::move(labels);
  if (!product.empty()) n.metadata.labels["nvidia.com/gpu.product"] = product;
  n.capacity = {{"nvidia.com/gpu", std::to_string(gpus)}, {"cpu", "96"}, {"memory", "512Gi"}};
  n.allocatable = n.capacity;
  return n;
}

const twin::PoolSpec* Find(const NodePools& p, const std::string& name) {
  for (const auto& pool : p.pools)
    if (pool.name == name) return &pool;
  return nullptr;
}

TEST(NodePoolsTest, GroupsByPoolLabelThenByProductAndCount) {
  std::vector<kube::Node> nodes = {
      GpuNode("a1", "NVIDIA-H100-80GB-HBM3", 8, {{"cloud.google.com/gke-nodepool", "train"}}),
      GpuNode("a2", "NVIDIA-H100-80GB-HBM3", 8, {{"cloud.google.com/gke-nodepool", "train"}}),
      GpuNode("b1", "NVIDIA-A100-SXM4-80GB", 4),
      GpuNode("b2", "NVIDIA-A100-SXM4-80GB", 4),
      GpuNode("b3", "NVIDIA-A100-SXM4-80GB", 8),
  };
  NodePools p = GroupNodePools(nodes);
  ASSERT_EQ(p.pools.size(), 3u);
  const twin::PoolSpec* train = Find(p, "train");
  ASSERT_NE(train, nullptr);
  EXPECT_EQ(train->nodes, 2);
  EXPECT_EQ(train->gpus_per_node, 8);
  EXPECT_EQ(train->gpu_model, "H100");
  // The pool label stays on the pool, so flavors selecting it still match.
  EXPECT_EQ(train->labels.at("cloud.google.com/gke-nodepool"), "train");
  ASSERT_NE(Find(p, "a100-x4"), nullptr);
  EXPECT_EQ(Find(p, "a100-x4")->nodes, 2);
  ASSERT_NE(Find(p, "a100-x8"), nullptr);
  EXPECT_EQ(p.pool_of_node.at("b3"), "a100-x8");
  EXPECT_EQ(p.model_of_product.at("NVIDIA-A100-SXM4-80GB"), "A100");
  EXPECT_EQ(train->cpu_milli, 96000);
  EXPECT_EQ(train->memory_mib, 512 * 1024);
}

TEST(NodePoolsTest, OnePoolLabelValueWithTwoShapesIsSplit) {
  std::vector<kube::Node> nodes = {
      GpuNode("a1", "NVIDIA-H100-80GB-HBM3", 8, {{"karpenter.sh/nodepool", "gpu"}}),
      GpuNode("a2", "NVIDIA-L4", 1, {{"karpenter.sh/nodepool", "gpu"}}),
  };
  NodePools p = GroupNodePools(nodes);
  ASSERT_EQ(p.pools.size(), 2u);
  EXPECT_NE(p.pool_of_node.at("a1"), p.pool_of_node.at("a2"));
  for (const auto& pool : p.pools) EXPECT_EQ(pool.nodes, 1);
}

TEST(NodePoolsTest, ProductsSharingAShortNameKeepTheirFullNames) {
  NodePools p = GroupNodePools(
      {GpuNode("a", "NVIDIA-A100-SXM4-40GB", 8), GpuNode("b", "NVIDIA-A100-SXM4-80GB", 8)});
  ASSERT_EQ(p.gpu_models.size(), 2u);
  EXPECT_NE(p.gpu_models[0].name, p.gpu_models[1].name);
  EXPECT_EQ(ShortModelName("Tesla-V100-SXM2-16GB"), "V100");
}

TEST(NodePoolsTest, MajorityDriverAndSharedLabelsAndTaints) {
  std::vector<kube::Node> nodes;
  for (int i = 0; i < 3; ++i) {
    kube::Node n = GpuNode("n" + std::to_string(i), "NVIDIA-H100-80GB-HBM3", 8,
                           {{"team", "ml"}, {"rack", std::to_string(i)}});
    n.metadata.labels["nvidia.com/cuda.driver-version.full"] = i == 2 ? "535.1" : "550.2";
    n.metadata.labels["nvidia.com/gpu.memory"] = "81559";
    n.taints = {{"gpu", "true", "NoSchedule", {}}};
    if (i == 0) n.taints.push_back({"node.kubernetes.io/unschedulable", "", "NoSchedule", {}});
    nodes.push_back(n);
  }
  NodePools p = GroupNodePools(nodes);
  ASSERT_EQ(p.pools.size(), 1u);
  const twin::PoolSpec& pool = p.pools[0];
  EXPECT_EQ(pool.driver_version, "550.2");
  EXPECT_EQ(pool.labels, (std::map<std::string, std::string>{{"team", "ml"}}));
  ASSERT_EQ(pool.taints.size(), 1u);
  EXPECT_EQ(pool.taints[0].key, "gpu");
  EXPECT_EQ(p.gpu_models[0].memory_mib, 81559);
  bool noted = false;
  for (const auto& n : p.notes) noted = noted || n.find("mixed drivers") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(NodePoolsTest, BadNodesGetDefaultsOrAreLeftOutWithANote) {
  kube::Node cpu_only;
  cpu_only.metadata.name = "cpu-1";
  kube::Node huge = GpuNode("huge", "NVIDIA-GB200", 72);
  kube::Node unlabelled = GpuNode("bare", "", 4);  // GPUs but no GFD labels.
  kube::Node plugin_down =
      GpuNode("down", "NVIDIA-H100-80GB-HBM3", 0, {{"nvidia.com/gpu.count", "8"}});
  NodePools p = GroupNodePools({cpu_only, huge, unlabelled, plugin_down});
  EXPECT_EQ(p.skipped_nodes, 2);
  ASSERT_EQ(p.pools.size(), 2u);
  EXPECT_EQ(p.pool_of_node.at("bare"), "unknown-gpu-x4");
  EXPECT_EQ(p.pools[p.pool_of_node.at("down") == p.pools[0].name ? 0 : 1].gpus_per_node, 8);
  int left_out = 0, unknown = 0;
  for (const std::string& n : p.notes) {
    left_out += n.find("left out") != std::string::npos;
    unknown += n.find("'unknown-gpu'") != std::string::npos;
  }
  EXPECT_EQ(left_out, 2);  // No GPUs; more GPUs than a scenario node may have.
  EXPECT_EQ(unknown, 1);
}

}  // namespace
}  // namespace steward::snapshot

// Node pools of a snapshot: a cluster's GPU nodes grouped into the twin's homogeneous hardware
// pools (twin::PoolSpec) with their GPU models (twin::GpuModelSpec), read from the labels GPU
// feature discovery puts on nodes.
//
//   NodePools p = GroupNodePools(cache.Nodes(), {});
//   for (const twin::PoolSpec& pool : p.pools) ...;   // p.notes: what was guessed or left out
//
// Grouping: by the first pool label a node has (health::StackHealthOptions::pool_labels:
// GKE/EKS node pools, Karpenter, instance type, steward.io/pool), split further when one label
// value covers several GPU products or GPU counts (a twin pool is homogeneous); a node without
// a pool label goes to the pool of its GPU product and count ("h100-x8"). GPU model from
// nvidia.com/gpu.product (short name: "NVIDIA-H100-80GB-HBM3" -> "H100" unless two products
// would share it), memory from nvidia.com/gpu.memory, MIG from nvidia.com/mig.capable, driver
// from nvidia.com/cuda.driver-version.full (else cuda.driver.major/minor/rev). A pool takes the
// most common driver of its nodes and the smallest CPU and memory capacity; labels and taints
// are those every node of the pool carries, minus what the twin derives itself.
// Bad data never fails: a node with GPUs but no product label gets the model "unknown-gpu", a
// node without GPUs (or with more than 16) is left out; each case adds a note.
// Pure function of its input; deterministic (pools sorted by name). Thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kube/core_v1.h"
#include "twin/scenario.h"

namespace steward::snapshot {

struct NodePoolOptions {
  // Labels naming a node's pool; the first one present wins. Empty = health's defaults.
  std::vector<std::string> pool_labels;
};

struct NodePools {
  std::vector<twin::GpuModelSpec> gpu_models;
  std::vector<twin::PoolSpec> pools;
  std::map<std::string, std::string> pool_of_node;      // Node name -> pool name.
  std::map<std::string, std::string> model_of_product;  // nvidia.com/gpu.product -> model name.
  int skipped_nodes = 0;                                // Nodes left out (no GPUs, > 16 GPUs).
  std::vector<std::string> notes;                       // Guesses and omissions, in words.
};

NodePools GroupNodePools(const std::vector<kube::Node>& nodes, const NodePoolOptions& options = {});

// "NVIDIA-H100-80GB-HBM3" -> "H100"; "Tesla-V100-SXM2-16GB" -> "V100".
std::string ShortModelName(const std::string& product);

}  // namespace steward::snapshot

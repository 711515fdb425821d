// The cluster model: GPUs, nodes and their topology (rack, leaf group / scalable unit, NVLink
// domain), with Kubernetes-style labels, taints and component versions.
//
// Ids are dense indices (NodeId into nodes(), GpuId into gpus()), so every topology question
// ("same node?", "same NVLink domain?", "same leaf?") is two array loads: O(1) per GPU or node.
// A Cluster is built once (by a scenario or a trace loader) and then only its mutable state
// (health, cordon, allocatable) changes; the twin owns it and is single-threaded.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/extended_resources.h"
#include "model/status.h"

namespace steward::model {

using NodeId = int32_t;
using GpuId = int32_t;
inline constexpr NodeId kNoNode = -1;

enum class GpuHealth : uint8_t { kHealthy, kDegraded, kFailed };

// One GPU product. `product_label` is what GPU feature discovery puts in
// nvidia.com/gpu.product (e.g. "NVIDIA-H100-80GB-HBM3").
struct GpuModel {
  std::string name;  // Short name used in scenarios and constraints, e.g. "H100".
  std::string product_label;
  int memory_mib = 0;
  bool mig_capable = false;
};

struct Gpu {
  NodeId node = kNoNode;
  int index = 0;  // Index on its node, as nvidia-smi / dcgm-exporter's "gpu" label.
  int model = 0;  // Index into Cluster::gpu_models().
  std::string uuid;
  GpuHealth health = GpuHealth::kHealthy;
};

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute.
};

struct Node {
  std::string name;
  int pool = 0;             // Index into Cluster::pools().
  int placement_pool = 0;   // The scenario's placement pool (policies.pools), 0 without pools.
  int rack = 0;             // Dense rack id.
  int leaf = 0;             // Leaf switch group / scalable unit id.
  int nvlink_domain = 0;    // The node itself for HGX; the rack for NVL72-style systems.
  int model = 0;            // GPU model of every GPU on the node.
  GpuId first_gpu = 0;      // GPUs of a node are contiguous: [first_gpu, first_gpu + gpu_capacity).
  int gpu_capacity = 0;     // nvidia.com/gpu in status.capacity.
  int gpu_allocatable = 0;  // nvidia.com/gpu in status.allocatable (0 when the plugin is down).
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  ExtendedAmounts extended{};  // Allocatable extended resources, by Cluster::ExtendedSlot.
  std::map<std::string, std::string> labels;
  std::vector<Taint> taints;
  std::string driver_version;
  std::string toolkit_version;
  std::string device_plugin_version;
  bool cordoned = false;  // spec.unschedulable.
};

// A node pool: a group of identical nodes (one node group / machine set).
struct Pool {
  std::string name;
  int model = 0;
  int nodes = 0;
};

class Cluster {
 public:
  Cluster() = default;

  // Registers a GPU model; returns its index. Names must be unique.
  int AddGpuModel(GpuModel model);
  int AddPool(std::string name, int model);
  // Appends a node and its gpu_capacity GPUs (UUIDs derived from the node name and index).
  NodeId AddNode(Node node);

  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Gpu>& gpus() const { return gpus_; }
  const std::vector<GpuModel>& gpu_models() const { return models_; }
  const std::vector<Pool>& pools() const { return pools_; }
  const Node& node(NodeId id) const { return nodes_[id]; }
  Node& mutable_node(NodeId id) { return nodes_[id]; }
  const Gpu& gpu(GpuId id) const { return gpus_[id]; }
  Gpu& mutable_gpu(GpuId id) { return gpus_[id]; }
  int num_racks() const { return num_racks_; }
  int num_leaves() const { return num_leaves_; }
  int total_gpus() const { return static_cast<int>(gpus_.size()); }

  // Index of the model/pool called `name`, or -1.
  int FindGpuModel(std::string_view name) const;
  int FindPool(std::string_view name) const;
  NodeId FindNode(std::string_view name) const;

  // Extended resource names by slot (sorted, at most kMaxExtendedResources; set once before
  // nodes are added) and the slot of `name` (-1 if no node can have it).
  void SetExtendedResources(std::vector<std::string> names) { extended_ = std::move(names); }
  const std::vector<std::string>& extended_resources() const { return extended_; }
  int ExtendedSlot(std::string_view name) const;

  // Topology queries, O(1).
  bool SameNode(GpuId a, GpuId b) const { return gpus_[a].node == gpus_[b].node; }
  bool SameNvlinkDomain(NodeId a, NodeId b) const {
    return nodes_[a].nvlink_domain == nodes_[b].nvlink_domain;
  }
  bool SameRack(NodeId a, NodeId b) const { return nodes_[a].rack == nodes_[b].rack; }
  bool SameLeaf(NodeId a, NodeId b) const { return nodes_[a].leaf == nodes_[b].leaf; }

 private:
  std::vector<GpuModel> models_;
  std::vector<Pool> pools_;
  std::vector<Node> nodes_;
  std::vector<Gpu> gpus_;
  std::vector<std::string> extended_;
  std::map<std::string, NodeId, std::less<>> node_by_name_;
  int num_racks_ = 0;
  int num_leaves_ = 0;
};

}  // namespace steward::model

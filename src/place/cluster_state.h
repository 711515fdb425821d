// ClusterState: the nodes the placement layer places onto, and what changed since when.
//
// Built from NodeSpecs by whoever owns the cluster (the Alibaba trace loader for the FGD
// experiment, the digital twin for its H100 pools); it does not know either. It records every
// node change in a change log, which is how the Placer's per-pod-shape score indexes update
// incrementally: an index remembers how far into the log it has read and rescoring touches
// only the nodes changed since. The log is trimmed when it grows past a few times the node
// count; an index that fell behind the trimmed part rebuilds (O(nodes), no more than reading
// the trimmed entries would have cost).
//
// It also keeps, per (placement pool, GPU model), O(1)-updated occupancy counters — fully free
// GPUs, whole free nodes, nodes by fully free GPU count — so fragmentation questions ("largest
// job that fits now", "GPUs stranded on partly used nodes") never scan nodes, and the topology
// groups of gang placement (NVLink domain, leaf / scalable unit) as contiguous node ranges.
// Owned by one thread; not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"
#include "place/node_state.h"

namespace steward::place {

using NodeId = int32_t;
inline constexpr NodeId kNoNode = -1;

struct NodeSpec {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpus = 0;
  std::string model;  // GPU model label (P100, T4, G2, H100, ...); any text for CPU-only nodes.
  int max_pods = 1001;
  // The twin's additions; the defaults make every node its own domain and group.
  int pool = 0;            // Placement pool, 0..32767.
  int nvlink_domain = -1;  // Nodes sharing an NVLink domain (-1: the node alone).
  int leaf = -1;           // Leaf switch group / scalable unit (-1: the node alone).
  bool mig_capable = false;
  ExtendedAmounts extended{};  // Allocatable extended resources, per slot.
};

// Topology levels a gang may prefer to stay inside, strictest first.
enum class TopologyLevel : uint8_t { kNvlinkDomain, kLeaf };

// A group of nodes [begin, end).
struct NodeRange {
  NodeId begin = 0, end = 0;
};

// Occupancy of one (pool, model) slice of the cluster, over schedulable nodes.
struct Occupancy {
  int nodes = 0;                                         // Schedulable nodes.
  int gpus = 0;                                          // Their GPUs.
  int free_gpus = 0;                                     // Fully free GPUs on them.
  int whole_free_nodes = 0;                              // Nodes with every GPU fully free.
  int whole_free_gpus = 0;                               // GPUs on those nodes.
  std::array<int, kMaxGpusPerNode + 1> nodes_by_free{};  // [k]: nodes with k fully free GPUs.
  int stranded_free_gpus() const { return free_gpus - whole_free_gpus; }
  int largest_free_block() const {  // Most fully free GPUs on one node.
    for (int k = kMaxGpusPerNode; k > 0; --k)
      if (nodes_by_free[k] > 0) return k;
    return 0;
  }
};

class ClusterState {
 public:
  // Validates the specs (unique names, non-negative amounts, at most kMaxGpusPerNode GPUs,
  // pools in range, each NVLink domain and leaf a contiguous run of nodes).
  static Result<ClusterState> Build(const std::vector<NodeSpec>& specs);

  int size() const { return static_cast<int>(nodes_.size()); }
  const NodeState& node(NodeId id) const { return nodes_[id]; }
  const std::string& name(NodeId id) const { return names_[id]; }
  const std::vector<std::string>& model_names() const { return model_names_; }
  int FindModel(std::string_view name) const;  // -1 if no node has that model.
  // "V100M16|V100M32" -> mask of the known models; "" -> kAnyModel. Unknown names are
  // dropped; if none is known the mask matches no node (kNoModel).
  ModelMask ParseModelList(std::string_view spec) const;
  static constexpr ModelMask kNoModel = ModelMask{1} << 63;

  // Tie-break order: among equally scored nodes the one with the smallest rank wins. Default
  // rank = index. The FGD simulator breaks ties by the smallest node name after prefixing each
  // name with a seed-dependent rand.Perm index, i.e. a random rank per seed.
  int32_t rank(NodeId id) const { return rank_[id]; }
  void SetRanks(std::vector<int32_t> ranks);

  // Binds / unbinds a pod. REQUIRES: Fits() for Apply; the same placement for Release.
  void Apply(NodeId id, const PodRequest& pod, const GpuList& gpus);
  void Release(NodeId id, const PodRequest& pod, const GpuList& gpus);
  // Cordon / uncordon: an unschedulable node fits no pod and leaves the occupancy counters.
  void SetSchedulable(NodeId id, bool schedulable);
  // Marks GPU `gpu` of node `id` broken or repaired (place::SetGpuBroken).
  void SetGpuBroken(NodeId id, int gpu, bool broken);

  // Node changes in order (one entry per Apply/Release/SetSchedulable), by absolute position:
  // entries [log_begin(), log_end()) are kept; older ones were trimmed.
  size_t log_begin() const { return log_base_; }
  size_t log_end() const { return log_base_ + change_log_.size(); }
  NodeId logged(size_t pos) const { return change_log_[pos - log_base_]; }

  int total_gpus() const { return total_gpus_; }
  int64_t total_gpu_milli() const { return int64_t{total_gpus_} * kMilliPerGpu; }
  // GPU milli not free (a GPU in MIG mode counts as fully used; see NodeState::mig_used).
  int64_t used_gpu_milli() const { return used_gpu_milli_; }
  // Σ over nodes of free GPU milli.
  int64_t free_gpu_milli() const { return total_gpu_milli() - used_gpu_milli_; }
  // GPUs holding at least one pod (whole, fractional or MIG), on any node.
  int busy_gpus() const { return held_gpus_; }
  // GPUs nobody can use now: broken ones no pod holds, and fully free GPUs of unschedulable
  // nodes.
  int unavailable_gpus() const { return unavailable_gpus_; }

  // Occupancy of schedulable nodes of `pool` and `model` (-1 = all of them), summed.
  int num_pools() const { return num_pools_; }
  Occupancy occupancy(int pool = -1, int model = -1) const;
  // The largest gang of whole nodes that fits now: most whole-free GPUs of one (pool, model).
  int largest_whole_node_gpus(int pool = -1) const;

  // Topology: the dense NVLink domain / leaf of a node and each group's node range, O(1).
  int group_of(TopologyLevel level, NodeId id) const {
    return level == TopologyLevel::kNvlinkDomain ? domain_of_[id] : leaf_of_[id];
  }
  int num_groups(TopologyLevel level) const { return static_cast<int>(ranges(level).size()); }
  NodeRange group_range(TopologyLevel level, int group) const { return ranges(level)[group]; }

 private:
  const std::vector<NodeRange>& ranges(TopologyLevel level) const {
    return level == TopologyLevel::kNvlinkDomain ? domain_ranges_ : leaf_ranges_;
  }
  Occupancy& slot(NodeId id) {
    return occupancy_[nodes_[id].pool * model_names_.size() + nodes_[id].model];
  }
  // Adds (sign +1) or removes (-1) node `id`'s share of the counters.
  void Count(NodeId id, int sign);
  void Log(NodeId id);

  std::vector<NodeState> nodes_;
  std::vector<std::string> names_;
  std::vector<std::string> model_names_;
  std::vector<int32_t> rank_;
  std::vector<NodeId> change_log_;
  size_t log_base_ = 0;
  int total_gpus_ = 0;
  int held_gpus_ = 0;
  int unavailable_gpus_ = 0;
  int64_t used_gpu_milli_ = 0;
  int num_pools_ = 1;
  std::vector<Occupancy> occupancy_;  // [pool * models + model]
  std::vector<int> domain_of_, leaf_of_;
  std::vector<NodeRange> domain_ranges_, leaf_ranges_;
};

}  // namespace steward::place

// The twin's live view of GPU occupancy. The state itself is the placement layer's
// (place::ClusterState: per-node free milli per GPU, MIG slices, schedulable flag, placement
// pool, O(1) occupancy counters per pool and model, topology groups), so the twin and the FGD
// experiment place with one piece of code; this class maps the model::Cluster onto it and
// answers the twin's questions in its terms (GPU masks, model indices of model::Cluster).
//
// It also remembers which workloads have pods on each node (for defragmenting preemption).
// Nothing here scans every GPU: per-node questions are O(GPUs of the node), fragmentation
// questions O(pools × models × GPUs per node). Owned by the twin loop; not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "model/cluster.h"
#include "model/workload.h"
#include "place/cluster_state.h"

namespace steward::twin {

// Kubernetes' default pods per node (kubelet --max-pods).
inline constexpr int kMaxPodsPerNode = 110;

class ClusterState {
 public:
  // Nodes go to the placement pool in model::Node::placement_pool.
  explicit ClusterState(const model::Cluster& cluster);

  const model::Cluster& cluster() const { return cluster_; }
  place::ClusterState& placement() { return placement_; }
  const place::ClusterState& placement() const { return placement_; }

  // Fully free GPUs of node n, as a count and as a bit mask of GPU indices.
  int free_count(model::NodeId n) const { return placement_.node(n).FullyFreeGpus(); }
  uint64_t free_mask(model::NodeId n) const;
  bool schedulable(model::NodeId n) const { return placement_.node(n).schedulable; }

  // Whole-GPU convenience for callers without a placement decision (tests, tools): takes
  // `gpus` fully free GPUs of node n, lowest indices first, and returns their mask; Release
  // gives back whole GPUs taken so. REQUIRES: free_count(n) >= gpus.
  uint64_t Allocate(model::NodeId n, int gpus);
  void Release(model::NodeId n, uint64_t mask);
  // Releases one pod placed by the twin's Placer (see PodAllocation in twin.h).
  void ReleasePod(model::NodeId n, uint64_t mask, int gpu_milli, int mig_profile, int mig_start,
                  int64_t cpu_milli = 0, int64_t memory_mib = 0,
                  const model::ExtendedAmounts& extended = {});
  // A pod of `ps`'s extended resources by the cluster's slots (names no node has are left out:
  // scenario and trace validation refuse them).
  model::ExtendedAmounts ExtendedRequest(const model::PodSet& ps) const;
  // Cordon / uncordon (or device plugin down / up): removes the node from placement.
  void SetSchedulable(model::NodeId n, bool schedulable);
  // Marks GPU `index` of node n broken (withheld from placement; if pods hold it, what they
  // release is withheld) or repaired (free again).
  void SetGpuBroken(model::NodeId n, int index, bool broken) {
    placement_.SetGpuBroken(n, index, broken);
  }
  uint64_t broken_mask(model::NodeId n) const { return placement_.node(n).broken; }
  // GPUs nobody can use right now: broken ones no pod holds, and the free GPUs of unschedulable
  // nodes (cordoned, or advertising no GPUs). O(1).
  int unavailable_gpus() const { return placement_.unavailable_gpus(); }

  // Workloads with a pod on node n, one entry per pod, in no particular order.
  std::span<const model::WorkloadId> residents(model::NodeId n) const {
    return residents_[n].ids();
  }
  void AddResident(model::NodeId n, model::WorkloadId w) { residents_[n].Add(w); }
  void RemoveResident(model::NodeId n, model::WorkloadId w);
  // Nodes of placement pool p, in node order.
  const std::vector<model::NodeId>& pool_nodes(int p) const { return pool_nodes_[p]; }

  int max_gpus_per_node() const { return max_gpus_; }
  int num_models() const { return static_cast<int>(cluster_.gpu_models().size()); }
  int num_pools() const { return placement_.num_pools(); }
  // model::Cluster model index -> the placement layer's (-1 if no node has it).
  int place_model(int model) const { return model < 0 ? -1 : place_model_[model]; }

  // GPUs holding at least one pod (whole, fractional or MIG).
  int allocated_gpus() const { return placement_.busy_gpus(); }
  int total_gpus() const { return cluster_.total_gpus(); }
  // Over schedulable nodes of `model` (-1 = all) in placement pool `pool` (-1 = all): fully
  // free GPUs; nodes with every GPU free; free GPUs stranded on partly used nodes (the
  // fragmentation the guide describes); the most GPUs a single-node pod could get; and the
  // largest gang of whole nodes (of one model, inside one pool) that fits.
  int free_gpus(int model = -1, int pool = -1) const;
  int whole_free_nodes(int model = -1, int pool = -1) const;
  int stranded_free_gpus(int model = -1, int pool = -1) const;
  int largest_free_block(int model = -1, int pool = -1) const;
  int largest_gang_gpus(int pool = -1) const { return placement_.largest_whole_node_gpus(pool); }

 private:
  // The occupancy of `model` (-1 = all) in `pool`; empty if the model has no node.
  place::Occupancy Occupancy(int model, int pool) const;

  // One node's residents in one cache line while there are at most kInline of them (a node's
  // pods rarely outnumber its GPUs), on the heap past that: binding or releasing a pod reads a
  // line, not a vector and then its block.
  class alignas(64) Residents {
   public:
    Residents() = default;
    Residents(Residents&& o) noexcept : size_(o.size_), cap_(o.cap_), inline_(o.inline_) {
      heap_ = std::exchange(o.heap_, nullptr);
      o.size_ = 0;
      o.cap_ = kInline;
    }
    Residents(const Residents&) = delete;
    Residents& operator=(const Residents&) = delete;
    ~Residents() { delete[] heap_; }
    std::span<const model::WorkloadId> ids() const {
      return {heap_ ? heap_ : inline_.data(), static_cast<size_t>(size_)};
    }
    void Add(model::WorkloadId w);
    bool Remove(model::WorkloadId w);  // One entry of w; false if none.

   private:
    static constexpr int32_t kInline = 12;
    int32_t size_ = 0;
    int32_t cap_ = kInline;
    std::array<model::WorkloadId, kInline> inline_{};
    model::WorkloadId* heap_ = nullptr;  // Past kInline: the entries, cap_ of them.
  };

  const model::Cluster& cluster_;
  place::ClusterState placement_;
  std::vector<int> place_model_;
  std::vector<Residents> residents_;
  std::vector<std::vector<model::NodeId>> pool_nodes_;
  int max_gpus_ = 0;
};

}  // namespace steward::twin

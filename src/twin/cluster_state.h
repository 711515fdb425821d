// The twin's live view of GPU occupancy: which GPUs of each node are free, indexed so that
// placement and fragmentation questions never scan every GPU or node.
//
// Invariants:
//  1. free_mask(n) has exactly free_count(n) bits set, all below the node's capacity.
//  2. A schedulable node (not cordoned, allocatable > 0) sits in exactly one bucket:
//     buckets_[model][free_count]; unschedulable nodes sit in none.
//  3. nodes_with_free_[model][k] counts the schedulable nodes with exactly k free GPUs.
//  4. Every GPU is exactly one of free (in free_mask), allocated, or broken and withheld: a
//     broken GPU never returns to the free mask until it is repaired (SetGpuBroken false).
//  5. unavailable_gpus() = broken GPUs not held by a pod + free GPUs of unschedulable nodes.
// Owned by the twin loop; not thread-safe.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "model/cluster.h"

namespace steward::twin {

class ClusterState {
 public:
  explicit ClusterState(const model::Cluster& cluster);

  const model::Cluster& cluster() const { return cluster_; }
  int free_count(model::NodeId n) const { return free_[n]; }
  uint64_t free_mask(model::NodeId n) const { return mask_[n]; }
  bool schedulable(model::NodeId n) const { return schedulable_[n]; }

  // Takes `gpus` free GPUs on node n (lowest indices first); returns their mask.
  // REQUIRES: free_count(n) >= gpus.
  uint64_t Allocate(model::NodeId n, int gpus);
  // Returns the GPUs in `mask` on node n.
  void Release(model::NodeId n, uint64_t mask);
  // Cordon / uncordon (or device plugin down / up): removes the node from placement.
  void SetSchedulable(model::NodeId n, bool schedulable);
  // Marks GPU `index` of node n broken (withheld from placement; if a pod holds it, it is
  // withheld when released) or repaired (free again).
  void SetGpuBroken(model::NodeId n, int index, bool broken);
  uint64_t broken_mask(model::NodeId n) const { return broken_[n]; }
  // GPUs nobody can use right now: broken ones no pod holds, and the free GPUs of unschedulable
  // nodes (cordoned, or advertising no GPUs). O(1).
  int unavailable_gpus() const { return unavailable_; }

  // Schedulable nodes of `model` (-1 = any model) with exactly k free GPUs, ordered by id.
  const std::set<model::NodeId>& Bucket(int model, int k) const { return buckets_[model][k]; }
  int max_gpus_per_node() const { return max_gpus_; }
  int num_models() const { return static_cast<int>(buckets_.size()); }

  // Cluster-wide counters, O(1).
  int allocated_gpus() const { return allocated_; }
  int total_gpus() const { return cluster_.total_gpus(); }
  // Free GPUs on schedulable nodes of `model` (-1 = all models).
  int free_gpus(int model = -1) const;
  // Schedulable nodes of `model` with every GPU free, and free GPUs stranded on nodes that are
  // partly used (the fragmentation the guide describes), O(models x gpus per node).
  // Whole-free counts are kept incrementally as nodes move between buckets.
  int whole_free_nodes(int model = -1) const;
  int stranded_free_gpus(int model = -1) const;
  // The most GPUs a single-node pod could get right now.
  int largest_free_block(int model = -1) const;

 private:
  void Unbucket(model::NodeId n);
  void Bucket(model::NodeId n);
  const model::Cluster& cluster_;
  std::vector<int8_t> free_;
  std::vector<uint64_t> mask_;
  std::vector<bool> schedulable_;
  std::vector<uint64_t> broken_;    // Broken GPUs, held by a pod or withheld.
  std::vector<uint64_t> withheld_;  // Broken GPUs no pod holds (neither free nor allocated).
  std::vector<std::vector<std::set<model::NodeId>>> buckets_;  // [model][free count]
  std::vector<int> whole_nodes_;  // [model] schedulable nodes with every GPU free
  std::vector<int> whole_gpus_;   // [model] GPUs on those nodes
  int max_gpus_ = 0;
  int allocated_ = 0;
  int unavailable_ = 0;
};

}  // namespace steward::twin

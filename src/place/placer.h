// Placer: the placement engine. Finds the best node for a pod without scanning the cluster.
//
// For every distinct pod shape (CPU, memory, GPU count, GPU milli, allowed models) it keeps a
// tournament tree over all nodes whose leaves hold (feasible?, score, rank) packed in one
// int64, so the best node is the root: O(1) to read. When nodes change (ClusterState's change
// log), only those leaves are rescored, O(log n) each, the next time that shape is asked for.
// A decision therefore costs O(changed nodes × log n) instead of O(nodes × GPUs); the FGD
// experiment's 10,866 decisions on 1,213 nodes touch ~40k leaves instead of 13M.
// Random selection uses per-subtree feasible counts to draw the k-th feasible node.
//
// Owned by one thread; not thread-safe. The cluster and policy must outlive the Placer.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "place/cluster_state.h"
#include "place/decision.h"
#include "place/placement_policy.h"
#include "place/rng.h"

namespace steward::place {

struct PlacerOptions {
  // Indexes kept at once; when exceeded, all are dropped and rebuilt on demand. 1024 shapes ×
  // 2,048 leaves × 16 B ≈ 32 MiB. The Alibaba traces have 151-457 shapes.
  int max_shapes = 1024;
};

class Placer {
 public:
  Placer(ClusterState* cluster, PlacementPolicy* policy, Rng* rng, PlacerOptions options = {});
  ~Placer();

  // The best placement for `pod` under the policy, or why there is none. Does not bind.
  Decision Decide(const PodRequest& pod);
  // Decide, then bind the pod if it fits.
  Decision Place(const PodRequest& pod);

  // Leaves rescored so far (for benchmarks and tests of incrementality).
  int64_t rescored_leaves() const { return rescored_; }

 private:
  struct ShapeKey {
    int64_t cpu, mem;
    int32_t num_gpu, gpu_milli;
    ModelMask models;
    bool operator==(const ShapeKey&) const = default;
  };
  struct ShapeKeyHash {
    size_t operator()(const ShapeKey& k) const;
  };
  struct Index;

  Index& IndexFor(const PodRequest& pod);
  void Refresh(Index& index);
  int64_t LeafKey(NodeId id, const PodRequest& pod);
  NoFitCounts ExplainNoFit(const PodRequest& pod) const;

  ClusterState* cluster_;
  PlacementPolicy* policy_;
  Rng* rng_;
  PlacerOptions options_;
  int leaves_ = 1;  // Power of two >= cluster size.
  uint64_t epoch_ = 0;
  std::unordered_map<ShapeKey, std::unique_ptr<Index>, ShapeKeyHash> indexes_;
  std::vector<uint32_t> seen_;  // Dedupe stamps for Refresh.
  uint32_t stamp_ = 0;
  int64_t rescored_ = 0;
};

}  // namespace steward::place

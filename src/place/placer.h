// Placer: the placement engine. Finds the best node for a pod without scanning the cluster.
//
// For every distinct pod shape (CPU, memory, GPU count, GPU milli, MIG profile, allowed models,
// pool) it keeps a tournament tree over all nodes whose leaves hold (feasible?, score, rank)
// packed in one int64, so the best node is the root: O(1) to read, and the best node of any
// node range (a topology group) is O(log n). When nodes change (ClusterState's change log),
// only those leaves are rescored, O(log n) each, the next time that shape is asked for. A
// decision therefore costs O(changed nodes × log n) instead of O(nodes × GPUs); the FGD
// experiment's 10,866 decisions on 1,213 nodes touch ~40k leaves instead of 13M.
// Random selection uses per-subtree feasible counts to draw the k-th feasible node.
//
// Gangs (PlaceGang): the first time a shape is placed as a gang its index also keeps how many
// such pods each node could take, summed per subtree and per topology group (NVLink domain,
// leaf), with the groups in a max-tree and a (capacity, id) set, so "a group that can hold the
// whole gang" is O(log groups) and never a scan.
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
  // The same among nodes [range.begin, range.end) only (a topology group).
  Decision DecideIn(const PodRequest& pod, NodeRange range);
  // Decide, then bind the pod if it fits.
  Decision Place(const PodRequest& pod);

  // Places `count` pods like `pod` all-or-nothing and binds them; `out` gets one decision per
  // pod (empty on failure, when nothing stays bound). With a topology preference the whole gang
  // goes into one group if one can hold it: an NVLink domain then a leaf for kSameNvlinkDomain,
  // a leaf for kSameLeaf — the tightest such group, or the lowest-numbered one if the policy
  // does not pack groups (first-fit). Otherwise pods go one by one, each preferring the leaf of
  // the pod before it. Without a preference pods go one by one where the policy says.
  bool PlaceGang(const PodRequest& pod, int count, std::vector<Decision>* out);

  // How many pods like `pod` fit right now on all nodes together (Σ PodsThatFit).
  int64_t Capacity(const PodRequest& pod);
  // The group at `level` chosen for a gang of `count` pods like `pod` (see PlaceGang), or -1.
  int FindGroup(const PodRequest& pod, TopologyLevel level, int count);

  // Leaves rescored so far (for benchmarks and tests of incrementality).
  int64_t rescored_leaves() const { return rescored_; }

 private:
  struct ShapeKey {
    int64_t cpu, mem;
    int32_t num_gpu, gpu_milli;
    ModelMask models;
    int32_t pool, mig;
    ExtendedAmounts extended;
    bool operator==(const ShapeKey&) const = default;
  };
  struct ShapeKeyHash {
    size_t operator()(const ShapeKey& k) const;
  };
  struct Index;
  struct Groups;

  Index& IndexFor(const PodRequest& pod);
  // Brings `index` up to date with the change log and returns it.
  Index& Fresh(const PodRequest& pod);
  void Refresh(Index& index);
  void Rebuild(Index& index);
  void SetLeaf(Index& index, NodeId id);
  void EnableGangs(Index& index);
  int64_t LeafKey(NodeId id, const PodRequest& pod);
  Decision Pick(Index& index, const PodRequest& pod, NodeRange range);
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

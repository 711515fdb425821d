// PlacementPolicy: how one placement rule scores a node for a pod and picks GPUs inside it.
//
// Policies score, the engine walks (docs/style.md rule 8): the Placer filters nodes with
// Fits(), asks the policy for the score of each feasible node, and picks the highest score,
// breaking ties by the cluster's node rank. A policy never sees the whole cluster and never
// mutates it. Because Score() must be a pure function of (node state, pod) for a fixed
// ScoreEpoch(), the Placer caches scores per pod shape and rescores only nodes that changed.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "model/status.h"
#include "place/cluster_state.h"
#include "place/rng.h"

namespace steward::place {

// What a policy may know about the run before it starts.
struct PolicyContext {
  const ClusterState* cluster = nullptr;
  // The workload's pod population (for FGD: the original trace pods, clones excluded), from
  // which distribution-aware policies learn the typical pods. May be empty.
  std::span<const PodRequest> population;
};

class PlacementPolicy {
 public:
  enum class Selection {
    kHighestScore,   // Highest Score(), ties to the smallest rank.
    kUniformRandom,  // Any feasible node, uniformly (Score() is not called).
  };

  PlacementPolicy() = default;
  PlacementPolicy(const PlacementPolicy&) = delete;
  PlacementPolicy& operator=(const PlacementPolicy&) = delete;
  virtual ~PlacementPolicy() = default;

  virtual std::string_view Name() const = 0;
  virtual Status Prepare(const PolicyContext& /*context*/) { return Status::Ok(); }
  virtual Selection selection() const { return Selection::kHighestScore; }

  // Score of placing `pod` on `node`, higher is better; |score| < 2^40.
  // REQUIRES: Fits(node, pod). Must depend only on (node, pod) and ScoreEpoch().
  virtual int64_t Score(const NodeState& node, const PodRequest& pod) = 0;

  // The exact GPUs `pod` gets on the chosen node. REQUIRES: Fits(node, pod).
  // Default: the simulator's "best" choice (TightestGpus).
  virtual GpuList ChooseGpus(const NodeState& node, const PodRequest& pod, Rng& /*rng*/) {
    return TightestGpus(node, pod);
  }

  // Called for every arriving pod before it is placed (placed or not), for policies that
  // learn online. A policy whose scores change must bump ScoreEpoch().
  virtual void Observe(const PodRequest& /*pod*/) {}
  virtual uint64_t ScoreEpoch() const { return 0; }
  // True if the policy reads pods it could not know yet (lookahead); reported apart.
  virtual bool UsesFuture() const { return false; }
  // Gangs (Placer::PlaceGang): true = put a gang in the tightest topology group that holds it,
  // keeping emptier groups for bigger gangs; false = the lowest-numbered one (first-fit).
  virtual bool PacksGroups() const { return true; }
};

}  // namespace steward::place

// What the FGD-family policies share (fgd, fgd-bf, fgd-cpu*): the placements FGD tries for a
// pod on a node and the best of them under a policy's key (fgd-protocol.md §4.3).
//
// A sharing pod tries every GPU with room; GPUs with the same free milli give the same node
// state, so only the first of them is tried, and only a strictly better key replaces the best,
// so the lowest index wins ties. Any other pod (CPU-only, whole GPUs) is tried the way
// NodeResource.Sub places it: CPU taken, each GPU from the tightest that fits. When bound, a
// sharing pod gets the GPU that won and a whole-GPU pod the lowest-index fully free GPUs
// (AllocateExclusiveGpuId), which is TightestGpus.
#pragma once

#include <cmath>
#include <cstdint>

#include "place/node_state.h"

namespace steward::place::internal {

struct FgdChoice {
  int64_t key = 0;
  int gpu = -1;  // The sharing pod's GPU; -1 for other pods.
};

// The node after the sharing `pod` takes GPU `gpu`.
inline NodeState AfterOnGpu(const NodeState& node, const PodRequest& pod, int gpu) {
  NodeState after = node;
  after.cpu_free -= pod.cpu_milli;
  after.memory_free -= pod.memory_mib;
  after.gpu_free[gpu] = static_cast<int16_t>(after.gpu_free[gpu] - pod.gpu_milli);
  after.gpu_free_total -= pod.gpu_milli;
  return after;
}

// The best of FGD's candidate placements by `key(after)` (higher is better).
// REQUIRES: Fits(node, pod).
template <typename KeyFn>
FgdChoice BestFgdChoice(const NodeState& node, const PodRequest& pod, KeyFn key) {
  FgdChoice best;
  if (!pod.IsSharing()) {
    best.key = key(AfterTightest(node, pod));
    return best;
  }
  for (int i = 0; i < node.num_gpus; ++i) {
    if (node.gpu_free[i] < pod.gpu_milli) continue;
    bool dup = false;
    for (int j = 0; j < i && !dup; ++j) dup = node.gpu_free[j] == node.gpu_free[i];
    if (dup) continue;
    const int64_t k = key(AfterOnGpu(node, pod, i));
    if (best.gpu < 0 || k > best.key) best = FgdChoice{k, i};
  }
  return best;
}

// The GPUs a pod gets on the chosen node, given the choice that scored it.
inline GpuList FgdGpus(const NodeState& node, const PodRequest& pod, const FgdChoice& choice) {
  if (!pod.IsSharing()) return TightestGpus(node, pod);
  GpuList out;
  out.Add(choice.gpu);
  return out;
}

// FGD's node score for a fragmentation change Δ = F(after) − F(before), in milli-GPU:
// int(sigmoid(−Δ/1000) × 100), 50 when unchanged. The truncation makes every Δ within about
// ±40 milli land on the same integer, so many nodes tie.
inline int64_t FgdScore(double delta) {
  return static_cast<int64_t>(100.0 / (1.0 + std::exp(delta / 1000.0)));
}

}  // namespace steward::place::internal

// Binpack: the node left with the least free GPU capacity after the pod (milli-GPU), lowest
// index on ties: small pods fill partly used nodes and whole nodes stay whole for big jobs (the
// guide's Binpack rule; kube-scheduler's MostAllocated on nvidia.com/gpu). For whole-GPU pods
// this is "fewest fully free GPUs left"; a MIG pod that opens a fresh GPU leaves 1000 milli
// less, so it goes where a GPU is already carved when one has room and the node is as full.
#include <bit>

#include "place/policies/policies.h"

namespace steward::place::internal {
namespace {

class BinpackPolicy final : public PlacementPolicy {
 public:
  std::string_view Name() const override { return "binpack"; }
  int64_t Score(const NodeState& node, const PodRequest& pod) override {
    if (pod.IsMig()) {
      const int g = MigGpu(node, pod.mig_profile);
      const bool opens = node.mig_used[g] == 0;
      // Left after: fully free milli (a fresh GPU leaves the pool) and, below it, MIG slices.
      const int64_t left = node.gpu_free_total - (opens ? kMilliPerGpu : 0);
      return -(left * kMigMemorySlices + (kMigMemorySlices - std::popcount(node.mig_used[g]) -
                                          MigInfo(pod.mig_profile).memory_slices));
    }
    return -(node.gpu_free_total - pod.TotalGpuMilli());
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewBinpackPolicy() { return std::make_unique<BinpackPolicy>(); }

}  // namespace steward::place::internal

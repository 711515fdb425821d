// Random (fgd-protocol.md §6): any feasible node, uniformly; a sharing pod gets a uniformly
// chosen GPU among those that fit, a whole-GPU pod the lowest-index fully free GPUs.
#include "place/policies/policies.h"

namespace steward::place::internal {
namespace {

class RandomPolicy final : public PlacementPolicy {
 public:
  std::string_view Name() const override { return "random"; }
  Selection selection() const override { return Selection::kUniformRandom; }
  int64_t Score(const NodeState&, const PodRequest&) override { return 0; }
  GpuList ChooseGpus(const NodeState& node, const PodRequest& pod, Rng& rng) override {
    if (!pod.IsSharing()) return TightestGpus(node, pod);
    int fitting[kMaxGpusPerNode];
    int n = 0;
    for (int i = 0; i < node.num_gpus; ++i)
      if (node.gpu_free[i] >= pod.gpu_milli) fitting[n++] = i;
    GpuList out;
    if (n > 0) out.Add(fitting[rng.Uniform(static_cast<uint64_t>(n))]);
    return out;
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewRandomPolicy() { return std::make_unique<RandomPolicy>(); }

}  // namespace steward::place::internal

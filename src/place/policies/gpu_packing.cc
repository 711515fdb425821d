// GPU Packing (fgd-protocol.md §6), best first: (1) the pod fits on already partly used GPUs:
// 100 − (Σ free % of the GPUs it would use)/10, at least 50; (2) it needs fully free GPUs on
// a node with some GPU use: 50 − (#free GPUs used), at least 33; (3) the node is GPU-idle:
// max(33 − #GPUs, #GPUs). The GPUs it "would use" are the tightest that fit. CPU-only pods
// score 0 everywhere.
#include <algorithm>
#include <utility>

#include "place/policies/policies.h"

namespace steward::place::internal {
namespace {

class GpuPackingPolicy final : public PlacementPolicy {
 public:
  std::string_view Name() const override { return "packing"; }
  int64_t Score(const NodeState& node, const PodRequest& pod) override {
    if (pod.TotalGpuMilli() <= 0) return 0;
    const int fully_free = node.FullyFreeGpus();
    if (fully_free == node.num_gpus) return std::max<int64_t>(100 / 3 - fully_free, fully_free);
    // The tightest GPUs that fit, smallest free first.
    std::array<int16_t, kMaxGpusPerNode> g = node.gpu_free;
    for (int i = 1; i < node.num_gpus; ++i)  // Insertion sort of <= 8 values.
      for (int j = i; j > 0 && g[j - 1] > g[j]; --j) std::swap(g[j - 1], g[j]);
    int need = pod.num_gpu, fresh = 0;
    int64_t pct = 0;
    for (int i = 0; i < node.num_gpus && need > 0; ++i) {
      if (g[i] < pod.gpu_milli) continue;
      --need;
      if (g[i] == kMilliPerGpu) ++fresh;
      pct += int64_t{g[i]} * 100 / kMilliPerGpu;
    }
    if (fresh > 0) return std::max<int64_t>(100 / 2 - fresh, 100 / 3);
    return std::max<int64_t>(100 - pct / 10, 100 / 2);
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewGpuPackingPolicy() {
  return std::make_unique<GpuPackingPolicy>();
}

}  // namespace steward::place::internal

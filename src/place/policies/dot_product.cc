// DotProduct (Tetris-style alignment, fgd-protocol.md §6 with dimext=merge, norm=max): node
// vector (CPU free, GPU milli free) and pod vector (CPU, total GPU milli), both divided by the
// largest node (128 cores, 8 GPUs); score = int(100 × (1 − dot/2)). The smaller the overlap of
// free resources with the demand, the higher the score: a packing preference.
#include "place/policies/policies.h"

namespace steward::place::internal {
namespace {

constexpr double kMaxCpu = 128000;  // gpushareutils.MaxSpecCpu.
constexpr double kMaxGpu = 8000;    // gpushareutils.MaxSpecGpu.

class DotProductPolicy final : public PlacementPolicy {
 public:
  std::string_view Name() const override { return "dotprod"; }
  int64_t Score(const NodeState& node, const PodRequest& pod) override {
    double dot = (static_cast<double>(node.cpu_free) / kMaxCpu) *
                     (static_cast<double>(pod.cpu_milli) / kMaxCpu) +
                 (static_cast<double>(node.gpu_free_total) / kMaxGpu) *
                     (static_cast<double>(pod.TotalGpuMilli()) / kMaxGpu);
    return static_cast<int64_t>(100.0 * (1.0 - dot / 2.0));
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewDotProductPolicy() {
  return std::make_unique<DotProductPolicy>();
}

}  // namespace steward::place::internal

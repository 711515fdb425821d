// Best-Fit (fgd-protocol.md §6): the node with the least weighted leftover after placement,
// score = int(100 × (1 − [0.5·(CPU free − CPU)/128000 + 0.5·(GPU milli free − GPU)/8000])).
// The simulator then min-max normalises scores across feasible nodes; that is monotonic and
// maps exactly the top integer score to 100, so it never changes the winner and is skipped.
#include "place/policies/policies.h"

namespace steward::place::internal {
namespace {

class BestFitPolicy final : public PlacementPolicy {
 public:
  std::string_view Name() const override { return "bestfit"; }
  int64_t Score(const NodeState& node, const PodRequest& pod) override {
    double left = 0.5 * static_cast<double>(node.cpu_free - pod.cpu_milli) / 128000.0 +
                  0.5 * static_cast<double>(node.gpu_free_total - pod.TotalGpuMilli()) / 8000.0;
    return static_cast<int64_t>((1.0 - left) * 100.0);
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewBestFitPolicy() { return std::make_unique<BestFitPolicy>(); }

}  // namespace steward::place::internal

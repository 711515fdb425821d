// GPU Clustering (fgd-protocol.md §6): keep pods of one GPU shape together. Band 75-100 for a
// node holding only pods of the pod's shape, 50-75 for one holding that shape among others,
// 25-50 for a node without GPU pods, 0-25 for one holding only other shapes; inside the band
// + 25 × (8000 − idle milli) / 8000 in integer arithmetic, so fuller nodes rank higher.
// CPU-only pods score 0 everywhere (the tie-break order decides).
#include "place/policies/policies.h"

namespace steward::place::internal {
namespace {

constexpr int64_t kMaxSpecGpuMilli = 8000;

class GpuClusteringPolicy final : public PlacementPolicy {
 public:
  std::string_view Name() const override { return "clustering"; }
  int64_t Score(const NodeState& node, const PodRequest& pod) override {
    if (pod.num_gpu == 0) return 0;
    const int64_t fill = 100 / 4 * (kMaxSpecGpuMilli - node.gpu_free_total) / kMaxSpecGpuMilli;
    const int kinds = node.GpuShapeKinds();
    if (node.shape_pods[ShapeClass(pod)] > 0) return fill + (kinds == 1 ? 75 : 50);
    return fill + (kinds == 0 ? 25 : 0);
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewGpuClusteringPolicy() {
  return std::make_unique<GpuClusteringPolicy>();
}

}  // namespace steward::place::internal

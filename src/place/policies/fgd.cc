// FGD, Fragmentation Gradient Descent (Weng et al., ATC'23; fgd-protocol.md §4.3): place the
// pod where it increases the node's fragmentation F (measured against the workload's typical
// pods) the least. score = int(sigmoid((F before − F after)/1000) × 100). The placements tried
// and the GPUs bound are fgd_search.h's. The typical pods come from the whole workload
// (context.population), as in the paper: the distribution of pods that have not arrived yet.
#include <optional>

#include "place/fragmentation.h"
#include "place/policies/fgd_search.h"
#include "place/policies/policies.h"

namespace steward::place::internal {
namespace {

class FgdPolicy final : public PlacementPolicy {
 public:
  std::string_view Name() const override { return "fgd"; }

  Status Prepare(const PolicyContext& context) override {
    if (context.population.empty())
      return Status::FailedPrecondition("fgd needs the workload's pods to learn typical pods");
    frag_.emplace(TypicalPodsOf(context.population));
    return Status::Ok();
  }

  int64_t Score(const NodeState& node, const PodRequest& pod) override {
    return Best(node, pod).key;
  }

  GpuList ChooseGpus(const NodeState& node, const PodRequest& pod, Rng&) override {
    return FgdGpus(node, pod, Best(node, pod));
  }

 private:
  FgdChoice Best(const NodeState& node, const PodRequest& pod) {
    const double before = frag_->NodeFrag(node);
    return BestFgdChoice(node, pod, [&](const NodeState& after) {
      return FgdScore(frag_->NodeFrag(after) - before);
    });
  }

  std::optional<FragmentationModel> frag_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewFgdPolicy() { return std::make_unique<FgdPolicy>(); }

}  // namespace steward::place::internal

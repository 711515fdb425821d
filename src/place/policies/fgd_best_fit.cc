// fgd-bf (ours): FGD whose ties are broken by Best-Fit instead of by the random node order.
//
// FGD squeezes the fragmentation change Δ through int(sigmoid(−Δ/1000) × 100): every Δ within
// about ±40 milli-GPU lands on the same integer, so many nodes tie and the seed's random node
// order decides (the sharing pod's GPU, too, is the lowest index among tied GPUs). fgd-bf keeps
// FGD's integer score as the first key (ranking by the exact Δ instead is 1 point worse: the
// coarse band is a useful regulariser, docs/placement.md) and breaks node ties by Best-Fit's
// weighted leftover after placement, so among equally fragmenting nodes the fuller one wins.
// The leftover is the same for every GPU of a node, so a sharing pod's GPU is FGD's (lowest
// index among tied GPUs). Same typical pods (the whole workload's, as FGD) and memo as FGD.
#include <optional>

#include "place/fragmentation.h"
#include "place/policies/fgd_search.h"
#include "place/policies/policies.h"

namespace steward::place::internal {
namespace {

constexpr int kFineBits = 12;

class FgdBestFitPolicy final : public PlacementPolicy {
 public:
  std::string_view Name() const override { return "fgd-bf"; }

  Status Prepare(const PolicyContext& context) override {
    if (context.population.empty())
      return Status::FailedPrecondition("fgd-bf needs the workload's pods to learn typical pods");
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
  // FGD's integer score in the high bits, Best-Fit's leftover (0..4095) in the low bits.
  int64_t Combined(double before, const NodeState& after) {
    const int64_t fgd = FgdScore(frag_->NodeFrag(after) - before);
    const double left = 0.5 * static_cast<double>(after.cpu_free) / 128000.0 +
                        0.5 * static_cast<double>(after.gpu_free_total) / 8000.0;
    const double clamped = left < 0 ? 0 : (left > 1 ? 1 : left);
    const int64_t fine = static_cast<int64_t>((1.0 - clamped) * ((1 << kFineBits) - 1));
    return fgd * (int64_t{1} << kFineBits) + fine;
  }

  FgdChoice Best(const NodeState& node, const PodRequest& pod) {
    const double before = frag_->NodeFrag(node);
    return BestFgdChoice(node, pod,
                         [&](const NodeState& after) { return Combined(before, after); });
  }

  std::optional<FragmentationModel> frag_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewFgdBestFitPolicy() {
  return std::make_unique<FgdBestFitPolicy>();
}

}  // namespace steward::place::internal

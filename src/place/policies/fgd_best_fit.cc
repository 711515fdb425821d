// fgd-bf (ours): FGD whose ties are broken by Best-Fit instead of by the random node order.
//
// FGD squeezes the fragmentation change Δ through int(sigmoid(−Δ/1000) × 100): every Δ within
// about ±40 milli-GPU lands on the same integer, so many nodes tie and the seed's random node
// order decides (the sharing pod's GPU, too, is the lowest index among tied GPUs). fgd-bf keeps
// FGD's integer score as the first key (ranking by the exact Δ instead is 1 point worse: the
// coarse band is a useful regulariser, docs/placement.md) and breaks its ties, for the node
// and for the GPU, by Best-Fit's weighted leftover after placement, so among equally
// fragmenting choices the fuller node / tighter GPU wins. Same typical pods and memo as FGD,
// so it costs what FGD costs per decision. Knows nothing about future pods.
#include <cmath>
#include <optional>

#include "place/fragmentation.h"
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
    return Best(node, pod).score;
  }

  GpuList ChooseGpus(const NodeState& node, const PodRequest& pod, Rng&) override {
    if (!pod.IsSharing()) return TightestGpus(node, pod);
    GpuList out;
    out.Add(Best(node, pod).gpu);
    return out;
  }

 private:
  struct Choice {
    int64_t score = 0;
    int gpu = -1;
  };

  // FGD's integer score in the high bits, Best-Fit's leftover (0..4095) in the low bits.
  int64_t Combined(double before, const NodeState& after) {
    const double delta = frag_->NodeFrag(after) - before;  // Lower is better.
    const int64_t fgd = static_cast<int64_t>(100.0 / (1.0 + std::exp(delta / 1000.0)));
    const double left = 0.5 * static_cast<double>(after.cpu_free) / 128000.0 +
                        0.5 * static_cast<double>(after.gpu_free_total) / 8000.0;
    const double clamped = left < 0 ? 0 : (left > 1 ? 1 : left);
    const int64_t fine = static_cast<int64_t>((1.0 - clamped) * ((1 << kFineBits) - 1));
    return fgd * (int64_t{1} << kFineBits) + fine;
  }

  Choice Best(const NodeState& node, const PodRequest& pod) {
    const double before = frag_->NodeFrag(node);
    Choice best;
    if (!pod.IsSharing()) {
      best.score = Combined(before, AfterTightest(node, pod));
      return best;
    }
    for (int i = 0; i < node.num_gpus; ++i) {
      if (node.gpu_free[i] < pod.gpu_milli) continue;
      bool dup = false;
      for (int j = 0; j < i && !dup; ++j) dup = node.gpu_free[j] == node.gpu_free[i];
      if (dup) continue;
      NodeState after = node;
      after.cpu_free -= pod.cpu_milli;
      after.gpu_free[i] = static_cast<int16_t>(after.gpu_free[i] - pod.gpu_milli);
      after.gpu_free_total -= pod.gpu_milli;
      int64_t s = Combined(before, after);
      if (best.gpu < 0 || s > best.score) best = Choice{s, i};
    }
    return best;
  }

  std::optional<FragmentationModel> frag_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewFgdBestFitPolicy() {
  return std::make_unique<FgdBestFitPolicy>();
}

}  // namespace steward::place::internal

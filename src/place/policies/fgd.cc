// FGD, Fragmentation Gradient Descent (Weng et al., ATC'23; fgd-protocol.md §4.3): place the
// pod where it increases the node's fragmentation F (measured against the workload's typical
// pods) the least. score = int(sigmoid((F before − F after)/1000) × 100). A sharing pod tries
// every GPU with room and keeps the best (strictly better only, so the lowest index wins
// ties of the integer score); other pods take the tightest GPUs (NodeResource.Sub) for the
// score and the lowest-index fully free GPUs when bound (AllocateExclusiveGpuId).
#include <cmath>
#include <optional>

#include "place/fragmentation.h"
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
  static int64_t ScoreOf(double delta_reduction) {
    return static_cast<int64_t>(100.0 / (1.0 + std::exp(-delta_reduction / 1000.0)));
  }

  Choice Best(const NodeState& node, const PodRequest& pod) {
    const double before = frag_->NodeFrag(node);
    Choice best;
    if (!pod.IsSharing()) {
      best.score = ScoreOf(before - frag_->NodeFrag(AfterTightest(node, pod)));
      return best;
    }
    for (int i = 0; i < node.num_gpus; ++i) {
      if (node.gpu_free[i] < pod.gpu_milli) continue;
      // GPUs with the same free milli give the same F after: only the first is tried.
      bool dup = false;
      for (int j = 0; j < i && !dup; ++j) dup = node.gpu_free[j] == node.gpu_free[i];
      if (dup) continue;
      NodeState after = node;
      after.cpu_free -= pod.cpu_milli;
      after.gpu_free[i] = static_cast<int16_t>(after.gpu_free[i] - pod.gpu_milli);
      after.gpu_free_total -= pod.gpu_milli;
      int64_t s = ScoreOf(before - frag_->NodeFrag(after));
      if (best.gpu < 0 || s > best.score) best = Choice{s, i};
    }
    return best;
  }

  std::optional<FragmentationModel> frag_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewFgdPolicy() { return std::make_unique<FgdPolicy>(); }

}  // namespace steward::place::internal

// fgd-cpu and fgd-cpu-online (ours), and fgd-online (a control): FGD whose fragmentation also
// counts the GPU capacity that a node's CPU and memory can no longer feed.
//
// FGD's F(n) sees a node's CPU only once it drops below a typical pod's request, and a
// CPU-only pod changes F by less than one score step almost everywhere, so it lands on a tied
// node in random order. On the Alibaba trace that strands GPUs: when FGD's run ends on the
// default trace, 110 of its 286 idle GPUs (38%) sit on nodes with < 4 free cores, mostly
// 8-GPU G2 nodes (96 cores), while the 104-core 2-GPU T4 nodes keep ~11,000 cores free
// (mean of seeds 42-51, bench/place_idle, docs/placement.md). fgd-cpu scores by the change of
//   L(n) = F(n) + S(n),  S(n) = max(0, gpu_free − cpu_free / c, gpu_free − mem_free / m)
// where c and m are the workload's CPU and memory per milli-GPU (ratio of sums over its GPU
// pods): S is the GPU milli the node's free CPU or memory cannot feed at the workload's
// ratios. One stranded milli weighs as one fragmented milli; FGD's integer sigmoid, ties and
// GPU choice are unchanged (fgd_search.h).
//
// What each variant knows: fgd-cpu learns the typical pods and c, m from the whole workload
// (context.population) before the first pod, as FGD does — the distribution of pods that have
// not arrived yet (not their order). fgd-cpu-online learns them from the arrived pods only
// (Observe), so it needs no knowledge a live scheduler lacks. A relearn makes the Placer
// rescore every node for every pod shape it sees again, so it relearns when the count of
// arrived pods reaches 1, 16, 256, 4096, ... (each estimate from 16× the pods of the last).
// On the default trace that costs 54.5 node scores per decision against FGD's 36.8
// (bench/place_decisions); relearning at every ×4 (×2) costs 63.9 (89.3) and allocates the
// same (mean gain over FGD on the 17 workloads +0.705 and +0.704 points vs +0.704).
// fgd-online is FGD learned online without S, the control that separates the two changes.
#include <algorithm>
#include <optional>

#include "place/fragmentation.h"
#include "place/policies/fgd_search.h"
#include "place/policies/policies.h"

namespace steward::place::internal {
namespace {

constexpr int64_t kRelearnFactor = 16;

struct FgdCpuOptions {
  std::string_view name;
  bool stranding = true;  // Add S(n) to F(n).
  bool online = false;    // Learn from arrived pods instead of the whole workload.
};

class FgdCpuPolicy final : public PlacementPolicy {
 public:
  explicit FgdCpuPolicy(FgdCpuOptions options) : options_(options) {}

  std::string_view Name() const override { return options_.name; }

  Status Prepare(const PolicyContext& context) override {
    if (!options_.online) {
      if (context.population.empty())
        return Status::FailedPrecondition(
            "needs the workload's pods to learn typical pods (or use the -online variant)");
      for (const PodRequest& p : context.population) Count(p);
    }
    Relearn();
    return Status::Ok();
  }

  void Observe(const PodRequest& pod) override {
    if (!options_.online) return;
    Count(pod);
    if (++arrived_ == next_relearn_) {
      next_relearn_ *= kRelearnFactor;
      Relearn();
    }
  }
  uint64_t ScoreEpoch() const override { return epoch_; }

  int64_t Score(const NodeState& node, const PodRequest& pod) override {
    return Best(node, pod).key;
  }

  GpuList ChooseGpus(const NodeState& node, const PodRequest& pod, Rng&) override {
    return FgdGpus(node, pod, Best(node, pod));
  }

 private:
  void Count(const PodRequest& pod) {
    specs_.Add(pod);
    if (pod.num_gpu == 0) return;
    cpu_sum_ += static_cast<double>(pod.cpu_milli);
    memory_sum_ += static_cast<double>(pod.memory_mib);
    gpu_milli_sum_ += static_cast<double>(pod.TotalGpuMilli());
  }

  void Relearn() {
    frag_.emplace(specs_.Typical());
    cpu_per_milli_ = gpu_milli_sum_ > 0 ? cpu_sum_ / gpu_milli_sum_ : 0;
    memory_per_milli_ = gpu_milli_sum_ > 0 ? memory_sum_ / gpu_milli_sum_ : 0;
    ++epoch_;
  }

  // GPU milli on the node that its free CPU or memory cannot feed at the learned ratios.
  double Stranded(const NodeState& n) const {
    const double gpu = static_cast<double>(n.gpu_free_total);
    double s = 0;
    if (cpu_per_milli_ > 0) s = std::max(s, gpu - static_cast<double>(n.cpu_free) / cpu_per_milli_);
    if (memory_per_milli_ > 0)
      s = std::max(s, gpu - static_cast<double>(n.memory_free) / memory_per_milli_);
    return s;
  }

  double Loss(const NodeState& n) {
    return frag_->NodeFrag(n) + (options_.stranding ? Stranded(n) : 0.0);
  }

  FgdChoice Best(const NodeState& node, const PodRequest& pod) {
    const double before = Loss(node);
    return BestFgdChoice(node, pod,
                         [&](const NodeState& after) { return FgdScore(Loss(after) - before); });
  }

  FgdCpuOptions options_;
  PodSpecCounts specs_;
  double cpu_sum_ = 0, memory_sum_ = 0, gpu_milli_sum_ = 0;  // Over GPU pods.
  double cpu_per_milli_ = 0, memory_per_milli_ = 0;          // 0 = not known yet.
  std::optional<FragmentationModel> frag_;
  int64_t arrived_ = 0;
  int64_t next_relearn_ = 1;
  uint64_t epoch_ = 0;
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewFgdCpuPolicy() {
  return std::make_unique<FgdCpuPolicy>(FgdCpuOptions{"fgd-cpu", true, false});
}
std::unique_ptr<PlacementPolicy> NewFgdCpuOnlinePolicy() {
  return std::make_unique<FgdCpuPolicy>(FgdCpuOptions{"fgd-cpu-online", true, true});
}
std::unique_ptr<PlacementPolicy> NewFgdOnlinePolicy() {
  return std::make_unique<FgdCpuPolicy>(FgdCpuOptions{"fgd-online", false, true});
}

}  // namespace steward::place::internal

#include "place/fragmentation.h"

#include <algorithm>

namespace steward::place {

void PodSpecCounts::Add(const PodRequest& p, double gpu_res_weight) {
  // GetNonzeroRequests: a zero CPU request counts as 100m.
  int64_t cpu = p.cpu_milli == 0 ? 100 : p.cpu_milli;
  double w = 1;
  if (gpu_res_weight > 0 && p.gpu_milli == kMilliPerGpu) w += p.num_gpu * gpu_res_weight;
  counts_[{cpu, p.gpu_milli, p.num_gpu, p.allowed_models}] += w;
  total_ += w;
}

std::vector<TypicalPod> PodSpecCounts::Typical(double threshold) const {
  std::vector<std::pair<Spec, double>> sorted(counts_.begin(), counts_.end());
  // std::map iterates specs in ascending order, so a stable sort by count keeps smaller specs
  // first among equal counts.
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  const double expected = threshold * total_;
  double cum = 0;
  size_t taken = 0;
  while (taken < sorted.size() && cum < expected) cum += sorted[taken++].second;
  std::vector<TypicalPod> out;
  for (size_t i = 0; i < taken; ++i) {
    TypicalPod t;
    auto [cpu, milli, num, models] = sorted[i].first;
    t.pod.cpu_milli = cpu;
    t.pod.gpu_milli = milli;
    t.pod.num_gpu = num;
    t.pod.allowed_models = models;
    t.weight = sorted[i].second / cum;
    out.push_back(t);
  }
  return out;
}

std::vector<TypicalPod> TypicalPodsOf(std::span<const PodRequest> population, double threshold,
                                      double gpu_res_weight) {
  PodSpecCounts counts;
  for (const PodRequest& p : population) counts.Add(p, gpu_res_weight);
  return counts.Typical(threshold);
}

FragmentationModel::FragmentationModel(std::vector<TypicalPod> typical)
    : typical_(std::move(typical)), slots_(1 << 12) {}

double FragmentationModel::ComputeNodeFrag(const NodeState& node) const {
  int64_t idle = 0;
  for (int i = 0; i < node.num_gpus; ++i) idle += node.gpu_free[i];
  if (idle == 0) return 0;
  double f = 0;
  for (const TypicalPod& t : typical_) {
    const PodRequest& m = t.pod;
    int64_t frag = idle;
    if (m.num_gpu > 0 && m.AllowsModel(node.model) && node.cpu_free >= m.cpu_milli) {
      int fit = 0;
      int64_t below = 0;
      for (int i = 0; i < node.num_gpus; ++i) {
        if (node.gpu_free[i] >= m.gpu_milli)
          ++fit;
        else
          below += node.gpu_free[i];
      }
      if (fit >= m.num_gpu) frag = below;  // q3: only GPUs too small for m are fragment.
    }
    f += t.weight * static_cast<double>(frag);
  }
  return f;
}

double FragmentationModel::NodeFrag(const NodeState& node) {
  if (node.gpu_free_total == 0) return 0;
  // Exact key of the fragmentation-relevant state, with the GPU frees sorted (F does not
  // depend on which GPU is which): a = 1 (bit 63, marks a used slot) | model (6 bits) |
  // num_gpus (4) | frees 6..7 (2 x 10) | cpu_free (33 bits); b = frees 0..5 (6 x 10).
  if (node.cpu_free >= (int64_t{1} << 33) || node.cpu_free < 0 || node.model >= 64 ||
      node.num_gpus > 8)  // The key packs at most 8 GPUs.
    return ComputeNodeFrag(node);
  std::array<int16_t, kMaxGpusPerNode> g = node.gpu_free;
  for (int i = 1; i < node.num_gpus; ++i) {  // Insertion sort of <= 8 values.
    int16_t v = g[i];
    int j = i - 1;
    while (j >= 0 && g[j] > v) {
      g[j + 1] = g[j];
      --j;
    }
    g[j + 1] = v;
  }
  uint64_t b = 0, c = 0;
  for (int i = 0; i < node.num_gpus; ++i) {
    if (i < 6)
      b |= static_cast<uint64_t>(g[i]) << (10 * i);
    else
      c |= static_cast<uint64_t>(g[i]) << (10 * (i - 6));
  }
  const uint64_t a = (uint64_t{1} << 63) | (static_cast<uint64_t>(node.model) << 57) |
                     (static_cast<uint64_t>(node.num_gpus) << 53) | (c << 33) |
                     static_cast<uint64_t>(node.cpu_free);
  if (used_ > (size_t{1} << 22)) {  // Bound the memo (a long twin run): start over.
    slots_.assign(1 << 12, Slot{});
    used_ = 0;
  }

  uint64_t h = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x7F4A7C159E3779B9ULL) * 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 29;
  size_t mask = slots_.size() - 1;
  size_t i = static_cast<size_t>(h) & mask;
  while (slots_[i].a != 0) {
    if (slots_[i].a == a && slots_[i].b == b) return slots_[i].value;
    i = (i + 1) & mask;
  }
  double v = ComputeNodeFrag(node);
  slots_[i] = Slot{a, b, v};
  if (++used_ * 2 > slots_.size()) Grow();
  return v;
}

void FragmentationModel::Grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.a == 0) continue;
    uint64_t h =
        s.a * 0x9E3779B97F4A7C15ULL ^ (s.b + 0x7F4A7C159E3779B9ULL) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
    size_t i = static_cast<size_t>(h) & mask;
    while (slots_[i].a != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

}  // namespace steward::place

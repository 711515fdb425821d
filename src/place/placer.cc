#include "place/placer.h"

#include <fmt/format.h>

#include <limits>

namespace steward::place {
namespace {

// Leaf key layout: score in the high bits, (max rank - rank) in the low 21 bits, so a larger
// key is a higher score, then a smaller rank. Infeasible nodes are kInfeasible.
constexpr int kRankBits = 21;
constexpr int64_t kRankMask = (int64_t{1} << kRankBits) - 1;
constexpr int64_t kInfeasible = std::numeric_limits<int64_t>::min();

}  // namespace

struct Placer::Index {
  PodRequest pod;
  size_t log_pos = 0;
  uint64_t epoch = 0;
  std::vector<int64_t> best;   // Tournament tree, 1-based; leaves at [leaves, 2*leaves).
  std::vector<int32_t> count;  // Feasible nodes per subtree (Random only).
};

size_t Placer::ShapeKeyHash::operator()(const ShapeKey& k) const {
  uint64_t h = static_cast<uint64_t>(k.cpu) * 0x9E3779B97F4A7C15ULL;
  h ^= static_cast<uint64_t>(k.mem) + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
  h ^= (static_cast<uint64_t>(k.num_gpu) << 32 | static_cast<uint32_t>(k.gpu_milli)) +
       0x85EBCA77C2B2AE63ULL + (h << 6) + (h >> 2);
  h ^= k.models + 0xC2B2AE3D27D4EB4FULL + (h << 6) + (h >> 2);
  return static_cast<size_t>(h);
}

Placer::Placer(ClusterState* cluster, PlacementPolicy* policy, Rng* rng, PlacerOptions options)
    : cluster_(cluster), policy_(policy), rng_(rng), options_(options) {
  STEWARD_CHECK(cluster_->size() <= kRankMask);
  while (leaves_ < cluster_->size()) leaves_ *= 2;
  seen_.assign(cluster_->size(), 0);
}

Placer::~Placer() = default;

int64_t Placer::LeafKey(NodeId id, const PodRequest& pod) {
  ++rescored_;
  const NodeState& n = cluster_->node(id);
  if (!Fits(n, pod)) return kInfeasible;
  if (policy_->selection() == PlacementPolicy::Selection::kUniformRandom) return 0;
  int64_t score = policy_->Score(n, pod);
  return score * (int64_t{1} << kRankBits) + (kRankMask - cluster_->rank(id));
}

Placer::Index& Placer::IndexFor(const PodRequest& pod) {
  ShapeKey key{pod.cpu_milli, pod.memory_mib, pod.num_gpu, pod.gpu_milli, pod.allowed_models};
  auto it = indexes_.find(key);
  if (it != indexes_.end()) return *it->second;
  if (static_cast<int>(indexes_.size()) >= options_.max_shapes) indexes_.clear();
  auto index = std::make_unique<Index>();
  index->pod = pod;
  index->best.assign(2 * leaves_, kInfeasible);
  const bool random = policy_->selection() == PlacementPolicy::Selection::kUniformRandom;
  if (random) index->count.assign(2 * leaves_, 0);
  // Full build: every leaf, then the inner nodes bottom-up, O(n).
  for (NodeId id = 0; id < cluster_->size(); ++id) {
    int64_t k = LeafKey(id, pod);
    index->best[leaves_ + id] = k;
    if (random) index->count[leaves_ + id] = k != kInfeasible;
  }
  for (int i = leaves_ - 1; i >= 1; --i) {
    index->best[i] = std::max(index->best[2 * i], index->best[2 * i + 1]);
    if (random) index->count[i] = index->count[2 * i] + index->count[2 * i + 1];
  }
  index->log_pos = cluster_->change_log().size();
  index->epoch = epoch_;
  return *indexes_.emplace(key, std::move(index)).first->second;
}

void Placer::Refresh(Index& index) {
  const std::vector<NodeId>& log = cluster_->change_log();
  const bool random = !index.count.empty();
  if (index.epoch != epoch_) {
    // The policy's scores changed wholesale: rescore every node.
    index.epoch = epoch_;
    for (NodeId id = 0; id < cluster_->size(); ++id)
      index.best[leaves_ + id] = LeafKey(id, index.pod);
    for (int i = leaves_ - 1; i >= 1; --i) {
      index.best[i] = std::max(index.best[2 * i], index.best[2 * i + 1]);
    }
    if (random) {
      for (NodeId id = 0; id < cluster_->size(); ++id)
        index.count[leaves_ + id] = index.best[leaves_ + id] != kInfeasible;
      for (int i = leaves_ - 1; i >= 1; --i)
        index.count[i] = index.count[2 * i] + index.count[2 * i + 1];
    }
    index.log_pos = log.size();
    return;
  }
  if (index.log_pos == log.size()) return;
  ++stamp_;
  if (stamp_ == 0) {
    seen_.assign(seen_.size(), 0);
    stamp_ = 1;
  }
  for (size_t p = index.log_pos; p < log.size(); ++p) {
    NodeId id = log[p];
    if (seen_[id] == stamp_) continue;
    seen_[id] = stamp_;
    int i = leaves_ + id;
    int64_t k = LeafKey(id, index.pod);
    index.best[i] = k;
    if (random) index.count[i] = k != kInfeasible;
    for (i /= 2; i >= 1; i /= 2) {
      index.best[i] = std::max(index.best[2 * i], index.best[2 * i + 1]);
      if (random) index.count[i] = index.count[2 * i] + index.count[2 * i + 1];
    }
  }
  index.log_pos = log.size();
}

Decision Placer::Decide(const PodRequest& pod) {
  uint64_t epoch = policy_->ScoreEpoch();
  if (epoch != epoch_) epoch_ = epoch;
  Index& index = IndexFor(pod);
  Refresh(index);
  Decision d;
  if (index.best[1] == kInfeasible) {
    d.why = ExplainNoFit(pod);
    return d;
  }
  NodeId id;
  if (!index.count.empty()) {
    // k-th feasible leaf, k uniform.
    int k = static_cast<int>(rng_->Uniform(static_cast<uint64_t>(index.count[1])));
    int i = 1;
    while (i < leaves_) {
      if (k < index.count[2 * i]) {
        i = 2 * i;
      } else {
        k -= index.count[2 * i];
        i = 2 * i + 1;
      }
    }
    id = i - leaves_;
  } else {
    int i = 1;
    while (i < leaves_) i = index.best[2 * i] == index.best[i] ? 2 * i : 2 * i + 1;
    id = i - leaves_;
  }
  d.mode = Decision::Mode::kFit;
  d.node = id;
  d.gpus = policy_->ChooseGpus(cluster_->node(id), pod, *rng_);
  return d;
}

Decision Placer::Place(const PodRequest& pod) {
  Decision d = Decide(pod);
  if (d.fits()) cluster_->Apply(d.node, pod, d.gpus);
  return d;
}

NoFitCounts Placer::ExplainNoFit(const PodRequest& pod) const {
  // Only on failure, so a full scan is acceptable here.
  NoFitCounts c;
  c.nodes = cluster_->size();
  for (NodeId id = 0; id < cluster_->size(); ++id) {
    const NodeState& n = cluster_->node(id);
    if (n.cpu_free < pod.cpu_milli)
      ++c.cpu;
    else if (n.memory_free < pod.memory_mib)
      ++c.memory;
    else if (n.pods >= n.max_pods)
      ++c.pod_slots;
    else if (pod.num_gpu > 0 && (n.num_gpus == 0 || !pod.AllowsModel(n.model)))
      ++c.no_gpu_or_model;
    else if (pod.num_gpu > 0 && n.GpusWithFree(pod.gpu_milli) < pod.num_gpu)
      ++c.gpu;
  }
  return c;
}

std::string Decision::Reason(const PodRequest& pod) const {
  if (fits()) return "fits";
  return fmt::format(
      "no node fits {}m CPU, {} MiB, {}x{}m GPU: of {} nodes, {} lack CPU, {} lack memory, {} "
      "are full of pods, {} have no GPU of an allowed model, {} lack free GPUs",
      pod.cpu_milli, pod.memory_mib, pod.num_gpu, pod.gpu_milli, why.nodes, why.cpu, why.memory,
      why.pod_slots, why.no_gpu_or_model, why.gpu);
}

}  // namespace steward::place

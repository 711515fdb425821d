#include "place/placer.h"

#include <fmt/format.h>

#include <array>
#include <climits>
#include <limits>
#include <set>
#include <utility>

namespace steward::place {
namespace {

// Leaf key layout: score in the high bits, (max rank - rank) in the low 21 bits, so a larger
// key is a higher score, then a smaller rank. Infeasible nodes are kInfeasible.
constexpr int kRankBits = 21;
constexpr int64_t kRankMask = (int64_t{1} << kRankBits) - 1;
constexpr int64_t kInfeasible = std::numeric_limits<int64_t>::min();

}  // namespace

// Per topology level: how many pods of the index's shape each group could take, with a max-tree
// over groups (lowest-numbered group with room for k) and an ordered set (tightest group).
struct Placer::Groups {
  struct Level {
    std::vector<int32_t> cap;
    int size = 1;
    std::vector<int32_t> max;
    std::set<std::pair<int32_t, int32_t>> by_cap;  // (cap, group) of groups with cap > 0.

    void Init(int groups) {
      cap.assign(groups, 0);
      size = 1;
      while (size < groups) size *= 2;
      max.assign(2 * size, 0);
      by_cap.clear();
    }
    void Add(int g, int32_t delta) {
      if (cap[g] > 0) by_cap.erase({cap[g], g});
      cap[g] += delta;
      if (cap[g] > 0) by_cap.insert({cap[g], g});
      int i = size + g;
      max[i] = cap[g];
      for (i /= 2; i >= 1; i /= 2) max[i] = std::max(max[2 * i], max[2 * i + 1]);
    }
    int Leftmost(int32_t at_least) const {
      if (max[1] < at_least) return -1;
      int i = 1;
      while (i < size) i = max[2 * i] >= at_least ? 2 * i : 2 * i + 1;
      return i - size;
    }
    int Tightest(int32_t at_least) const {
      auto it = by_cap.lower_bound({at_least, INT_MIN});
      return it == by_cap.end() ? -1 : it->second;
    }
  };
  std::array<Level, 2> level;  // [TopologyLevel]
  std::array<bool, 2> kept{};  // Levels are kept once asked for (FindGroup).
  std::vector<int32_t> node_cap;
  int64_t total = 0;
};

struct Placer::Index {
  PodRequest pod;
  size_t log_pos = 0;
  uint64_t epoch = 0;
  std::vector<int64_t> best;       // Tournament tree, 1-based; leaves at [leaves, 2*leaves).
  std::vector<int32_t> count;      // Feasible nodes per subtree (Random only).
  std::unique_ptr<Groups> groups;  // Gang capacities, once the shape is placed as a gang.
};

size_t Placer::ShapeKeyHash::operator()(const ShapeKey& k) const {
  uint64_t h = static_cast<uint64_t>(k.cpu) * 0x9E3779B97F4A7C15ULL;
  h ^= static_cast<uint64_t>(k.mem) + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
  h ^= (static_cast<uint64_t>(k.num_gpu) << 32 | static_cast<uint32_t>(k.gpu_milli)) +
       0x85EBCA77C2B2AE63ULL + (h << 6) + (h >> 2);
  h ^= k.models + 0xC2B2AE3D27D4EB4FULL + (h << 6) + (h >> 2);
  h ^= (static_cast<uint64_t>(static_cast<uint32_t>(k.pool)) << 8 | static_cast<uint32_t>(k.mig)) +
       0x27D4EB2F165667C5ULL + (h << 6) + (h >> 2);
  for (int32_t e : k.extended)
    h ^= static_cast<uint64_t>(static_cast<uint32_t>(e)) + 0x165667B19E3779F9ULL + (h << 6) +
         (h >> 2);
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
  ShapeKey key{pod.cpu_milli,      pod.memory_mib, pod.num_gpu,     pod.gpu_milli,
               pod.allowed_models, pod.pool,       pod.mig_profile, pod.extended};
  auto it = indexes_.find(key);
  if (it != indexes_.end()) return *it->second;
  if (static_cast<int>(indexes_.size()) >= options_.max_shapes) indexes_.clear();
  auto index = std::make_unique<Index>();
  index->pod = pod;
  index->best.assign(2 * leaves_, kInfeasible);
  if (policy_->selection() == PlacementPolicy::Selection::kUniformRandom)
    index->count.assign(2 * leaves_, 0);
  index->epoch = epoch_;
  Rebuild(*index);
  return *indexes_.emplace(key, std::move(index)).first->second;
}

void Placer::Rebuild(Index& index) {
  // Every leaf, then the inner nodes bottom-up, O(n).
  const bool random = !index.count.empty();
  for (NodeId id = 0; id < cluster_->size(); ++id) {
    const int64_t k = LeafKey(id, index.pod);
    index.best[leaves_ + id] = k;
    if (random) index.count[leaves_ + id] = k != kInfeasible;
  }
  for (int i = leaves_ - 1; i >= 1; --i) {
    index.best[i] = std::max(index.best[2 * i], index.best[2 * i + 1]);
    if (random) index.count[i] = index.count[2 * i] + index.count[2 * i + 1];
  }
  if (index.groups) {
    Groups& g = *index.groups;
    for (int l = 0; l < 2; ++l)
      if (g.kept[l]) g.level[l].Init(cluster_->num_groups(static_cast<TopologyLevel>(l)));
    g.node_cap.assign(cluster_->size(), 0);
    g.total = 0;
    for (NodeId id = 0; id < cluster_->size(); ++id) {
      if (index.best[leaves_ + id] == kInfeasible) continue;
      const int32_t c = PodsThatFit(cluster_->node(id), index.pod);
      g.node_cap[id] = c;
      g.total += c;
      for (int l = 0; l < 2; ++l)
        if (g.kept[l]) g.level[l].Add(cluster_->group_of(static_cast<TopologyLevel>(l), id), c);
    }
  }
  index.log_pos = cluster_->log_end();
}

void Placer::SetLeaf(Index& index, NodeId id) {
  int i = leaves_ + id;
  const int64_t k = LeafKey(id, index.pod);
  index.best[i] = k;
  const bool random = !index.count.empty();
  if (random) index.count[i] = k != kInfeasible;
  // Up the tree until a node's value stays the same: its ancestors then do too (most changes
  // stop within a level or two, where the sibling subtrees' best still wins).
  for (i /= 2; i >= 1; i /= 2) {
    const int64_t best = std::max(index.best[2 * i], index.best[2 * i + 1]);
    if (random) {
      const auto count = index.count[2 * i] + index.count[2 * i + 1];
      if (best == index.best[i] && count == index.count[i]) break;
      index.count[i] = count;
    } else if (best == index.best[i]) {
      break;
    }
    index.best[i] = best;
  }
  if (index.groups) {
    Groups& g = *index.groups;
    const int32_t c = k == kInfeasible ? 0 : PodsThatFit(cluster_->node(id), index.pod);
    const int32_t delta = c - g.node_cap[id];
    if (delta != 0) {
      g.node_cap[id] = c;
      g.total += delta;
      for (int l = 0; l < 2; ++l)
        if (g.kept[l]) g.level[l].Add(cluster_->group_of(static_cast<TopologyLevel>(l), id), delta);
    }
  }
}

void Placer::Refresh(Index& index) {
  const size_t end = cluster_->log_end();
  if (index.epoch != epoch_ || index.log_pos < cluster_->log_begin() ||
      end - index.log_pos > static_cast<size_t>(cluster_->size())) {
    // The policy's scores changed wholesale, or more nodes may have changed than there are
    // (or the log moved past us): rescore every node.
    index.epoch = epoch_;
    Rebuild(index);
    return;
  }
  if (index.log_pos == end) return;
  ++stamp_;
  if (stamp_ == 0) {
    seen_.assign(seen_.size(), 0);
    stamp_ = 1;
  }
  for (size_t p = index.log_pos; p < end; ++p) {
    const NodeId id = cluster_->logged(p);
    if (seen_[id] == stamp_) continue;
    seen_[id] = stamp_;
    SetLeaf(index, id);
  }
  index.log_pos = end;
}

Placer::Index& Placer::Fresh(const PodRequest& pod) {
  const uint64_t epoch = policy_->ScoreEpoch();
  if (epoch != epoch_) epoch_ = epoch;
  Index& index = IndexFor(pod);
  Refresh(index);
  return index;
}

Decision Placer::Pick(Index& index, const PodRequest& pod, NodeRange range) {
  Decision d;
  const bool whole = range.begin == 0 && range.end == cluster_->size();
  int at = -1;    // Tree position holding the pick's subtree.
  int64_t k = 0;  // Random: the rank of the pick inside `at`.
  if (!index.count.empty()) {
    // k-th feasible leaf of the range, k uniform. The canonical subtrees, left to right.
    std::array<int, 64> part;
    int n = 0;
    if (whole) {
      part[n++] = 1;
    } else {
      std::array<int, 32> right;
      int nr = 0;
      for (int l = range.begin + leaves_, r = range.end + leaves_; l < r; l /= 2, r /= 2) {
        if (l & 1) part[n++] = l++;
        if (r & 1) right[nr++] = --r;
      }
      while (nr > 0) part[n++] = right[--nr];
    }
    int64_t total = 0;
    for (int i = 0; i < n; ++i) total += index.count[part[i]];
    if (total > 0) {
      k = static_cast<int64_t>(rng_->Uniform(static_cast<uint64_t>(total)));
      for (int i = 0; i < n; ++i) {
        if (k < index.count[part[i]]) {
          at = part[i];
          break;
        }
        k -= index.count[part[i]];
      }
    }
  } else {
    int64_t best = kInfeasible;
    if (whole) {
      if (index.best[1] != kInfeasible) at = 1;
    } else {
      for (int l = range.begin + leaves_, r = range.end + leaves_; l < r; l /= 2, r /= 2) {
        if ((l & 1) && index.best[l] > best) best = index.best[l], at = l;
        if (l & 1) ++l;
        if ((r & 1) && index.best[r - 1] > best) best = index.best[r - 1], at = r - 1;
        if (r & 1) --r;
      }
    }
  }
  if (at < 0) {
    if (whole) {
      d.why = ExplainNoFit(pod);
    } else {
      d.why.nodes = range.end - range.begin;
    }
    return d;
  }
  int i = at;
  if (!index.count.empty()) {
    while (i < leaves_) {
      if (k < index.count[2 * i]) {
        i = 2 * i;
      } else {
        k -= index.count[2 * i];
        i = 2 * i + 1;
      }
    }
  } else {
    while (i < leaves_) i = index.best[2 * i] == index.best[i] ? 2 * i : 2 * i + 1;
  }
  const NodeId id = i - leaves_;
  d.mode = Decision::Mode::kFit;
  d.node = id;
  // A MIG instance's GPU and slices follow the hardware's placement rules, not the policy.
  d.gpus = pod.IsMig() ? TightestGpus(cluster_->node(id), pod)
                       : policy_->ChooseGpus(cluster_->node(id), pod, *rng_);
  return d;
}

Decision Placer::Decide(const PodRequest& pod) {
  return Pick(Fresh(pod), pod, NodeRange{0, cluster_->size()});
}

Decision Placer::DecideIn(const PodRequest& pod, NodeRange range) {
  return Pick(Fresh(pod), pod, range);
}

Decision Placer::Place(const PodRequest& pod) {
  Decision d = Decide(pod);
  if (d.fits()) cluster_->Apply(d.node, pod, d.gpus);
  return d;
}

void Placer::EnableGangs(Index& index) {
  if (index.groups) return;
  index.groups = std::make_unique<Groups>();
  Rebuild(index);
}

int64_t Placer::Capacity(const PodRequest& pod) {
  Index& index = Fresh(pod);
  EnableGangs(index);
  return index.groups->total;
}

int Placer::FindGroup(const PodRequest& pod, TopologyLevel level, int count) {
  Index& index = Fresh(pod);
  EnableGangs(index);
  Groups& g = *index.groups;
  if (!g.kept[static_cast<int>(level)]) {
    g.kept[static_cast<int>(level)] = true;
    Rebuild(index);
  }
  const Groups::Level& l = g.level[static_cast<int>(level)];
  return policy_->PacksGroups() ? l.Tightest(count) : l.Leftmost(count);
}

bool Placer::PlaceGang(const PodRequest& pod, int count, std::vector<Decision>* out) {
  out->clear();
  if (count <= 0) return true;
  if (Capacity(pod) < count) return false;
  auto bind = [&](const Decision& d) {
    cluster_->Apply(d.node, pod, d.gpus);
    out->push_back(d);
  };
  using model::TopologyPreference;
  if (count > 1 && pod.topology != TopologyPreference::kNone) {
    std::array<TopologyLevel, 2> levels{TopologyLevel::kNvlinkDomain, TopologyLevel::kLeaf};
    for (size_t l = pod.topology == TopologyPreference::kSameLeaf ? 1 : 0; l < levels.size(); ++l) {
      const int g = FindGroup(pod, levels[l], count);
      if (g < 0) continue;
      const NodeRange range = cluster_->group_range(levels[l], g);
      for (int i = 0; i < count; ++i) {
        const Decision d = DecideIn(pod, range);
        STEWARD_CHECK(d.fits());  // The group's capacity said so.
        bind(d);
      }
      return true;
    }
  }
  for (int i = 0; i < count; ++i) {
    Decision d;
    if (pod.topology != TopologyPreference::kNone && !out->empty()) {
      const TopologyLevel leaf = TopologyLevel::kLeaf;
      d = DecideIn(pod, cluster_->group_range(leaf, cluster_->group_of(leaf, out->back().node)));
    }
    if (!d.fits()) d = Decide(pod);
    if (!d.fits()) {
      for (const Decision& b : *out) cluster_->Release(b.node, pod, b.gpus);
      out->clear();
      return false;
    }
    bind(d);
  }
  return true;
}

NoFitCounts Placer::ExplainNoFit(const PodRequest& pod) const {
  // Only on failure, so a full scan is acceptable here.
  NoFitCounts c;
  c.nodes = cluster_->size();
  for (NodeId id = 0; id < cluster_->size(); ++id) {
    const NodeState& n = cluster_->node(id);
    if (!n.schedulable || (pod.pool >= 0 && n.pool != pod.pool))
      ++c.elsewhere;
    else if (n.cpu_free < pod.cpu_milli)
      ++c.cpu;
    else if (n.memory_free < pod.memory_mib)
      ++c.memory;
    else if (n.pods >= n.max_pods)
      ++c.pod_slots;
    else if (!ExtendedFits(n, pod))
      ++c.extended;
    else if (pod.num_gpu > 0 &&
             (n.num_gpus == 0 || !pod.AllowsModel(n.model) || (pod.IsMig() && !n.mig_capable)))
      ++c.no_gpu_or_model;
    else if (pod.num_gpu > 0 && !Fits(n, pod))
      ++c.gpu;
  }
  return c;
}

std::string Decision::Reason(const PodRequest& pod) const {
  if (fits()) return "fits";
  std::string s = fmt::format(
      "no node fits {}m CPU, {} MiB, {}x{}m GPU: of {} nodes, {} lack CPU, {} lack memory, {} "
      "are full of pods, {} have no GPU of an allowed model, {} lack free GPUs",
      pod.cpu_milli, pod.memory_mib, pod.num_gpu, pod.gpu_milli, why.nodes, why.cpu, why.memory,
      why.pod_slots, why.no_gpu_or_model, why.gpu);
  if (why.extended > 0)
    s += fmt::format(", {} lack an extended resource it asks for", why.extended);
  if (why.elsewhere > 0)
    s += fmt::format(", {} are cordoned or in another placement pool", why.elsewhere);
  return s;
}

}  // namespace steward::place

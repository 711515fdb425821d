// The preemption search of GovernanceEngine (governance_engine.h): classical candidates,
// minimal target sets with fill-back, and fair-sharing targets (queue-semantics.md §2.6, §2.7,
// §9). Split from governance_engine.cc, which keeps flavor assignment and bookkeeping.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "govern/governance_engine.h"

namespace steward::govern {
namespace {

bool PriorityAllows(PreemptionPolicy policy, int32_t victim, int32_t preemptor, SimTime victim_ts,
                    SimTime preemptor_ts) {
  switch (policy) {
    case PreemptionPolicy::kNever:
      return false;
    case PreemptionPolicy::kLowerPriority:
      return victim < preemptor;
    case PreemptionPolicy::kLowerOrNewerEqualPriority:
      return victim < preemptor || (victim == preemptor && preemptor_ts < victim_ts);
    case PreemptionPolicy::kAny:
      return true;
  }
  return false;
}

}  // namespace

bool GovernanceEngine::Fits(int cq, const std::vector<Contested>& contested,
                            bool allow_borrowing) const {
  int node = cqs_[cq].node;
  for (const auto& c : contested) {
    if (tree_.Available(node, c.fr) < c.need) return false;
    if (!allow_borrowing && tree_.Usage(node, c.fr) + c.need > tree_.Nominal(node, c.fr))
      return false;
  }
  return true;
}

bool GovernanceEngine::CrossQueueVictimValid(int victim_cq, int preemptor_cq,
                                             const std::vector<Contested>& contested) const {
  // Ancestors of the preemptor, to find the lowest common ancestor.
  std::vector<int> pre_anc;
  for (int n = tree_.parent(cqs_[preemptor_cq].node); n != -1; n = tree_.parent(n))
    pre_anc.push_back(n);
  int vnode = cqs_[victim_cq].node;
  for (const auto& c : contested) {
    if (!tree_.Borrowing(vnode, c.fr)) continue;
    // Every cohort strictly between the victim queue and the LCA must be above its subtree
    // quota, or reclaiming would take from a subtree that is within its own share.
    bool ok = true;
    for (int n = tree_.parent(vnode); n != -1; n = tree_.parent(n)) {
      if (std::find(pre_anc.begin(), pre_anc.end(), n) != pre_anc.end()) break;
      if (!tree_.Borrowing(n, c.fr)) {
        ok = false;
        break;
      }
    }
    if (ok) return true;
  }
  return false;
}

std::vector<int64_t> GovernanceEngine::MinimalTargets(
    int cq, const std::vector<Contested>& contested, const std::vector<VictimCandidate>& candidates,
    std::vector<int>& order, bool allow_borrowing) const {
  // Candidates are taken in the ordering's order, but usually only the first few are needed:
  // the best kFirst are selected (partial_sort: about one comparison per candidate), and only if
  // they are not enough is the rest heaped (O(n), then O(log n) per candidate taken). The walk is
  // the same as over a full sort.
  constexpr size_t kFirst = 16;
  auto before = [&](int a, int b) { return ordering_->Before(candidates[a], candidates[b]); };
  auto after = [&](int a, int b) { return before(b, a); };
  const size_t first = std::min(kFirst, order.size());
  std::partial_sort(order.begin(), order.begin() + first, order.end(), before);
  std::vector<const AdmittedWorkload*> removed;
  bool fits = false;
  // Tries one candidate; true when the preemptor fits.
  auto take = [&](int index) {
    const VictimCandidate& c = candidates[index];
    const AdmittedWorkload& w = *c.workload;
    if (!c.same_queue && !CrossQueueVictimValid(w.cluster_queue, cq, contested)) return false;
    ApplyUsage(w, -1);
    removed.push_back(&w);
    return Fits(cq, contested, allow_borrowing);
  };
  for (size_t i = 0; i < first && !fits; ++i) fits = take(order[i]);
  if (!fits && order.size() > first) {
    auto rest = order.begin() + first;
    std::make_heap(rest, order.end(), after);
    for (auto end = order.end(); end != rest && !fits; --end) {
      std::pop_heap(rest, end, after);
      fits = take(*(end - 1));
    }
  }
  if (!fits) {
    for (const auto* w : removed) ApplyUsage(*w, +1);
    return {};
  }
  // Fill back (Kueue fillBackWorkloads): return every target except the last whose return
  // still lets the preemptor fit.
  std::vector<char> kept(removed.size(), 0);
  for (int i = static_cast<int>(removed.size()) - 2; i >= 0; --i) {
    ApplyUsage(*removed[i], +1);
    if (Fits(cq, contested, allow_borrowing)) {
      kept[i] = 1;
    } else {
      ApplyUsage(*removed[i], -1);
    }
  }
  std::vector<int64_t> targets;
  for (size_t i = 0; i < removed.size(); ++i) {
    if (kept[i]) continue;
    targets.push_back(removed[i]->id);
    ApplyUsage(*removed[i], +1);
  }
  return targets;
}

std::vector<PreemptionTarget> GovernanceEngine::FindTargets(
    int cq, int32_t priority, SimTime queue_ts, const std::vector<Contested>& contested,
    SimTime now, const std::vector<Contested>& requested) const {
  if (options_.fair_sharing) return FairSharingTargets(cq, priority, queue_ts, contested, now);
  const CqState& me = cqs_[cq];
  const PreemptionSpec& pol = me.spec.preemption;
  auto uses_contested = [&](const AdmittedWorkload& w) {
    for (const auto& [fr, a] : w.usage)
      for (const auto& c : contested)
        if (c.fr == fr && a > 0) return true;
    return false;
  };
  // Candidates go to a reused buffer: same-queue ones first, then the other queues'.
  std::vector<VictimCandidate>& cands = scratch_candidates_;
  cands.clear();
  for (const AdmittedWorkload* w : me.admitted) {
    if (!uses_contested(*w) || !TierAllowsPreemption(*w)) continue;
    if (!PriorityAllows(pol.within_cluster_queue, w->priority, priority, w->queue_timestamp,
                        queue_ts))
      continue;
    cands.push_back(MakeCandidate(*w, true, now));
  }
  const int num_same = static_cast<int>(cands.size());
  if (pol.reclaim_within_cohort != PreemptionPolicy::kNever && tree_.parent(me.node) != -1) {
    for (int other : cqs_by_root_[root_slot_[me.root]]) {
      if (other == cq || !cqs_[other].spec.reclaimable) continue;
      if (!CrossQueueVictimValid(other, cq, contested)) continue;
      for (const AdmittedWorkload* w : cqs_[other].admitted) {
        if (!uses_contested(*w) || !TierAllowsPreemption(*w)) continue;
        if (!PriorityAllows(pol.reclaim_within_cohort, w->priority, priority, w->queue_timestamp,
                            queue_ts))
          continue;
        cands.push_back(MakeCandidate(*w, false, now));
      }
    }
  }
  const int num_all = static_cast<int>(cands.size());
  const bool any_cross = num_all > num_same;
  std::vector<int> order;
  order.reserve(num_all);
  auto to_targets = [&](const std::vector<int64_t>& ids, PreemptionReason cross_reason) {
    std::vector<PreemptionTarget> out;
    for (int64_t id : ids) {
      const AdmittedWorkload& w = admitted_.at(id);
      PreemptionTarget t;
      t.workload_id = id;
      t.cluster_queue = cqs_[w.cluster_queue].spec.name;
      t.reason = w.cluster_queue == cq ? PreemptionReason::kInClusterQueue : cross_reason;
      t.priority = w.priority;
      t.tier = w.tier;
      t.gpus = w.gpus;
      t.lost_gpu_hours = LostGpuHours(w, now);
      out.push_back(t);
    }
    return out;
  };
  // 1) Reclaim without borrowing: the preemptor is below nominal where it needs preemption;
  //    any allowed candidate, but it must end at/below nominal.
  bool under_nominal = std::all_of(contested.begin(), contested.end(), [&](const Contested& c) {
    return tree_.Usage(me.node, c.fr) < tree_.Nominal(me.node, c.fr);
  });
  // Kueue checks the whole request against nominal quota: a preemptor that borrows on some
  // other resource anyway cannot reclaim without borrowing.
  const bool rest_within_nominal =
      std::all_of(requested.begin(), requested.end(), [&](const Contested& r) {
        return tree_.Usage(me.node, r.fr) + r.need <= tree_.Nominal(me.node, r.fr) ||
               std::any_of(contested.begin(), contested.end(),
                           [&](const Contested& c) { return c.fr == r.fr; });
      });
  if (under_nominal && rest_within_nominal && any_cross) {
    order.resize(num_all);
    std::iota(order.begin(), order.end(), 0);
    auto ids = MinimalTargets(cq, contested, cands, order, false);
    if (!ids.empty()) return to_targets(ids, PreemptionReason::kInCohortReclamation);
  }
  // 1b) Hierarchical reclaim (Kueue's hierarchical advantage): above its nominal quota, the
  //     preemptor still fits within a cohort subtree below the root; borrowers there may be
  //     reclaimed and the preemptor may end borrowing inside that subtree.
  bool hierarchical = !under_nominal && any_cross &&
                      std::all_of(contested.begin(), contested.end(), [&](const Contested& c) {
                        return tree_.MayReclaimInHierarchy(me.node, c.fr, c.need);
                      });
  if (hierarchical) {
    order.resize(num_all);
    std::iota(order.begin(), order.end(), 0);
    auto ids = MinimalTargets(cq, contested, cands, order, true);
    if (!ids.empty()) return to_targets(ids, PreemptionReason::kInCohortReclamation);
  }
  // 2) Reclaim while borrowing (borrowWithinCohort: LowerPriority, up to the threshold).
  if (pol.borrow_within_cohort == PreemptionPolicy::kLowerPriority && any_cross) {
    order.clear();
    for (int i = 0; i < num_all; ++i)
      if (i < num_same ||
          (cands[i].priority < priority &&
           (!pol.max_priority_threshold || cands[i].priority <= *pol.max_priority_threshold)))
        order.push_back(i);
    auto ids = MinimalTargets(cq, contested, cands, order, true);
    if (!ids.empty()) return to_targets(ids, PreemptionReason::kInCohortReclaimWhileBorrowing);
  }
  // 3) Only the preemptor's own queue; it may keep borrowing what it already borrows.
  if (num_same > 0) {
    order.resize(num_same);
    std::iota(order.begin(), order.end(), 0);
    auto ids = MinimalTargets(cq, contested, cands, order, true);
    if (!ids.empty()) return to_targets(ids, PreemptionReason::kInClusterQueue);
  }
  return {};
}

std::vector<PreemptionTarget> GovernanceEngine::FairSharingTargets(
    int cq, int32_t priority, SimTime queue_ts, const std::vector<Contested>& contested,
    SimTime now) const {
  const CqState& me = cqs_[cq];
  const PreemptionSpec& pol = me.spec.preemption;
  auto uses_contested = [&](const AdmittedWorkload& w) {
    for (const auto& [fr, a] : w.usage)
      for (const auto& c : contested)
        if (c.fr == fr && a > 0) return true;
    return false;
  };
  // Candidates per target queue, each list in victim order.
  std::vector<std::pair<int, std::vector<VictimCandidate>>> per_queue;
  auto collect = [&](int q, bool same) {
    std::vector<VictimCandidate> list;
    PreemptionPolicy p = same ? pol.within_cluster_queue : pol.reclaim_within_cohort;
    for (const AdmittedWorkload* wp : cqs_[q].admitted) {
      const AdmittedWorkload& w = *wp;
      if (!uses_contested(w) || !TierAllowsPreemption(w)) continue;
      if (!PriorityAllows(p, w.priority, priority, w.queue_timestamp, queue_ts)) continue;
      list.push_back(MakeCandidate(w, same, now));
    }
    std::sort(list.begin(), list.end(), [&](const VictimCandidate& a, const VictimCandidate& b) {
      return ordering_->Before(a, b);
    });
    if (!list.empty()) per_queue.emplace_back(q, std::move(list));
  };
  collect(cq, true);
  if (pol.reclaim_within_cohort != PreemptionPolicy::kNever && tree_.parent(me.node) != -1)
    for (int other : cqs_by_root_[root_slot_[me.root]])
      if (other != cq && cqs_[other].spec.reclaimable &&
          CrossQueueVictimValid(other, cq, contested))
        collect(other, false);
  if (per_queue.empty()) return {};

  // DRS is compared at the "almost LCA": the children of the lowest common ancestor.
  auto almost_lca = [&](int a, int b) {
    std::vector<int> pa, pb;
    for (int n = a; n != -1; n = tree_.parent(n)) pa.push_back(n);
    for (int n = b; n != -1; n = tree_.parent(n)) pb.push_back(n);
    int i = static_cast<int>(pa.size()) - 1, j = static_cast<int>(pb.size()) - 1;
    while (i > 0 && j > 0 && pa[i - 1] == pb[j - 1]) --i, --j;
    return std::pair<int, int>(pa[std::max(i - 1, 0)], pb[std::max(j - 1, 0)]);
  };
  std::vector<Amount> w_extra(tree_.num_fr(), 0);
  for (const auto& c : contested) w_extra[c.fr] = c.need;
  bool within_nominal = std::all_of(contested.begin(), contested.end(), [&](const Contested& c) {
    return tree_.Usage(me.node, c.fr) + c.need <= tree_.Nominal(me.node, c.fr);
  });

  std::vector<std::pair<const AdmittedWorkload*, PreemptionReason>> removed;
  std::vector<size_t> next(per_queue.size(), 0);
  bool fits = Fits(cq, contested, true);
  // Pass 0 = S2-a (LessThanOrEqualToFinalShare), pass 1 = S2-b (LessThanInitialShare).
  for (int pass = 0; pass < 2 && !fits; ++pass) {
    std::vector<char> pruned(per_queue.size(), 0);
    while (!fits) {
      // Target queue with the highest share among those with candidates left.
      int best = -1;
      double best_share = -1;
      for (size_t k = 0; k < per_queue.size(); ++k) {
        if (pruned[k] || next[k] >= per_queue[k].second.size()) continue;
        double s = tree_.DominantResourceShare(cqs_[per_queue[k].first].node, {});
        // Equal shares: the queue whose next candidate comes first in victim order (Kueue's
        // nextTarget tie-break: the most recently admitted of equal priority goes first).
        const bool tie_wins =
            best != -1 && s == best_share &&
            ordering_->Before(per_queue[k].second[next[k]], per_queue[best].second[next[best]]);
        if (best == -1 || s > best_share || tie_wins) best = static_cast<int>(k), best_share = s;
      }
      if (best == -1) break;
      int tq = per_queue[best].first;
      const VictimCandidate& cand = per_queue[best].second[next[best]];
      const AdmittedWorkload& w = *cand.workload;
      bool accept;
      if (tq == cq || within_nominal) {
        accept = true;
      } else {
        auto [pre_side, tgt_side] = almost_lca(me.node, cqs_[tq].node);
        double pre_share = tree_.DominantResourceShare(pre_side, w_extra);
        double before = tree_.DominantResourceShare(tgt_side, {});
        ApplyUsage(w, -1);
        double after = tree_.DominantResourceShare(tgt_side, {});
        ApplyUsage(w, +1);
        accept = pass == 0 ? pre_share <= after : pre_share < before;
      }
      if (!accept) {
        pruned[best] = 1;
        continue;
      }
      ++next[best];
      ApplyUsage(w, -1);
      // Kueue (FairSharingPreemptWithinNominal): a preemptor that stays within its nominal
      // quota reclaims (InCohortReclamation); otherwise it is fair sharing.
      removed.emplace_back(&w, tq == cq         ? PreemptionReason::kInClusterQueue
                               : within_nominal ? PreemptionReason::kInCohortReclamation
                                                : PreemptionReason::kInCohortFairSharing);
      fits = Fits(cq, contested, true);
    }
  }
  if (!fits) {
    for (const auto& [w, r] : removed) ApplyUsage(*w, +1);
    return {};
  }
  std::vector<char> kept(removed.size(), 0);
  for (int i = static_cast<int>(removed.size()) - 2; i >= 0; --i) {
    ApplyUsage(*removed[i].first, +1);
    if (Fits(cq, contested, true))
      kept[i] = 1;
    else
      ApplyUsage(*removed[i].first, -1);
  }
  std::vector<PreemptionTarget> out;
  for (size_t i = 0; i < removed.size(); ++i) {
    if (kept[i]) continue;
    const AdmittedWorkload& w = *removed[i].first;
    ApplyUsage(w, +1);
    PreemptionTarget t;
    t.workload_id = w.id;
    t.cluster_queue = cqs_[w.cluster_queue].spec.name;
    t.reason = removed[i].second;
    t.priority = w.priority;
    t.tier = w.tier;
    t.gpus = w.gpus;
    t.lost_gpu_hours = LostGpuHours(w, now);
    out.push_back(t);
  }
  return out;
}

}  // namespace steward::govern

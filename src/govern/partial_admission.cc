// Partial admission (see partial_admission.h).
#include "govern/partial_admission.h"

#include <algorithm>
#include <cassert>

#include "govern/governance_engine.h"

namespace steward::govern {

bool Admissible(const Decision& decision) {
  return decision.mode == AdmissionMode::kFit ||
         (decision.mode == AdmissionMode::kNeedsPreemption && !decision.victims.empty());
}

bool HasPartialAdmission(std::span<const int32_t> min_counts) {
  return std::any_of(min_counts.begin(), min_counts.end(), [](int32_t m) { return m >= 0; });
}

int64_t DroppablePods(std::span<const int32_t> counts, std::span<const int32_t> min_counts) {
  int64_t total = 0;
  for (size_t i = 0; i < std::min(counts.size(), min_counts.size()); ++i)
    if (min_counts[i] >= 0) total += counts[i] - min_counts[i];
  return total;
}

std::vector<int32_t> ReducedCounts(std::span<const int32_t> counts,
                                   std::span<const int32_t> min_counts, int64_t keep) {
  const int64_t total = DroppablePods(counts, min_counts);
  assert(keep >= 0 && keep <= total);
  std::vector<int32_t> out(counts.begin(), counts.end());
  for (size_t i = 0; i < std::min(counts.size(), min_counts.size()); ++i) {
    if (min_counts[i] < 0) continue;
    const int64_t delta = counts[i] - min_counts[i];
    out[i] = static_cast<int32_t>(min_counts[i] + (total ? delta * keep / total : 0));
  }
  return out;
}

std::optional<int64_t> SearchKept(std::span<const int32_t> counts,
                                  std::span<const int32_t> min_counts,
                                  const std::function<bool(int64_t keep)>& admissible) {
  int64_t lo = 0, hi = DroppablePods(counts, min_counts) - 1;
  std::optional<int64_t> best;
  while (lo <= hi) {
    const int64_t mid = (lo + hi) / 2;
    if (admissible(mid)) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

Nomination NominateWithPartialAdmission(const GovernanceEngine& engine, WorkloadRequest request,
                                        std::span<const int32_t> min_counts, SimTime now) {
  Nomination n;
  n.decision = engine.TryAdmit(request, now);
  if (Admissible(n.decision) || !HasPartialAdmission(min_counts)) {
    n.request = std::move(request);
    return n;
  }
  std::vector<int32_t> counts;
  for (const PodSetRequest& ps : request.pod_sets) counts.push_back(ps.count);
  auto reduced = [&](int64_t keep) {
    WorkloadRequest r = request;
    const std::vector<int32_t> c = ReducedCounts(counts, min_counts, keep);
    for (size_t i = 0; i < c.size(); ++i) r.pod_sets[i].count = c[i];
    return r;
  };
  Decision best;
  const std::optional<int64_t> keep = SearchKept(counts, min_counts, [&](int64_t k) {
    Decision d = engine.TryAdmit(reduced(k), now);
    if (!Admissible(d)) return false;
    best = std::move(d);
    return true;
  });
  if (keep) {
    n.request = reduced(*keep);
    n.decision = std::move(best);
    n.reduced = true;
  } else {
    n.request = std::move(request);
  }
  return n;
}

}  // namespace steward::govern

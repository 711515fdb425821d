// Partial admission: Kueue's spec.podSets[].minCount, one search shared by `steward policy
// simulate` (simulate.cc) and the twin's Kueue admitter (twin/kueue_admitter.cc), so both
// admit a workload with the same reduced pod counts.
//
// A workload whose full request is not admissible, and some of whose pod sets have a minimum
// count, is nominated with fewer pods: the most pods that are admissible. Pods are dropped only
// from the sets with a minimum, in proportion to what each may drop (count - min), as Kueue's
// PodSetReducer (pkg/scheduler/flavorassigner/podset_reducer.go): keeping `keep` of the D
// droppable pods gives set i  min_i + floor((count_i - min_i) * keep / D)  pods, i.e. it drops
// ceil(delta_i * x / D) of them for x = D - keep dropped in all. `keep` is found by binary search
// over [0, D - 1], which assumes that fewer pods are never less admissible (Kueue assumes the
// same). "Admissible" is Kueue's test in that search: it fits, or it needs preemption and has
// victims.
//
//   std::vector<int32_t> mins = {-1, 2};  // Per pod set; -1 = none (all or nothing).
//   govern::Nomination n = govern::NominateWithPartialAdmission(engine, req, mins, now);
//   if (n.decision.mode == govern::AdmissionMode::kFit)
//     engine.Admit(n.request, n.decision, now);  // n.request carries the admitted counts.
//
// Cost: one TryAdmit when the full request is admissible or no pod set has a minimum; else
// 1 + about log2(D) TryAdmits (D = the pods that may be dropped). Thread-compatible: no state
// of its own, only the engine's const API.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "govern/decision.h"
#include "govern/workload_request.h"
#include "model/time.h"

namespace steward::govern {

class GovernanceEngine;

// What Kueue's scheduler nominates: the request (possibly with reduced counts) and its decision.
struct Nomination {
  WorkloadRequest request;
  Decision decision;
  bool reduced = false;  // Some pod set has fewer pods than requested.
};

// Kueue's admissibility of a nomination: it fits, or it needs preemption and found victims.
bool Admissible(const Decision& decision);

// Whether any pod set has a minimum (min_counts[i] >= 0).
bool HasPartialAdmission(std::span<const int32_t> min_counts);

// The pods that may be dropped: the sum over sets with a minimum of count - min.
int64_t DroppablePods(std::span<const int32_t> counts, std::span<const int32_t> min_counts);

// The counts that keep `keep` of the droppable pods (0 = every set with a minimum at its
// minimum, DroppablePods = the full counts), spread in proportion as above.
// REQUIRES: counts and min_counts of equal size, 0 <= keep <= DroppablePods.
std::vector<int32_t> ReducedCounts(std::span<const int32_t> counts,
                                   std::span<const int32_t> min_counts, int64_t keep);

// The largest `keep` in [0, DroppablePods - 1] whose ReducedCounts `admissible` accepts, by
// binary search (the full counts are the caller's first try); nullopt when none is found.
// `admissible` is called about log2(DroppablePods) times.
std::optional<int64_t> SearchKept(std::span<const int32_t> counts,
                                  std::span<const int32_t> min_counts,
                                  const std::function<bool(int64_t keep)>& admissible);

// Kueue's nomination of `request` with partial admission: the full request's decision when it
// is admissible or no set has a minimum; else the largest reduced request that is admissible
// (request.pod_sets[i].count lowered, `reduced` set); else the full request's decision.
// `min_counts` has one entry per pod set of `request` (-1 = none).
// `request` is taken by value: a caller that needs it no more moves it in (no copy).
Nomination NominateWithPartialAdmission(const GovernanceEngine& engine, WorkloadRequest request,
                                        std::span<const int32_t> min_counts, SimTime now);

}  // namespace steward::govern

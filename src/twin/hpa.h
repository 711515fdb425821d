// Hpa: the Horizontal Pod Autoscaler's replica decision for one service, with its upstream
// rules (kubernetes/kubernetes pkg/controller/podautoscaler/horizontal.go; defaults in
// AutoscalerSpec): called once per sync period.
//
//   Hpa hpa(spec.autoscaler, min_replicas, max_replicas, initial);
//   int desired = hpa.Sync(now, rps, capacity_per_replica, ready_replicas);
//
// One sync:
//  1. usage ratio = (rps / ready) / (target_utilization x capacity); inside the tolerance
//     (|1 - ratio| <= 0.1) the recommendation is the current count, else ceil(ratio x ready)
//     (= ceil(rps / (target x capacity))). Without a ready replica there is no metric: the
//     current count stands.
//  2. Stabilization: the recommendation is recorded; a scale-down takes the highest
//     recommendation of the last scale_down_stabilization_seconds (scale-up's window is 0).
//  3. Rate: a scale-up goes at most to max(start + scale_up_pods, ceil(start x (1 +
//     percent/100))), start = the count before the scale-ups of the last period (selectPolicy
//     Max); scale-down's 100 % per period never binds.
//  4. Clamped to [min, max].
//
// Cost: O(recommendations in the stabilization window) per sync (20 at the defaults).
// Thread-safety: none; one per service, owned by the twin.
#pragma once

#include <deque>
#include <utility>

#include "model/time.h"
#include "twin/serving_spec.h"

namespace steward::twin {

class Hpa {
 public:
  Hpa(const AutoscalerSpec& spec, int min_replicas, int max_replicas, int initial);
  // One sync at `now` (non-decreasing); returns the new desired count (also desired()).
  int Sync(SimTime now, double rps, double capacity, int ready);
  int desired() const { return desired_; }
  // The count the metric alone asks for, clamped to [min, max]: ceil(rps / (target x
  // capacity)). What a fresh service starts at.
  int Wanted(double rps, double capacity) const;

 private:
  AutoscalerSpec spec_;
  int min_, max_;
  int desired_;
  std::deque<std::pair<SimTime, int>> recommendations_;  // Raw, for stabilization.
  std::deque<std::pair<SimTime, int>> scale_ups_;        // (when, replicas added).
};

}  // namespace steward::twin

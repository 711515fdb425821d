#include "twin/hpa.h"

#include <algorithm>
#include <cmath>

namespace steward::twin {

Hpa::Hpa(const AutoscalerSpec& spec, int min_replicas, int max_replicas, int initial)
    : spec_(spec),
      min_(min_replicas),
      max_(max_replicas),
      desired_(std::clamp(initial, min_replicas, max_replicas)) {}

int Hpa::Wanted(double rps, double capacity) const {
  const double per_replica = spec_.target_utilization * capacity;
  // A hair under the integer above: 100 / 5 is 20 replicas, not 21 from rounding noise.
  const double want = std::ceil(rps / per_replica - 1e-9);
  return static_cast<int>(std::clamp<double>(want, min_, max_));
}

int Hpa::Sync(SimTime now, double rps, double capacity, int ready) {
  const int current = desired_;
  // 1. The metric's recommendation.
  int recommendation = current;
  if (ready > 0) {
    const double ratio = (rps / ready) / (spec_.target_utilization * capacity);
    if (std::abs(1 - ratio) > spec_.tolerance)
      recommendation = static_cast<int>(std::ceil(ratio * ready - 1e-9));
  }
  // 2. Stabilization (horizontal.go stabilizeRecommendationWithBehaviors): the scale-up window
  // is 0 s, so only the scale-down side looks back.
  const SimTime down_cutoff = now + SecondsF(-spec_.scale_down_stabilization_seconds);
  while (!recommendations_.empty() && recommendations_.front().first <= down_cutoff)
    recommendations_.pop_front();
  recommendations_.emplace_back(now, recommendation);
  int down = recommendation;
  for (const auto& [at, r] : recommendations_) down = std::max(down, r);
  int next = current;
  if (next < recommendation) next = recommendation;
  if (next > down) next = down;
  // 3. Scale-up rate (calculateScaleUpLimitWithScalingRules, selectPolicy Max).
  const SimTime up_cutoff = now + SecondsF(-spec_.scale_up_period_seconds);
  while (!scale_ups_.empty() && scale_ups_.front().first <= up_cutoff) scale_ups_.pop_front();
  int added = 0;
  for (const auto& [at, n] : scale_ups_) added += n;
  const int start = current - added;
  const int limit =
      std::max(start + spec_.scale_up_pods,
               static_cast<int>(std::ceil(start * (1 + spec_.scale_up_percent / 100) - 1e-9)));
  if (next > current) next = std::min(next, std::max(limit, current));
  // 4. Bounds.
  next = std::clamp(next, min_, max_);
  if (next > current) scale_ups_.emplace_back(now, next - current);
  desired_ = next;
  return next;
}

}  // namespace steward::twin

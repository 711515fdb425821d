// Traffic: the request rate of one inference service over simulated time (TrafficSpec).
//
//   Traffic t(spec.traffic, MixSeed(seed, salt));
//   double rps = t.RateAt(now);
//
// rate(t) = peak x day(t) x week(t) x noise(t) x burst(t), where day() is a cosine between
// trough_fraction and 1 peaking at peak_hour, week() is weekend_factor on days 5 and 6 (day 0
// is the run's first day, a Monday), noise() is max(0, 1 + noise x z) with z ~ N(0, 1) drawn
// anew every noise step, and burst() is burst_factor inside a burst. A replayed CSV replaces
// the product. Random parts are counter-based (a generator seeded by (seed, step) or (seed,
// day)), so RateAt(t) depends on t only: no state, no order of calls, same answer every time.
//
// Cost: O(1) for the curve (a few dozen arithmetic operations and two small generators); a
// replay is a binary search. Thread-safety: const and stateless, safe to share.
#pragma once

#include <cstdint>
#include <vector>

#include "model/time.h"
#include "twin/serving_spec.h"

namespace steward::twin {

class Traffic {
 public:
  Traffic(const TrafficSpec& spec, uint64_t seed);
  // Requests per second at `t` (>= 0).
  double RateAt(SimTime t) const;
  // The curve without noise and bursts (the shape a forecast could learn); a replay's rate.
  double ShapeAt(SimTime t) const;

 private:
  // Whether `t` falls inside a burst starting on day `day` (bursts of a day are drawn from
  // (seed, day)).
  bool InBurst(int64_t day, double second_of_day) const;

  TrafficSpec spec_;
  uint64_t seed_;
};

}  // namespace steward::twin

// DemandForecast: what a service will need at a time of day, from what it needed at the same
// time on recent days (the guide's 潮汐: inference follows the day).
//
//   DemandForecast f({.days = 3, .bucket = Minutes(15)});
//   f.Observe(now, replicas_wanted);                  // every control period
//   std::optional<double> need = f.Forecast(now, now + Minutes(10));
//
// The day is cut into buckets; each keeps the highest demand observed in it, per day, for the
// last `days` days. The forecast of a bucket is the mean of those daily peaks over the days
// that have one, smoothed by taking the highest of the bucket and its two neighbours (a ramp a
// few minutes early costs SLO minutes, a few minutes late only a little lending). The forecast
// of a window is the highest bucket forecast over it. No forecast (nullopt) until a full day has
// been observed: a controller must not lend on a guess.
//
// Cost: Observe O(1); Forecast O(buckets in the window x days). Memory: (days + 1) x buckets
// per day.
// Thread-safety: none.
#pragma once

#include <optional>
#include <vector>

#include "model/time.h"

namespace steward::tidal {

struct ForecastOptions {
  int days = 3;                      // Days of history averaged (1..28).
  SimDuration bucket = Minutes(15);  // Resolution of the day; must divide a day.
};

class DemandForecast {
 public:
  explicit DemandForecast(ForecastOptions options = {});
  // Records demand `value` (>= 0) seen at `t`; times must not go backwards.
  void Observe(SimTime t, double value);
  // The forecast peak over [from, to]; nullopt before one full day of observations.
  std::optional<double> Forecast(SimTime from, SimTime to) const;
  // The smoothed forecast of the bucket holding `t` (nullopt as above).
  std::optional<double> BucketForecast(SimTime t) const;

 private:
  int64_t DayOf(SimTime t) const;
  int BucketOf(SimTime t) const;
  // Mean over the kept days of bucket b's peaks (b taken modulo the day), or -1 if none.
  double Mean(int bucket) const;

  ForecastOptions options_;
  int buckets_per_day_;
  SimTime first_ = SimTime::Never();
  SimTime last_ = SimTime::Never();
  // peaks_[d % (days + 1)][b]: peak in bucket b of day d (-1 = not observed); day_of_[slot] =
  // the day its row holds (-1 = none).
  std::vector<std::vector<double>> peaks_;
  std::vector<int64_t> day_of_;
};

}  // namespace steward::tidal

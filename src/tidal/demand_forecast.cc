#include "tidal/demand_forecast.h"

#include <algorithm>

namespace steward::tidal {

DemandForecast::DemandForecast(ForecastOptions options)
    : options_(options),
      buckets_per_day_(static_cast<int>(Days(1) / options.bucket)),
      // Today's row is filled while the `days` before it forecast.
      peaks_(static_cast<size_t>(options.days) + 1, std::vector<double>(buckets_per_day_, -1.0)),
      day_of_(static_cast<size_t>(options.days) + 1, -1) {}

int64_t DemandForecast::DayOf(SimTime t) const { return t.micros() / Days(1).micros(); }

int DemandForecast::BucketOf(SimTime t) const {
  return static_cast<int>((t.micros() % Days(1).micros()) / options_.bucket.micros());
}

void DemandForecast::Observe(SimTime t, double value) {
  if (first_.is_never()) first_ = t;
  last_ = t;
  const int64_t day = DayOf(t);
  const size_t slot = static_cast<size_t>(day % static_cast<int64_t>(peaks_.size()));
  if (day_of_[slot] != day) {  // A new day reuses the oldest day's row.
    day_of_[slot] = day;
    std::fill(peaks_[slot].begin(), peaks_[slot].end(), -1.0);
  }
  double& peak = peaks_[slot][BucketOf(t)];
  peak = std::max(peak, value);
}

double DemandForecast::Mean(int bucket) const {
  const int b = ((bucket % buckets_per_day_) + buckets_per_day_) % buckets_per_day_;
  // Only days before the current one: today's partial buckets would bias the mean low.
  const int64_t today = last_.is_never() ? -1 : DayOf(last_);
  double sum = 0;
  int n = 0;
  for (size_t slot = 0; slot < peaks_.size(); ++slot) {
    if (day_of_[slot] < today - options_.days || day_of_[slot] >= today || peaks_[slot][b] < 0)
      continue;
    sum += peaks_[slot][b];
    ++n;
  }
  return n > 0 ? sum / n : -1;
}

std::optional<double> DemandForecast::BucketForecast(SimTime t) const {
  if (first_.is_never() || last_ - first_ < Days(1)) return std::nullopt;
  const int64_t day_bucket = DayOf(t) * buckets_per_day_ + BucketOf(t);
  double best = -1;
  for (int64_t d = -1; d <= 1; ++d)
    best = std::max(best, Mean(static_cast<int>((day_bucket + d) % buckets_per_day_)));
  if (best < 0) return std::nullopt;
  return best;
}

std::optional<double> DemandForecast::Forecast(SimTime from, SimTime to) const {
  std::optional<double> best;
  for (SimTime t = from;; t = t + options_.bucket) {
    const SimTime at = std::min(t, to);
    const std::optional<double> f = BucketForecast(at);
    if (!f) return std::nullopt;
    best = std::max(best.value_or(0), *f);
    if (at >= to) break;
  }
  return best;
}

}  // namespace steward::tidal

#include "twin/traffic.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "twin/rng.h"

namespace steward::twin {
namespace {

constexpr double kDaySeconds = 86400;
// Salts of the counter-based streams (noise per step, bursts per day).
constexpr uint64_t kNoiseSalt = 0x7015e;
constexpr uint64_t kBurstSalt = 0xb0257;

}  // namespace

Traffic::Traffic(const TrafficSpec& spec, uint64_t seed) : spec_(spec), seed_(seed) {}

double Traffic::ShapeAt(SimTime t) const {
  const double s = t.ToSeconds();
  if (!spec_.points.empty()) {
    // Held from one row to the next: the last row at or before s (the first before it).
    auto it = std::upper_bound(spec_.points.begin(), spec_.points.end(), s,
                               [](double v, const auto& p) { return v < p.first; });
    const auto& p = it == spec_.points.begin() ? *it : *std::prev(it);
    return std::max(0.0, p.second * spec_.csv_scale);
  }
  const double hour = std::fmod(s / 3600, 24.0);
  const double level = 0.5 + 0.5 * std::cos(2 * std::numbers::pi * (hour - spec_.peak_hour) / 24);
  double rate = spec_.peak_rps * (spec_.trough_fraction + (1 - spec_.trough_fraction) * level);
  const int64_t day = static_cast<int64_t>(std::floor(s / kDaySeconds));
  if (day % 7 >= 5) rate *= spec_.weekend_factor;
  return rate;
}

bool Traffic::InBurst(int64_t day, double second_of_day) const {
  if (day < 0) return false;
  Rng rng(MixSeed(seed_ ^ kBurstSalt, static_cast<uint64_t>(day)));
  const double mean_gap = kDaySeconds / spec_.bursts_per_day;
  const double length = spec_.burst_minutes * 60;
  for (double start = rng.Exponential(mean_gap); start < kDaySeconds;
       start += rng.Exponential(mean_gap)) {
    if (start > second_of_day) return false;  // Starts are increasing.
    if (second_of_day < start + length) return true;
  }
  return false;
}

double Traffic::RateAt(SimTime t) const {
  double rate = ShapeAt(t);
  if (!spec_.points.empty()) return rate;
  const double s = t.ToSeconds();
  if (spec_.noise > 0) {
    const auto step = static_cast<uint64_t>(std::floor(s / (spec_.noise_minutes * 60)));
    Rng rng(MixSeed(seed_ ^ kNoiseSalt, step));
    rate *= std::max(0.0, 1 + spec_.noise * rng.Normal());
  }
  if (spec_.bursts_per_day > 0) {
    // A burst may start on the previous day and run past midnight (burst_minutes <= a day).
    const int64_t day = static_cast<int64_t>(std::floor(s / kDaySeconds));
    const double in_day = s - static_cast<double>(day) * kDaySeconds;
    if (InBurst(day, in_day) || InBurst(day - 1, in_day + kDaySeconds)) rate *= spec_.burst_factor;
  }
  return rate;
}

}  // namespace steward::twin

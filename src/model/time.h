// Simulated time: integer microseconds, so event order never depends on float rounding.
// SimTime is an instant since the scenario's start; SimDuration a span. 30 days is about
// 2.6e12 us, far inside int64. Doubles appear only at report edges (ToSeconds/ToHours).
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace steward {

class SimDuration {
 public:
  constexpr SimDuration() = default;
  static constexpr SimDuration Micros(int64_t us) { return SimDuration(us); }
  static constexpr SimDuration Infinite() {
    return SimDuration(std::numeric_limits<int64_t>::max());
  }
  constexpr int64_t micros() const { return us_; }
  constexpr double ToSeconds() const { return static_cast<double>(us_) / 1e6; }
  constexpr double ToHours() const { return static_cast<double>(us_) / 3.6e9; }
  constexpr bool is_infinite() const { return us_ == std::numeric_limits<int64_t>::max(); }

  constexpr auto operator<=>(const SimDuration&) const = default;
  constexpr SimDuration operator+(SimDuration o) const { return SimDuration(Sat(us_, o.us_)); }
  constexpr SimDuration operator-(SimDuration o) const { return SimDuration(us_ - o.us_); }
  constexpr SimDuration operator*(int64_t k) const { return SimDuration(us_ * k); }
  constexpr int64_t operator/(SimDuration o) const { return us_ / o.us_; }
  constexpr SimDuration operator%(SimDuration o) const { return SimDuration(us_ % o.us_); }
  SimDuration& operator+=(SimDuration o) {
    us_ = Sat(us_, o.us_);
    return *this;
  }

 private:
  constexpr explicit SimDuration(int64_t us) : us_(us) {}
  // Saturating add so "never" plus anything stays "never".
  static constexpr int64_t Sat(int64_t a, int64_t b) {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    if (a == kMax || b == kMax) return kMax;
    if (b > 0 && a > kMax - b) return kMax;
    return a + b;
  }
  int64_t us_ = 0;
};

constexpr SimDuration Micros(int64_t n) { return SimDuration::Micros(n); }
constexpr SimDuration Seconds(int64_t n) { return SimDuration::Micros(n * 1'000'000); }
constexpr SimDuration Minutes(int64_t n) { return Seconds(n * 60); }
constexpr SimDuration Hours(int64_t n) { return Seconds(n * 3600); }
constexpr SimDuration Days(int64_t n) { return Hours(n * 24); }
// Rounds a (finite, non-negative) number of seconds to the nearest microsecond.
constexpr SimDuration SecondsF(double s) {
  return SimDuration::Micros(static_cast<int64_t>(s * 1e6 + (s >= 0 ? 0.5 : -0.5)));
}

class SimTime {
 public:
  constexpr SimTime() = default;
  static constexpr SimTime FromMicros(int64_t us) { return SimTime(us); }
  static constexpr SimTime Never() { return SimTime(std::numeric_limits<int64_t>::max()); }
  constexpr int64_t micros() const { return us_; }
  constexpr double ToSeconds() const { return static_cast<double>(us_) / 1e6; }
  constexpr double ToHours() const { return static_cast<double>(us_) / 3.6e9; }
  constexpr bool is_never() const { return us_ == std::numeric_limits<int64_t>::max(); }

  constexpr auto operator<=>(const SimTime&) const = default;
  constexpr SimTime operator+(SimDuration d) const {
    return SimTime((SimDuration::Micros(us_) + d).micros());
  }
  constexpr SimDuration operator-(SimTime o) const { return SimDuration::Micros(us_ - o.us_); }

 private:
  constexpr explicit SimTime(int64_t us) : us_(us) {}
  int64_t us_ = 0;
};

constexpr SimTime kSimStart = SimTime::FromMicros(0);

}  // namespace steward

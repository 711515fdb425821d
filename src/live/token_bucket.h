// TokenBucket: client-side request rate limiting as client-go's flowcontrol does it: tokens
// refill at `qps` per second up to `burst`; each request takes one, waiting when none is left.
// Defaults in KubeClientOptions are client-go's (5 QPS, burst 10).
//
//   TokenBucket bucket(/*qps=*/5, /*burst=*/10, RealClock());
//   bucket.Acquire();            // returns at once while tokens last, then paces at 5/s
//
// Reserve() is the arithmetic alone: it takes a token now and says how long the caller must
// wait before using it (a debt is paid by the next requests' waits, so concurrent callers are
// spaced 1/qps apart, not released together).
// Cost: O(1). Thread-safety: all methods may be called concurrently; waits happen outside the
// lock.
#pragma once

#include <chrono>
#include <mutex>

#include "live/clock.h"

namespace steward::live {

class TokenBucket {
 public:
  // qps <= 0 disables limiting; burst < 1 is taken as 1.
  TokenBucket(double qps, int burst, Clock* clock);

  // Takes a token, sleeping (on the clock) until it is due.
  void Acquire();
  // Takes a token and returns the wait before it is due (zero if one was available).
  std::chrono::nanoseconds Reserve();

  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  const double qps_;
  const int burst_;
  Clock* const clock_;
  std::mutex mu_;
  double tokens_;                               // Guarded by mu_; negative = debt.
  std::chrono::steady_clock::time_point last_;  // Guarded by mu_.
};

}  // namespace steward::live

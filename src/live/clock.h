// live::Clock: the time source of the live client (rate limiting, retry backoff, credential
// expiry), injectable so tests run the retry and token-bucket arithmetic without sleeping.
//
//   Clock* clock = RealClock();
//   auto start = clock->Now();
//   clock->SleepFor(std::chrono::milliseconds(200));
//
// A fake for tests advances its time on SleepFor instead of blocking (tests/live/fake_clock.h).
// Thread-safety: implementations are called from many threads at once.
#pragma once

#include <chrono>
#include <cstdint>

namespace steward::live {

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic time, for intervals (token bucket, backoff).
  virtual std::chrono::steady_clock::time_point Now() = 0;
  // Wall time in microseconds since the Unix epoch, for expiry timestamps servers send.
  virtual int64_t WallMicros() = 0;
  // Blocks the calling thread for `duration` (a fake returns at once, having advanced Now()).
  virtual void SleepFor(std::chrono::nanoseconds duration) = 0;
};

// The process's real clock (steady_clock, system_clock, this_thread::sleep_for). Never null.
Clock* RealClock();

}  // namespace steward::live

#include "live/clock.h"

#include <thread>

namespace steward::live {
namespace {

class SystemClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point Now() override { return std::chrono::steady_clock::now(); }
  int64_t WallMicros() override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  void SleepFor(std::chrono::nanoseconds duration) override {
    if (duration.count() > 0) std::this_thread::sleep_for(duration);
  }
};

}  // namespace

Clock* RealClock() {
  static SystemClock clock;
  return &clock;
}

}  // namespace steward::live

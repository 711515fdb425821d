#include "live/token_bucket.h"

#include <algorithm>

namespace steward::live {

TokenBucket::TokenBucket(double qps, int burst, Clock* clock)
    : qps_(qps), burst_(std::max(1, burst)), clock_(clock), tokens_(burst_), last_(clock->Now()) {}

std::chrono::nanoseconds TokenBucket::Reserve() {
  if (qps_ <= 0) return std::chrono::nanoseconds(0);
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = clock_->Now();
  if (now > last_) {
    const double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
    last_ = now;
  }
  tokens_ -= 1;
  if (tokens_ >= 0) return std::chrono::nanoseconds(0);
  // The debt is repaid at qps tokens per second.
  return std::chrono::nanoseconds(static_cast<int64_t>(-tokens_ / qps_ * 1e9));
}

void TokenBucket::Acquire() {
  const std::chrono::nanoseconds wait = Reserve();
  if (wait.count() > 0) clock_->SleepFor(wait);
}

}  // namespace steward::live

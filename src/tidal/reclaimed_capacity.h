// ReclaimedCapacity: the GPU-hours of lent capacity that serving took back (the report's
// tidal.gpu_hours_reclaimed, docs/tidal.md). Each GPU of a reclaim counts from the reclaim until
// it is lent again or the run ends; a lend first re-lends GPUs still counted as reclaimed. So a
// morning reclaim of 64 GPUs that are lent again at 22:00 counts 64 GPUs x the hours between.
// The integral depends only on how many reclaimed GPUs are outstanding over time, not on which
// GPUs a later lend takes.
//
//   ReclaimedCapacity r;
//   r.Reclaim(64, t0);              // lent 64 -> 0
//   r.Lend(16, t0 + Hours(10));     // 48 still counted from here
//   double h = r.GpuHours(end);     // 64 x 10 + 48 x (end - t0 - 10 h)
//
// Cost O(1) per call. Thread-safety: none (one controller's state).
#pragma once

#include <algorithm>

#include "model/time.h"

namespace steward::tidal {

class ReclaimedCapacity {
 public:
  // `gpus` of lent quota were taken back at `now`.
  void Reclaim(int gpus, SimTime now) {
    Advance(now);
    outstanding_ += std::max(0, gpus);
  }
  // `gpus` more were lent at `now`: they end the count of as many reclaimed GPUs.
  void Lend(int gpus, SimTime now) {
    Advance(now);
    outstanding_ -= std::min(outstanding_, std::max(0, gpus));
  }
  // GPU-hours counted up to `now` (>= every earlier call's time).
  double GpuHours(SimTime now) const {
    double h = gpu_hours_;
    if (!since_.is_never() && now > since_) h += outstanding_ * (now - since_).ToHours();
    return h;
  }
  int outstanding() const { return outstanding_; }

 private:
  void Advance(SimTime now) {
    gpu_hours_ = GpuHours(now);
    since_ = now;
  }

  int outstanding_ = 0;  // Reclaimed GPUs not lent again.
  double gpu_hours_ = 0;
  SimTime since_ = SimTime::Never();
};

}  // namespace steward::tidal

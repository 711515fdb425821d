// Integrates allocation, GPU_UTIL-style busy time and SM activity analytically: each running
// pod contributes constant rates between events, so GPU-hours are sums of rate x interval,
// updated only when a rate changes (O(1) per change, nothing per tick or per GPU).
#pragma once

#include <vector>

#include "model/time.h"

namespace steward::twin {

struct UsageTotals {
  double allocated_gpu_hours = 0;
  double busy_gpu_hours = 0;
  double sm_gpu_hours = 0;
};

class UsageMeter {
 public:
  explicit UsageMeter(int groups) : groups_(groups) {}

  // Adds deltas (GPUs allocated, busy GPU-equivalents, SM-active GPU-equivalents) to the
  // rates of `group` (a team) and of the whole cluster, from `now` on.
  void Change(SimTime now, int group, double d_alloc, double d_busy, double d_sm);
  // Totals up to `now` (REQUIRES: now >= the last change), for a group or the cluster.
  UsageTotals Group(SimTime now, int group) const { return groups_[group].At(now); }
  UsageTotals Cluster(SimTime now) const { return cluster_.At(now); }
  // Instantaneous cluster rates.
  double alloc_rate() const { return cluster_.alloc; }
  double busy_rate() const { return cluster_.busy; }
  double sm_rate() const { return cluster_.sm; }
  double group_alloc_rate(int group) const { return groups_[group].alloc; }

 private:
  struct Acc {
    SimTime last;
    double alloc = 0, busy = 0, sm = 0;  // Current rates.
    UsageTotals total;
    void Advance(SimTime now);
    UsageTotals At(SimTime now) const;
  };
  std::vector<Acc> groups_;
  Acc cluster_;
};

}  // namespace steward::twin

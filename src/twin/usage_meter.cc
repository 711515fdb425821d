#include "twin/usage_meter.h"

namespace steward::twin {

void UsageMeter::Acc::Advance(SimTime now) {
  const double h = (now - last).ToHours();
  total.allocated_gpu_hours += alloc * h;
  total.busy_gpu_hours += busy * h;
  total.sm_gpu_hours += sm * h;
  last = now;
}

UsageTotals UsageMeter::Acc::At(SimTime now) const {
  Acc copy = *this;
  copy.Advance(now);
  return copy.total;
}

void UsageMeter::Change(SimTime now, int group, double d_alloc, double d_busy, double d_sm) {
  for (Acc* a : {&groups_[group], &cluster_}) {
    a->Advance(now);
    a->alloc += d_alloc;
    a->busy += d_busy;
    a->sm += d_sm;
  }
}

}  // namespace steward::twin

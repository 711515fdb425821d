#include "twin/fault_injector.h"

#include <algorithm>

namespace steward::twin {

FaultInjector::FaultInjector(const FaultSpec& spec, const model::Cluster& cluster, uint64_t seed)
    : spec_(spec), cluster_(cluster) {
  first_version_ = kFirstRollout + static_cast<int>(spec.driver_rollouts.size());
  const int processes = first_version_ + static_cast<int>(spec.versions.size());
  for (int p = 0; p < processes; ++p) rngs_.emplace_back(MixSeed(seed, 0xfa170 + p));
  for (const XidRateSpec& x : spec.xids) xid_rate_per_gpu_ += x.per_gpu_hour;
  rate_per_hour_.assign(processes, 0);
  // Rollouts happen with random faults off too (docs/scenario.md); only their extra XIDs stop.
  batches_.resize(spec.driver_rollouts.size());
  if (!spec.enabled) return;
  rate_per_hour_[kGpuXids] = xid_rate_per_gpu_ * cluster.total_gpus();
  rate_per_hour_[kRackEvents] = spec.rack_events.per_rack_day / 24 * cluster.num_racks();
  for (size_t v = 0; v < spec.versions.size(); ++v)
    rate_per_hour_[first_version_ + v] =
        spec.versions[v].extra_xids_per_gpu_hour * cluster.total_gpus();
}

void FaultInjector::SetBatch(int rollout, model::NodeId first, int count) {
  Batch& b = batches_[rollout];
  b.first_node = first;
  b.nodes = count;
  b.first_gpu = count > 0 ? cluster_.node(first).first_gpu : 0;
  b.gpus = 0;
  for (int i = 0; i < count; ++i) b.gpus += cluster_.node(first + i).gpu_capacity;
  const double extra = spec_.driver_rollouts[rollout].xid_rate_multiplier - 1;
  if (spec_.enabled) rate_per_hour_[kFirstRollout + rollout] = extra * xid_rate_per_gpu_ * b.gpus;
}

SimTime FaultInjector::Next(int process, SimTime now) {
  const double rate = rate_per_hour_[process];
  if (!(rate > 0)) return SimTime::Never();
  return now + SecondsF(rngs_[process].Exponential(1.0 / rate) * 3600);
}

int FaultInjector::DrawXid(int process) {
  if (process >= first_version_) return spec_.versions[process - first_version_].xid;
  double u = rngs_[process].Uniform() * xid_rate_per_gpu_;
  for (const XidRateSpec& x : spec_.xids) {
    if (u < x.per_gpu_hour) return x.xid;
    u -= x.per_gpu_hour;
  }
  return spec_.xids.back().xid;  // Rounding at the top end.
}

model::GpuId FaultInjector::DrawGpu(int process) {
  int first = 0, count = cluster_.total_gpus();
  if (process >= kFirstRollout && process < first_version_) {
    first = batches_[process - kFirstRollout].first_gpu;
    count = batches_[process - kFirstRollout].gpus;
  }
  const int i = static_cast<int>(rngs_[process].Uniform() * count);
  return first + std::min(i, count - 1);
}

int FaultInjector::DrawRack() {
  const int racks = cluster_.num_racks();
  return std::min(static_cast<int>(rngs_[kRackEvents].Uniform() * racks), racks - 1);
}

}  // namespace steward::twin

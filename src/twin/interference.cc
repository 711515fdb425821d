#include "twin/interference.h"

#include <algorithm>
#include <vector>

namespace steward::twin {
namespace {

// P(K = k) for K = the number of `others` with work, each independently with its duty.
std::vector<double> BusyCounts(std::span<const GpuLoad> others) {
  std::vector<double> p(others.size() + 1, 0.0);
  p[0] = 1;
  for (size_t i = 0; i < others.size(); ++i) {
    const double d = std::clamp(others[i].duty, 0.0, 1.0);
    for (size_t k = i + 1; k > 0; --k) p[k] = p[k] * (1 - d) + p[k - 1] * d;
    p[0] *= 1 - d;
  }
  return p;
}

// E[1 / (1 + K)]: the share of the GPU a context with work gets while the others take turns.
double TimeSliceShare(const std::vector<double>& p) {
  double share = 0;
  for (size_t k = 0; k < p.size(); ++k) share += p[k] / static_cast<double>(k + 1);
  return share;
}

double MpsFactor(const InterferenceSpec& spec, std::span<const GpuLoad> others) {
  double load = 0;
  for (const GpuLoad& o : others) load += std::clamp(o.sm_load, 0.0, 1.0);
  const double stretch =
      std::min(1 + spec.mps_slowdown_per_load * load, std::max(1.0, spec.mps_max_slowdown));
  return 1 / stretch;
}

}  // namespace

std::string_view GpuSharingModeName(GpuSharingMode mode) {
  switch (mode) {
    case GpuSharingMode::kMps:
      return "mps";
    case GpuSharingMode::kTimeSlicing:
      return "time-slicing";
    case GpuSharingMode::kNone:
      break;
  }
  return "none";
}

bool ParseGpuSharingMode(std::string_view text, GpuSharingMode* mode) {
  if (text == "none") {
    *mode = GpuSharingMode::kNone;
  } else if (text == "mps") {
    *mode = GpuSharingMode::kMps;
  } else if (text == "time-slicing") {
    *mode = GpuSharingMode::kTimeSlicing;
  } else {
    return false;
  }
  return true;
}

ReplicaEffect ReplicaInterference(const InterferenceSpec& spec, GpuSharingMode mode, bool mig,
                                  std::span<const GpuLoad> neighbours) {
  ReplicaEffect e;
  if (mig || neighbours.empty()) return e;
  switch (mode) {
    case GpuSharingMode::kNone:
      break;
    case GpuSharingMode::kMps:
      e.rate_factor = MpsFactor(spec, neighbours);
      break;
    case GpuSharingMode::kTimeSlicing: {
      const std::vector<double> p = BusyCounts(neighbours);
      e.rate_factor = TimeSliceShare(p);
      e.wait_share = 1 - p[0];
      if (e.wait_share > 0) {
        double mean_busy = 0;  // E[K].
        for (size_t k = 1; k < p.size(); ++k) mean_busy += static_cast<double>(k) * p[k];
        e.wait_ms = spec.time_slice_ms * mean_busy / e.wait_share;
      }
      break;
    }
  }
  return e;
}

double NeighbourSpeed(const InterferenceSpec& spec, GpuSharingMode mode, bool mig,
                      std::span<const GpuLoad> replicas) {
  if (mig || replicas.empty()) return 1;
  switch (mode) {
    case GpuSharingMode::kNone:
      return 1;
    case GpuSharingMode::kMps:
      return MpsFactor(spec, replicas);
    case GpuSharingMode::kTimeSlicing:
      return TimeSliceShare(BusyCounts(replicas));
  }
  return 1;
}

}  // namespace steward::twin

#include "cost/waste_cause.h"

namespace steward::cost {

std::string_view WasteCauseName(WasteCause cause) {
  switch (cause) {
    case WasteCause::kZombie:
      return "zombie";
    case WasteCause::kOverRequest:
      return "over_request";
    case WasteCause::kDataloaderStall:
      return "dataloader_stall";
    case WasteCause::kLowEfficiency:
      return "low_efficiency";
    case WasteCause::kStartup:
      return "startup";
    case WasteCause::kFragmentation:
      return "fragmentation";
    case WasteCause::kQueueing:
      return "queueing";
  }
  return "?";
}

std::optional<WasteCause> ParseWasteCause(std::string_view name) {
  for (WasteCause c : kAllWasteCauses)
    if (WasteCauseName(c) == name) return c;
  return std::nullopt;
}

std::string_view WasteCauseMeaning(WasteCause cause) {
  switch (cause) {
    case WasteCause::kZombie:
      return "held with memory in use but SM-active about 0 for a long streak (idle, abandoned)";
    case WasteCause::kOverRequest:
      return "allocated to a running pod that never drove the GPU (requested, unused)";
    case WasteCause::kDataloaderStall:
      return "held by a computing pod while GPU_UTIL dropped to 0 again and again (input-bound)";
    case WasteCause::kLowEfficiency:
      return "the idle SM share of GPU-hours computing below the SM/tensor-active target";
    case WasteCause::kStartup:
      return "held by a pod that has not started (image pull, container start)";
    case WasteCause::kFragmentation:
      return "free while a pod that fits in the free total found no node with room";
    case WasteCause::kQueueing:
      return "free while work waited for quota (capacity idle, queue blocked)";
  }
  return "";
}

bool IsHolderCause(WasteCause cause) {
  return cause != WasteCause::kFragmentation && cause != WasteCause::kQueueing;
}

double LowEfficiencyGpuHours(double computing_gpu_hours, double sm_active_gpu_hours,
                             double threshold) {
  // Below a microsecond of one GPU: what is left of subtracting equal hours, not computing.
  if (computing_gpu_hours <= 1e-9) return 0;
  // Totals are sums of rate x hours: a steady rate exactly at the threshold (0.3 x h) must not
  // land a rounding error below it.
  if (sm_active_gpu_hours >= threshold * computing_gpu_hours * (1 - 1e-9)) return 0;
  return computing_gpu_hours - sm_active_gpu_hours;
}

}  // namespace steward::cost

// Why a workload is pending, machine-readable (the report counts them by name).
#pragma once

#include <cstdint>
#include <string_view>

namespace steward::twin {

enum class PendingReason : uint8_t {
  kWaitingInQueue,        // Not yet examined: behind the head of a StrictFIFO queue.
  kQuotaExhausted,        // The team's queue has no quota left for it.
  kFragmentation,         // Enough GPUs are free in total, but no node (set) fits it.
  kInsufficientCapacity,  // Fewer schedulable free GPUs (of its model) than it needs.
  // ... but it would fit if the cordoned / broken / unadvertised GPUs (of its model) were back.
  kUnhealthyCapacity,
};
inline constexpr int kNumPendingReasons = 5;

inline std::string_view PendingReasonName(PendingReason r) {
  switch (r) {
    case PendingReason::kWaitingInQueue:
      return "waiting_in_queue";
    case PendingReason::kQuotaExhausted:
      return "quota_exhausted";
    case PendingReason::kFragmentation:
      return "no_fit_fragmentation";
    case PendingReason::kInsufficientCapacity:
      return "insufficient_capacity";
    case PendingReason::kUnhealthyCapacity:
      return "unhealthy_capacity";  // The governance engine's name for it too.
  }
  return "?";
}

}  // namespace steward::twin

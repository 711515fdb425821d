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
};
inline constexpr int kNumPendingReasons = 4;

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
  }
  return "?";
}

}  // namespace steward::twin

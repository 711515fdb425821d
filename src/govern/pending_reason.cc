#include "govern/pending_reason.h"

namespace steward::govern {

std::string_view PendingReasonName(PendingReason reason) {
  switch (reason) {
    case PendingReason::kNone:
      return "none";
    case PendingReason::kLocalQueueNotFound:
      return "local_queue_not_found";
    case PendingReason::kClusterQueueNotFound:
      return "cluster_queue_not_found";
    case PendingReason::kNamespaceMismatch:
      return "namespace_mismatch";
    case PendingReason::kQueueInactive:
      return "queue_inactive";
    case PendingReason::kQueueStopped:
      return "queue_stopped";
    case PendingReason::kResourceNotCovered:
      return "resource_not_covered";
    case PendingReason::kNoMatchingFlavor:
      return "no_matching_flavor";
    case PendingReason::kExceedsMaxQuota:
      return "exceeds_max_quota";
    case PendingReason::kBorrowingLimit:
      return "cohort_borrowing_limit";
    case PendingReason::kQuotaExhausted:
      return "quota_exhausted";
    case PendingReason::kNoPreemptionCandidates:
      return "no_preemption_candidates";
    case PendingReason::kWaitingForPreemptedWorkloads:
      return "waiting_for_preempted_workloads";
    case PendingReason::kGangIncomplete:
      return "gang_incomplete";
    case PendingReason::kWaitingForBackoff:
      return "waiting_for_backoff";
    case PendingReason::kWaitingForPodsReady:
      return "waiting_for_pods_ready";
    case PendingReason::kDeactivated:
      return "deactivated";
    case PendingReason::kNoNodeFits:
      return "no_node_fits";
    case PendingReason::kUnhealthyCapacity:
      return "unhealthy_capacity";
  }
  return "none";
}

std::string_view KueueReasonName(PendingReason reason) {
  switch (reason) {
    case PendingReason::kNone:
      return "";
    case PendingReason::kLocalQueueNotFound:
    case PendingReason::kClusterQueueNotFound:
    case PendingReason::kNamespaceMismatch:
    case PendingReason::kQueueInactive:
      return "Misconfigured";
    case PendingReason::kQueueStopped:
      return "Suspended";
    case PendingReason::kResourceNotCovered:
    case PendingReason::kNoMatchingFlavor:
      return "NoMatchingFlavor";
    case PendingReason::kExceedsMaxQuota:
      return "ExceedsMaxQuota";
    case PendingReason::kBorrowingLimit:
    case PendingReason::kQuotaExhausted:
    case PendingReason::kNoPreemptionCandidates:
      return "WaitingForQuota";
    case PendingReason::kWaitingForPreemptedWorkloads:
      return "WaitingForPreemptedWorkloads";
    case PendingReason::kGangIncomplete:
      return "NotEnoughTasks";
    case PendingReason::kWaitingForBackoff:
      return "Requeued";
    case PendingReason::kWaitingForPodsReady:
      return "WaitingForPodsReady";
    case PendingReason::kDeactivated:
      return "Deactivated";
    case PendingReason::kNoNodeFits:
      return "TopologyPlacementFailed";
    case PendingReason::kUnhealthyCapacity:
      return "NotEnoughResources";
  }
  return "";
}

}  // namespace steward::govern

// Why a workload is not admitted: a machine-readable reason plus the numbers behind it.
//
// Reasons are named after Kueue's QuotaReserved=False reasons where one exists
// (apis/kueue/v1beta2/workload_types.go; queue-semantics.md §2.3) and after Volcano's PodGroup
// conditions otherwise; KueueReasonName() gives the upstream name. Steward adds the numbers
// both systems leave out: needed vs available vs limit, per queue, flavor and resource.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "govern/quantity.h"

namespace steward::govern {

enum class PendingReason : uint8_t {
  kNone = 0,
  kLocalQueueNotFound,            // Kueue: Misconfigured (no such LocalQueue in the namespace).
  kClusterQueueNotFound,          // Kueue: Misconfigured.
  kNamespaceMismatch,             // Kueue: Misconfigured (namespaceSelector does not match).
  kQueueInactive,                 // ClusterQueue inactive (FlavorNotFound, cohort cycle).
  kQueueStopped,                  // Kueue: Suspended (stopPolicy Hold/HoldAndDrain).
  kResourceNotCovered,            // "resource ... unavailable in ClusterQueue".
  kNoMatchingFlavor,              // Untolerated taint / nodeSelector mismatch on every flavor.
  kExceedsMaxQuota,               // Request > the most the queue can ever hold (potential).
  kBorrowingLimit,                // Would fit in the cohort but the queue's borrowingLimit caps it.
  kQuotaExhausted,                // Kueue: WaitingForQuota (insufficient unused quota now).
  kNoPreemptionCandidates,        // Needs preemption, but policy/tiers allow no victim set.
  kWaitingForPreemptedWorkloads,  // Victims chosen, waiting for them to go.
  kGangIncomplete,                // Volcano NotEnoughTasks: fewer pods than minMember exist.
  kWaitingForBackoff,             // waitForPodsReady requeue backoff (requeueState.requeueAt).
  kWaitingForPodsReady,           // blockAdmission: another admitted workload is not PodsReady.
  kDeactivated,                   // spec.active=false (e.g. RequeuingLimitExceeded).
  // Set by the twin's placement, not by the engine (named here so reports share one enum):
  kNoNodeFits,         // Quota admitted but no node set fits (fragmentation).
  kUnhealthyCapacity,  // Capacity exists only on unhealthy or cordoned nodes.
};
inline constexpr int kNumPendingReasons = 19;

// snake_case name used in reports and JSON ("quota_exhausted").
std::string_view PendingReasonName(PendingReason reason);
// Kueue/Volcano reason this maps to ("WaitingForQuota", "Misconfigured", "NotEnoughTasks").
std::string_view KueueReasonName(PendingReason reason);

// One reason with its numbers. Amounts are internal units (govern/quantity.h); fields that do
// not apply are empty / 0.
struct PendingDetail {
  PendingReason reason = PendingReason::kNone;
  std::string cluster_queue;
  std::string pod_set;
  std::string flavor;
  std::string resource;
  Amount needed = 0;     // What the workload asks for on this flavor/resource.
  Amount available = 0;  // What the queue can take now.
  Amount limit = 0;      // The cap that applies (max usable, borrowing limit, nominal).
  std::string message;   // Human text with the numbers in canonical units.
};

}  // namespace steward::govern

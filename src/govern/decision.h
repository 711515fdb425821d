// Decision: the answer of GovernanceEngine::TryAdmit. "Does not fit" is a decision, not an
// error (Kueue's flavorassigner modes): the mode is ordered so callers can compare.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "govern/pending_reason.h"
#include "govern/quantity.h"
#include "model/workload.h"

namespace steward::govern {

// kNoFit < kNeedsPreemption < kDeferred < kFit.
//   kNoFit: cannot be admitted now, even by preempting (reasons say why).
//   kNeedsPreemption: admissible once `victims` are evicted (Release them, then retry).
//   kDeferred: admissible by quota but must wait (backoff, blockAdmission).
//   kFit: Admit() may be called now.
enum class AdmissionMode : uint8_t { kNoFit = 0, kNeedsPreemption = 1, kDeferred = 2, kFit = 3 };
std::string_view AdmissionModeName(AdmissionMode mode);

// Kueue's Preempted condition reasons.
enum class PreemptionReason : uint8_t {
  kInClusterQueue,
  kInCohortReclamation,
  kInCohortReclaimWhileBorrowing,
  kInCohortFairSharing,
};
std::string_view PreemptionReasonName(PreemptionReason reason);

// One (pod set, resource) -> flavor choice; `amount` is the pod set's total (count * per pod).
struct FlavorAssignment {
  int pod_set = 0;
  std::string pod_set_name;
  std::string resource;
  std::string flavor;
  Amount amount = 0;
  bool borrows = false;  // This (flavor, resource) puts the queue above its nominal quota.
};

struct PreemptionTarget {
  int64_t workload_id = 0;
  std::string cluster_queue;
  PreemptionReason reason = PreemptionReason::kInClusterQueue;
  int32_t priority = 0;
  model::Tier tier = model::Tier::kDev;
  int gpus = 0;
  double lost_gpu_hours = 0;  // As in VictimCandidate: work thrown away if evicted now.
};

struct Decision {
  AdmissionMode mode = AdmissionMode::kNoFit;
  std::string cluster_queue;  // Resolved queue ("" if resolution failed).
  int cluster_queue_index = -1;
  int32_t priority = 0;
  model::Tier tier = model::Tier::kDev;
  std::vector<FlavorAssignment> assignments;  // Filled for kFit/kDeferred/kNeedsPreemption.
  bool borrows = false;
  int borrowing_level = 0;  // Max over assignments; 0 = within nominal.
  std::vector<PreemptionTarget> victims;
  std::vector<PendingDetail> reasons;  // Empty for kFit.
  SimTime retry_at;                    // For kWaitingForBackoff: when the backoff ends.

  // The first reason (the one reports count), kNone for kFit.
  PendingReason primary_reason() const {
    return reasons.empty() ? PendingReason::kNone : reasons.front().reason;
  }
  // One line: mode, queue and every reason's message.
  std::string Message() const;
};

}  // namespace steward::govern

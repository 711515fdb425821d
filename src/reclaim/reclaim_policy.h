// The idle-reclaim policy's judgements over a scenario's `reclaim:` section (twin::ReclaimSpec),
// shared by the twin's reclaimer and the controller on the control interface, so both call the
// same workload idle, reclaimable and exempt.
//
//   if (KindRank(spec, kind) >= 0 && IsIdle(spec, sm_active_sum, gpus)) ...
//
// Cost: O(kinds) / O(exempt labels). Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>

#include "model/time.h"
#include "model/workload.h"
#include "reclaim/idle_streaks.h"
#include "twin/scenario.h"

namespace steward::reclaim {

// Position of `kind` in spec.kinds (the order in which workloads due together are reclaimed),
// or -1 when the kind is not reclaimed.
int KindRank(const twin::ReclaimSpec& spec, model::WorkloadKind kind);
// A label in spec.exempt_labels ("*" matches any value) spares the workload.
bool IsExempt(const twin::ReclaimSpec& spec, const std::map<std::string, std::string>& labels);
// Idle: GPUs held and, averaged over them, SM-active under the threshold. `sm_active_sum` is
// the sum over the held GPUs of their SM-active fraction (what mean(DCGM_FI_PROF_SM_ACTIVE)
// over the pod's GPUs times their count gives).
bool IsIdle(const twin::ReclaimSpec& spec, double sm_active_sum, double gpus);

// The policy's notice and reclaim delays.
SimDuration NotifyAfter(const twin::ReclaimSpec& spec);
SimDuration ReclaimAfter(const twin::ReclaimSpec& spec);
// Refuses a spec no streak could follow (reclaim not after the notice, no kinds).
Status CheckReclaimSpec(const twin::ReclaimSpec& spec);

}  // namespace steward::reclaim

// The admission policy of a scenario as a governance Policy, so `steward policy export --kueue`
// can write the policy the twin runs as Kueue YAML (GitOps).
#pragma once

#include "govern/policy.h"
#include "model/status.h"
#include "twin/scenario.h"

namespace steward::twin {

// The scenario's policies.governance files (Kueue/Volcano YAML) when it names any; otherwise its
// fifo-quota teams written as Kueue objects with the same behaviour: one ResourceFlavor "gpu"
// without node labels (fifo-quota counts GPUs of any model), per team a StrictFIFO
// ClusterQueue "<team>" with nominalQuota = the team's quota_gpus of nvidia.com/gpu, no cohort
// (no borrowing, no lending), preemption Never, admitting only the team's namespace, and a
// LocalQueue "<team>" there. No WorkloadPriorityClasses: fifo-quota orders by arrival only.
Result<govern::Policy> ScenarioPolicy(const Scenario& scenario);

}  // namespace steward::twin

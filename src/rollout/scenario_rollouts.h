// The scenario's gated driver rollouts (faults.driver_rollouts entries with `gated`,
// twin/scenario.h GatedRolloutSpec) as rollouts the engine runs inside the twin: one plan per
// entry, run by a TwinRollout from the entry's time, so the twin's bad drivers meet the same
// engine, batches, gates and rollback as `steward rollout run PLAN SCENARIO` (docs/rollout.md,
// "The twin").
//
//   Result<RolloutPlan> plan = PlanForDriverRollout(scenario, cluster, 0);
//   Result<std::vector<TwinRollout*>> attached = AttachScenarioRollouts(twin);  // CreateTwin
//
// The plan: the entry's batch of the pool as explicit targets; batches `canary` (the first
// canary_nodes of the batch) and `rest`; gates `xids` (xid_rate_delta <= max_xid_rate_delta),
// `gpus` (schedulable_gpus >= min_schedulable_gpus) and `jobs` (job_failure_rate <=
// max_job_failure_rate), each failing when its success condition does not hold; rollback to
// each node's own driver. With `gated.plan` the plan file's batches, budgets and gates run on
// the entry's batch instead, and a pause waits for `gated.human`, a human through
// TwinRollout::Answer, or the end of the run. Scripted entries (no `gated`) are the twin's own
// business.
// Cost: O(nodes) per entry. Thread-safety: the twin's thread.
#pragma once

#include <vector>

#include "model/cluster.h"
#include "rollout/plan.h"
#include "rollout/twin_rollout.h"
#include "twin/scenario.h"
#include "twin/twin.h"

namespace steward::rollout {

// The plan of faults.driver_rollouts[index] (gated or not) on `cluster`. InvalidArgument, naming
// the scenario file, line and field, when the batch does not fit the pool.
Result<RolloutPlan> PlanForDriverRollout(const twin::Scenario& scenario,
                                         const model::Cluster& cluster, size_t index);

// Attaches one TwinRollout per gated entry, starting at its at_hours; none without them.
Result<std::vector<TwinRollout*>> AttachScenarioRollouts(twin::Twin& twin);

}  // namespace steward::rollout

// Which nodes a rollout touches and when: the target nodes, their split into the plan's
// batches, and how many may start now under maxParallel / maxUnavailable with the GPU
// Operator's meaning (k8s-operator-libs GetUpgradesAvailable; docs/rollout.md, "Budgets").
//
//   std::vector<std::string> targets = TargetNodes(plan, control.Nodes());
//   Result<std::vector<std::vector<std::string>>> batches = SplitBatches(plan, nodes);
//   int slots = UpgradeSlots(budget);
//
// Pure functions. Cost: O(nodes x batches).
#pragma once

#include <string>
#include <vector>

#include "control/cluster_control.h"
#include "rollout/plan.h"

namespace steward::rollout {

// Nodes with every selector label (and among the plan's explicit `nodes`, if any), in name
// order.
std::vector<control::NodeInfo> TargetNodes(const RolloutPlan& plan,
                                           const std::vector<control::NodeInfo>& nodes);

// The plan's batches over `targets` (name order): explicit nodes, then sizes, percentages of
// all targets (rounded up), racks, pools or the rest, each from the nodes no earlier batch took.
// One list per plan batch (empty when nothing was left for it). An explicit node that is not a
// target is an error.
Result<std::vector<std::vector<std::string>>> SplitBatches(
    const RolloutPlan& plan, const std::vector<control::NodeInfo>& targets);

// A node counts as unavailable when it is unschedulable or not Ready.
bool Unavailable(const control::NodeInfo& node);

struct Budget {
  int total = 0;         // Target nodes.
  int in_progress = 0;   // Nodes past upgrade-required and not yet done or failed.
  int unavailable = 0;   // Unschedulable or NotReady targets, plus cordon-required ones.
  int max_parallel = 1;  // 0 = no limit.
  int max_unavailable = 1;
};
// How many more nodes may start now (>= 0). A node already unschedulable does not need a slot.
int UpgradeSlots(const Budget& b);

}  // namespace steward::rollout

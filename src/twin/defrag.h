// Defragmenting preemption (the guide's 抢占碎片): when a job of whole-node pods waits because
// free GPUs are scattered over partly used nodes, evict a few small preemptible pods to empty
// whole nodes for it. This file is the choice of nodes and victims; the twin finds the
// candidates (nodes whose every pod may be evicted) and evicts through its preemption path.
#pragma once

#include <functional>
#include <vector>

#include "model/cluster.h"
#include "model/workload.h"

namespace steward::twin {

// A node that would be whole if its pods' workloads were evicted.
struct DefragCandidate {
  model::NodeId node = model::kNoNode;
  std::vector<model::WorkloadId> victims;  // Distinct workloads with a pod on the node.
};

struct DefragPlan {
  std::vector<model::NodeId> nodes;
  std::vector<model::WorkloadId> victims;  // Distinct, in the order they were chosen.
  double lost_gpu_hours = 0;               // Work the victims lose.
  bool ok() const { return !nodes.empty(); }
};

// Chooses `nodes_needed` candidates to empty with at most `max_victims` distinct victims,
// minimising lost work greedily: cheapest candidate first by the lost GPU-hours of its victims
// (`lost(w)`), then fewer victims, then lower node id; a candidate whose not yet chosen victims
// would break the bound is skipped. The plan's loss counts each victim once. Returns an empty
// plan if the bound cannot free enough nodes (nothing is evicted for a partial result).
DefragPlan PlanDefrag(std::vector<DefragCandidate> candidates, int nodes_needed, int max_victims,
                      const std::function<double(model::WorkloadId)>& lost);

}  // namespace steward::twin

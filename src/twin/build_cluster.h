// The cluster a scenario describes: its pools' nodes (names "<pool>-<index>", racks and leaves
// numbered cluster-wide in pool order, GPU Operator-style labels), the nodes of an Alibaba node
// list, and the placement pools they fall into.
//
//   Result<model::Cluster> c = BuildCluster(scenario);
//
// Cost: O(nodes), plus one read of the node list file. Thread-compatible.
#pragma once

#include "model/cluster.h"
#include "model/status.h"
#include "twin/scenario.h"

namespace steward::twin {

Result<model::Cluster> BuildCluster(const Scenario& scenario);

}  // namespace steward::twin

// The dashboard's workload list: unfinished workloads of a snapshot filtered by team, pool,
// rack, node, state and pending reason, one page at a time, for GET /api/workloads.
//
//   Result<WorkloadQuery> q = ParseWorkloadQuery(snapshot, params);   // 400 on bad input
//   nlohmann::json page = RunWorkloadQuery(snapshot, *q);
//
// Pages: `limit` items from `offset`, or from a `continue` token (the id of the first workload
// of the next page, as the previous page answered), which stays valid while workloads come and
// go (ids only grow), unlike an offset. A node or rack filter starts from the node's workload
// index (NodeView::workloads), so it never walks the other workloads; the other filters walk
// the unfinished workloads once (no GPU is visited).
// Cost: O(candidates + limit x pods per item). Thread-safety: reads an immutable snapshot.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/status.h"
#include "server/query_params.h"
#include "server/snapshot.h"

namespace steward::server {

struct WorkloadQuery {
  std::string team;    // "" = any.
  std::string state;   // pending | starting | running; "" = any.
  std::string reason;  // A pending reason; "" = any.
  int pool = -1;       // Topology::pools index; -1 = any.
  int rack = -1;       // -1 = any.
  model::NodeId node = model::kNoNode;
  int offset = 0;
  int limit = 100;
  model::WorkloadId start_id = -1;  // From `continue`; -1 = use offset.
};

// Reads and validates team, pool, rack, node, state, reason, offset, limit and continue.
Result<WorkloadQuery> ParseWorkloadQuery(const Snapshot& s, const QueryParams& p);

// {"total", "offset", "limit", "continue" (null on the last page), "workloads": [...]}.
nlohmann::json RunWorkloadQuery(const Snapshot& s, const WorkloadQuery& q);

// One workload as the list and GET /api/workloads/{name} show it.
nlohmann::json WorkloadJson(const Snapshot& s, const WorkloadView& w);

// The unfinished workload with id `id`, or nullptr.
const WorkloadView* FindWorkload(const Snapshot& s, model::WorkloadId id);

}  // namespace steward::server

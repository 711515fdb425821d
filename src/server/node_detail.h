// The dashboard's node panel: one node of a snapshot with a row per GPU — its state, the
// twin's dcgm-exporter readings (temperature, power, framebuffer memory, utilization, the last
// XID, ECC counters) and the pod holding it with its workload and since when — for
// GET /api/nodes/{name}.
//
//   nlohmann::json gpus = NodeGpusJson(snapshot, node);
//
// The readings are the snapshot's dcgm records (refreshed every --dcgm-interval simulated
// seconds; `dcgm_sim_hours` says when); the holders are the snapshot's own, so a pod that just
// started may show before its readings do. Readings are null when the exporter is off.
// Cost: O(GPUs of the node + pods of its workloads); the node's records are found by index
// (records are in cluster GPU order), never by a scan. Thread-safety: reads a snapshot.
#pragma once

#include <nlohmann/json.hpp>

#include "server/snapshot.h"

namespace steward::server {

nlohmann::json NodeGpusJson(const Snapshot& s, const NodeView& node);

}  // namespace steward::server

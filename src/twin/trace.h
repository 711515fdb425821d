// Job traces replayed by the twin instead of (or beside) generators.
//
// Steward's CSV format (header names the columns; order is free):
//   required: submit_seconds, name, team, kind, gpus_per_pod, duration_seconds
//   optional: pods (1), gpu_model (any), tier (by kind), priority_class (= tier),
//             checkpoint_minutes (0), restore_minutes (0), sm_active (0.5), busy (0.9),
//             used_gpu_fraction (1), active_hours (never idles), min_replicas, max_replicas
// The Alibaba GPU trace v2023 pod list (openb_pod_list_*.csv): GPU pods become single-pod
// batch workloads; CPU-only pods are skipped and counted. See docs/scenario.md.
#pragma once

#include <vector>

#include "model/cluster.h"
#include "model/status.h"
#include "model/workload.h"
#include "twin/scenario.h"

namespace steward::twin {

struct TraceLoad {
  std::vector<model::Workload> workloads;  // Sorted by submit time (stable).
  int skipped_cpu_only = 0;
};

Result<TraceLoad> LoadTrace(const TraceSpec& spec, const Scenario& scenario,
                            const model::Cluster& cluster);

}  // namespace steward::twin

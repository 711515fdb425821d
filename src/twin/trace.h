// Job traces replayed by the twin instead of (or beside) generators.
//
// Steward's CSV format (header names the columns; order is free):
//   required: submit_seconds, name, team, kind, gpus_per_pod, duration_seconds
//   optional: pods (1), gpu_model (any), tier (by kind), priority_class (= tier),
//             checkpoint_minutes (0), restore_minutes (0), sm_active (0.5), busy (0.9),
//             used_gpu_fraction (1), active_hours (never idles), min_replicas, max_replicas,
//             queue, labels (key=value;...), idle_busy, cpu_milli and memory_mib (per pod,
//             every pod set's; placement checks them against the node's allocatable),
//             extended_resources (per pod, every pod set's: `name=count` entries separated
//             by ';', e.g. `rdma/ib=1`; names the cluster's pools offer),
//             pod_sets: several pod sets per workload, `name:count:gpus_per_pod[:min_count]`
//             entries separated by ';' (`launcher:1:1;worker:4:8:2`, the generators'
//             pod_sets; min_count 1..count lets a Kueue policy admit fewer pods); a row
//             with pod_sets leaves pods and gpus_per_pod empty, and gpus_per_pod may then be
//             left out of the header. Rows without it stay the short form.
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

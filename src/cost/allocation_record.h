// What a producer (the twin, or an exporter reading Prometheus) tells the ledger about one
// workload in one window. Plain data; the ledger validates it on write.
#pragma once

#include <map>
#include <string>

namespace steward::cost {

struct AllocationRecord {
  std::string workload;        // Unique within the window, e.g. "research/llm-pretrain-7".
  std::string team;            // Owner for showback; "" becomes __unallocated__ when grouped.
  std::string namespace_name;  // Kubernetes namespace.
  std::map<std::string, std::string> labels;  // Pod labels, for aggregate=label:KEY.
  std::string gpu_model;                      // Priced per model by the cost model ("H100").
  // Physical share of one GPU per allocated device: 1.0 whole GPU, 1/7 for a MIG 1g slice,
  // 1/N for a time-slicing replica (see gpu_share.h). In (0, 1]. Informational: the hours
  // below are already share-weighted.
  double gpu_share = 1.0;
  // Whole-GPU-equivalent hours held in the window: devices x share x hours held. This is what
  // is charged (OpenCost's gpuHours: requests, not usage). A 1g MIG slice held 7 h = 1.0.
  double allocated_gpu_hours = 0;
  // Of those, hours a kernel was running (DCGM_FI_DEV_GPU_UTIL-style), share-weighted.
  double busy_gpu_hours = 0;
  // Of those, SM-active-weighted hours (DCGM_FI_PROF_SM_ACTIVE x hours): "real compute".
  double sm_active_gpu_hours = 0;
  // Wasted GPU-hours by cause ("zombie", "over_request", "dataloader_stall", ...), as the waste
  // classifier names them. The ledger stores them as given.
  std::map<std::string, double> waste_gpu_hours_by_cause;
};

// GPU-hours the cluster could have allocated in the window, by GPU model (healthy, schedulable
// devices x window hours). Idle = capacity - allocated, per model.
using CapacityByModel = std::map<std::string, double>;

}  // namespace steward::cost

// Usage profiles of a snapshot's workloads from DCGM history (`twin snapshot --prometheus`):
// what each running workload's GPUs did, as the twin's UsageProfile, so a what-if run starts
// from the cluster's real utilization rather than the trace defaults.
//
//   Result<std::vector<GpuReading>> r = ReadGpuUsage(prometheus, {});   // four instant queries
//   UsageFit fit = FitUsageProfiles(*r, &snapshot_workloads, {});
//
// Per GPU (dcgm-exporter labels each with the namespace and pod holding it), the mean over the
// history window and over the recent window of DCGM_FI_DEV_GPU_UTIL (percent) and
// DCGM_FI_PROF_SM_ACTIVE (0..1). Per workload, over its pods' GPUs:
//   used_gpu_fraction  GPUs whose mean utilization exceeds used_util_percent / all its GPUs
//                      (a job asking for 8 and driving 2: 0.25);
//   busy, sm_active    the means over the used GPUs (SM-active capped at busy, as the trace
//                      reader does); SM-active left unset without profiling metrics;
//   idle now           when the recent SM-active over all its GPUs is under idle_sm_below (and
//                      utilization under idle_util_percent): active_hours 0 and idle_busy = the
//                      recent utilization, so the twin holds it idle from the start, as it is.
// A workload with a pod DCGM says nothing about keeps the defaults (counted and noted).
// Pure functions except ReadGpuUsage (network). Thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/status.h"
#include "snapshot/pod_workloads.h"
#include "telemetry/prometheus_client.h"

namespace steward::snapshot {

struct GpuReading {
  std::string namespace_name, pod;
  std::string gpu;                               // Hostname/gpu (or UUID): one GPU.
  std::optional<double> util_mean, sm_mean;      // Over the history window.
  std::optional<double> util_recent, sm_recent;  // Over the recent window.
};

struct UsageReadOptions {
  std::string window = "24h";  // PromQL duration of the history.
  std::string recent = "30m";  // PromQL duration of "now".
};

// Four instant queries (avg_over_time of GPU_UTIL and SM_ACTIVE over both windows). Fails when
// Prometheus is unreachable or GPU_UTIL matched nothing (the message names the series and the
// URL); SM-active may be missing (profiling metrics off).
Result<std::vector<GpuReading>> ReadGpuUsage(const telemetry::PrometheusClient& prometheus,
                                             const UsageReadOptions& options);

struct UsageFitOptions {
  double used_util_percent = 1;
  double idle_sm_below = 0.05;
  double idle_util_percent = 5;
};

struct UsageFit {
  int profiled = 0;      // Workloads given a profile.
  int without_data = 0;  // Running workloads with a pod lacking readings.
  int idle_now = 0;      // Profiled as idle from the start.
  bool sm_active_missing = false;
  std::vector<std::string> notes;
};

// Sets SnapshotWorkload::usage of each running workload whose every pod has readings.
UsageFit FitUsageProfiles(const std::vector<GpuReading>& readings, SnapshotWorkloads* workloads,
                          const UsageFitOptions& options = {});

}  // namespace steward::snapshot

// How much memory a twin run of a scenario will need, known before anything is built, so a
// scenario too large for the machine is refused at once with the estimate instead of running
// until the machine is out of memory (issue 16).
//
//   MemoryEstimate e = EstimateMemory(scenario);          // horizon_days already applied
//   Status s = CheckMemory(scenario, e, DefaultMemoryLimit());
//   // s: "x.yaml: the run would need about 37.0 GB of memory, more than the limit of 12.0 GB
//   //     (half of this machine's 24.0 GB); most of it for 41,000,000 workloads (...) ..."
//
// The estimate is a sum of measured per-object costs (below): what every node keeps (its
// labels, its state), every workload alive at once (the twin releases finished runs, issue 22;
// see EstimateMemory for the model), every time-series sample of the report, and, when served
// live, what the dashboard and /metrics/dcgm keep per GPU. Costs: O(generators + pools), plus one
// pass over trace and node-list files to count their lines (no parsing). Thread-compatible, no
// state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/status.h"
#include "twin/scenario.h"

namespace steward::twin {

// Bytes per object, from the peak resident memory of `steward twin run --json` (and of `steward
// serve`) on scenarios that vary one count at a time (docs/scenario.md "Size limit"):
//   node: 3.6 KB (1,280 -> 51,200 nodes, no arrivals);
//   workload: 1.0 KB (7 -> 28 days of the default scenario), 1.3 KB (20,000 pending at once),
//     1.6 KB (examples/scale-100k.yaml, 536,535 workloads in 894 MB): 2 KB leaves room for the
//     vector of runs doubling;
//   sample: 4.2 KB (sample_minutes 60 -> 0.01 over one day; the JSON report holds most of it);
//   served GPU (`steward serve` only): 15 KB (its snapshots, dcgm-exporter records and the 54 MB
//     /metrics/dcgm page at 10,240 GPUs);
//   base: 19 MB (the binary and an empty run).
// Pods cost nothing measurable beyond their workload (only running pods hold allocations, and
// those are bounded by the GPUs).
inline constexpr double kBytesPerNode = 4 * 1024;
inline constexpr double kBytesPerWorkload = 2 * 1024;
inline constexpr double kBytesPerSample = 4.5 * 1024;
inline constexpr double kBytesPerServedGpu = 16 * 1024;
inline constexpr double kBytesBase = 24.0 * 1024 * 1024;

struct MemoryEstimate {
  double nodes = 0;        // Nodes of the pools and of the Alibaba node list.
  double workloads = 0;    // Expected arrivals over the horizon (generators and traces).
  double alive = 0;        // Of them, the most held at once (what memory is charged for).
  double samples = 0;      // Report time-series points (horizon / sample_minutes).
  double served_gpus = 0;  // GPUs of the pools when served live (`steward serve`), else 0.
  // What brings the most workloads: e.g. "generators[2] 'notebooks' (1e+09 per hour over 168 h)".
  std::string top_source;
  double top_source_workloads = 0;

  double node_bytes() const { return nodes * kBytesPerNode + served_gpus * kBytesPerServedGpu; }
  double workload_bytes() const { return alive * kBytesPerWorkload; }
  double sample_bytes() const { return samples * kBytesPerSample; }
  double total_bytes() const {
    return kBytesBase + node_bytes() + workload_bytes() + sample_bytes();
  }
};

// The estimate for `scenario` over its horizon_days (apply a --days override first); `served`
// adds what `steward serve` keeps per GPU.
MemoryEstimate EstimateMemory(const Scenario& scenario, bool served = false);

// The default limit: half of the machine's memory (physical RAM, or the cgroup's memory.max
// when lower, as in a container), so a run leaves room for everything else.
int64_t DefaultMemoryLimit();
// Physical RAM (or the cgroup limit when lower), in bytes.
int64_t MachineMemory();

// Ok when the estimate fits under `limit_bytes` (<= 0: no limit); otherwise InvalidArgument
// naming the scenario, the estimate in GB, what drives it, the limit and how to raise it.
Status CheckMemory(const Scenario& scenario, const MemoryEstimate& estimate, int64_t limit_bytes);

// A --memory-limit value: "16G", "800M", "1.5T", "500000K", plain bytes, with an optional
// "i"/"iB"/"B" after the unit (all binary: G = 2^30), or "none" (returns -1: no limit).
Result<int64_t> ParseMemoryLimit(std::string_view text);

// "12.3 GB" (binary GB, one decimal), for messages.
std::string FormatBytes(double bytes);

}  // namespace steward::twin

// The FGD fragmentation experiment (fgd-protocol.md §3 and §7), for one policy, trace and seed.
//
// Pods arrive one at a time in a seeded order and never leave; each is placed or fails (and
// is never retried). The trace is tuned to `tune` × the cluster's GPU capacity by appending
// uniformly drawn clones (or removing random pods). After every pod the run records the GPU
// allocation ratio and the fragmentation; the curves are then taken at each 1% of arrived GPU
// demand (0..130) the way the authors' merge_*_discrete.py scripts do.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/status.h"
#include "place/alibaba_trace.h"
#include "place/cluster_state.h"
#include "place/rng.h"

namespace steward::place {

inline constexpr int kCurvePoints = 131;  // Arrival levels 0..130 %.

// A trace ready to run: the cluster (empty) and the pods in name order, resolved against it.
struct PreparedTrace {
  std::string workload;  // e.g. "openb_pod_list_default".
  ClusterState cluster;
  std::vector<std::string> pod_names;
  std::vector<PodRequest> pods;
};
Result<PreparedTrace> PrepareTrace(const std::vector<NodeSpec>& nodes, std::vector<TracePod> pods,
                                   std::string workload);

struct ExperimentConfig {
  double tune = 1.3;  // Target total GPU request as a multiple of capacity; <= 0: no tuning.
  uint64_t seed = 42;
  bool shuffle = true;  // shufflePod.
  // Called with the cluster after the last pod (e.g. to see where idle GPUs are left).
  std::function<void(const ClusterState&)> on_finish;
};

struct ExperimentResult {
  std::string policy;
  std::string workload;
  double tune = 0;
  uint64_t seed = 0;
  int total_gpus = 0;
  int nodes = 0;
  int64_t pods = 0;  // Submitted, after tuning.
  int64_t failed_pods = 0;
  int64_t failed_gpu_milli = 0;
  // Index k = arrived GPU demand k% of capacity. Values in percent.
  std::vector<double> alloc_ratio;  // Allocated milli-GPU / capacity.
  std::vector<double> frag_ratio;   // Fragmented / idle milli-GPU.
  std::vector<double> frag_amount;  // Fragmented milli-GPU / capacity (Fig. 7).
  std::vector<double> failed_at;    // Failed pods so far (mean over the level's events).
  double final_alloc = 0;           // After the last pod, percent.
  double seconds = 0;               // Wall time of the placement loop, metrics included.
  double decision_seconds = 0;      // Of which deciding and binding (Observe + Place) alone.
  int64_t rescored_leaves = 0;      // Node scores the Placer computed (deterministic work).
  bool uses_future = false;
};

// The submission sequence for a seed (indices into trace.pods; clones repeat an index), and
// the node tie-break ranks, drawn from `rng` in the simulator's order.
struct Sequence {
  std::vector<int32_t> pods;
  std::vector<int32_t> ranks;
};
Sequence MakeSequence(const PreparedTrace& trace, const ExperimentConfig& config, Rng& rng);

Result<ExperimentResult> RunExperiment(const PreparedTrace& trace, std::string_view policy,
                                       const ExperimentConfig& config);

}  // namespace steward::place

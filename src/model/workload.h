// The workload model: what teams run on the cluster and how they actually use the GPUs.
//
// A Workload is one schedulable unit (an inference service, a training job, a notebook, a
// CI/eval batch). It has one or more pod sets; a multi-pod training job is a gang. Its
// UsageProfile says how much of the requested GPU time does real work, as rates that the twin
// integrates analytically over intervals: never per-GPU ticks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/label_map.h"
#include "model/time.h"

namespace steward::model {

using WorkloadId = int32_t;

enum class WorkloadKind : uint8_t { kInference, kTraining, kNotebook, kBatch };
inline constexpr int kNumWorkloadKinds = 4;
std::string_view KindName(WorkloadKind kind);
// Parses "inference" | "training" | "notebook" | "batch" (also "ci", "eval"); false if unknown.
bool ParseKind(std::string_view text, WorkloadKind* kind);

// The guide's three priority tiers (生产推理 / 训练 / 实验开发). Lower value = more important.
enum class Tier : uint8_t { kProduction = 0, kTraining = 1, kDev = 2 };
inline constexpr int kNumTiers = 3;
std::string_view TierName(Tier tier);
bool ParseTier(std::string_view text, Tier* tier);

// Where the pods of a multi-pod workload would like to land, strictest first.
enum class TopologyPreference : uint8_t { kNone, kSameNvlinkDomain, kSameLeaf };
std::string_view TopologyName(TopologyPreference topology);
bool ParseTopology(std::string_view text, TopologyPreference* topology);

// How the workload uses the GPUs it holds, per allocated GPU while running.
struct UsageProfile {
  // Share of requested GPUs the workload really drives (over-request: 8 asked, 2 used = 0.25).
  double used_gpu_fraction = 1.0;
  // On a used GPU while computing: DCGM_FI_DEV_GPU_UTIL-style "a kernel is running" share.
  double busy = 0.9;
  // On a used GPU while computing: DCGM_FI_PROF_SM_ACTIVE (share of SM cycles active).
  double sm_active = 0.5;
  // Periodic data-loader stalls: every stall_period the GPU waits stall_fraction of it at 0%.
  SimDuration stall_period;  // Zero = no stalls.
  double stall_fraction = 0.0;
  // Interactive work (notebooks): computes for active_duration, then idles holding the GPU
  // (memory held, SM ~0) until it ends. Infinite = never idles.
  SimDuration active_duration = SimDuration::Infinite();
  double idle_busy = 0.0;  // GPU_UTIL while idle (a polling kernel shows a few percent).
};

// Derived per-GPU rates over a long interval, used by analytic integration.
struct UsageRates {
  double busy = 0;  // Fraction of allocated GPU time that is "busy" (GPU_UTIL-style).
  double sm = 0;    // Fraction of allocated GPU time that is SM-active.
};
UsageRates ActiveRates(const UsageProfile& usage);
UsageRates IdleRates(const UsageProfile& usage);

// Kueue's limit on a Workload's spec.podSets.
inline constexpr size_t kMaxPodSets = 8;

struct PodSet {
  std::string name;
  int count = 1;         // Pods in the set.
  int gpus_per_pod = 1;  // nvidia.com/gpu per pod.
  // GPU sharing: a pod of one GPU may take only part of it, either a fraction in milli-GPU
  // (HAMi / time-slicing style, 1..999) or one MIG instance ("1g.10gb" ... "7g.80gb"). Quota
  // still counts gpus_per_pod; utilization accounting charges the physical share.
  int gpu_milli = 1000;
  std::string mig_profile = {};  // "" = no MIG.
  // CPU and memory per pod (placement checks them against the node's allocatable); 0 = not
  // given, as for every workload before generators could say (the default twin's).
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  // Extended resources per pod by name (model/extended_resources.h); empty for most pods.
  std::map<std::string, int64_t> extended_resources = {};
  // Kueue partial admission (spec.podSets[].minCount): the fewest pods, 1..count, the set may be
  // admitted with when the whole workload does not fit; 0 = none (all or nothing). The
  // kueue admitter reads it (docs/governance.md); an elastic workload's first set with one may
  // also shrink to it while running (Workload::elastic).
  int min_count = 0;

  bool SharesGpu() const { return gpu_milli < 1000 || !mig_profile.empty(); }
};

// Scalars first: the twin's event handlers read them on runs no longer in cache
// (twin/workload_run.h).
struct Workload {
  WorkloadId id = 0;
  int team = 0;  // Index into the scenario's teams.
  Tier tier = Tier::kDev;
  WorkloadKind kind = WorkloadKind::kBatch;
  TopologyPreference topology = TopologyPreference::kNone;
  // Elastic training (kueue#12146; Kueue's ElasticJobsViaWorkloadSlices): while it runs, its
  // first pod set with a min_count may be resized between min_count and the count it was
  // submitted with (TwinOps::Resize, control::ClusterControl::ResizeWorkload), so a reclaim
  // shrinks it instead of evicting it whole. False: fixed size.
  bool elastic = false;
  int gpu_model = -1;  // Required GPU model index; -1 = any.
  // Inference services: replica range scaled on a diurnal curve (peak at peak_hour).
  int min_replicas = 0;
  int max_replicas = 0;
  double peak_hour = 14.0;
  SimTime submit_time;
  // Time the workload needs to run to completion once started (for services: lifetime).
  SimDuration duration;
  // Training: period between checkpoints (zero = never checkpoints) and time to restore.
  SimDuration checkpoint_interval;
  SimDuration restore_time;
  // Pods of the workload are created one after another, this far apart (zero = all at once,
  // as a Job controller does): a gang is incomplete until all of them exist.
  SimDuration pod_interval;
  // Slow starts (image pulls, node warm-up): each start of its pods takes the scenario's
  // startup plus a uniform draw in [0, startup_jitter), drawn anew at every attempt.
  SimDuration startup_jitter;
  UsageProfile usage;
  std::vector<PodSet> pod_sets;
  std::string name;
  std::string namespace_name;
  std::string queue;           // LocalQueue name.
  std::string priority_class;  // WorkloadPriorityClass name.
  // Volcano: the PodGroup (in the governance policy) whose minMember / minResources / queue
  // govern admission; "" = none.
  std::string pod_group;
  // Kubernetes labels of its pods (exemptions from idle reclaim, right-sizing classes, ledger
  // aggregation by label:KEY). Shared with the other workloads of its generator until changed.
  LabelMap labels;
  // The pod set that resizes: the first with a min_count; -1 when not elastic.
  int ElasticPodSet() const;

  int TotalPods() const;
  int TotalGpus() const;
  bool IsGang() const { return TotalPods() > 1 && kind != WorkloadKind::kInference; }
};

}  // namespace steward::model

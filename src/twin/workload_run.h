// One workload's runtime state in the twin: its spec, where its pods are, what it holds and
// where its work stands. The Twin owns them in a RunTable (twin/run_table.h) and releases a run
// once it has finished and its window is closed; read them between RunUntil() calls only.
//
//   for (const WorkloadRun& run : twin.runs())
//     if (run.state == RunState::kRunning) gpus += run.GpusHeld();
//
// A plain struct: no locking, the twin's thread only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/cluster.h"
#include "model/time.h"
#include "model/workload.h"
#include "twin/pending_reason.h"

namespace steward::twin {

enum class RunState : uint8_t { kPending, kStarting, kRunning, kDone };

// GPU-equivalents a workload holds right now (rates), or GPU-hours over a window (totals),
// split by what the GPUs are doing. The waste causes are the twin's ground truth.
struct WorkloadUsage {
  double allocated = 0;
  double busy = 0;
  double sm_active = 0;
  double zombie = 0;        // Held through an idle (notebook) phase.
  double over_request = 0;  // Requested but never driven.
  double data_stall = 0;    // Driven GPUs waiting on the data loader.
  double startup = 0;       // Allocated while the pod starts.
  void Add(const WorkloadUsage& rate, double hours);
};

struct PodAllocation {
  model::NodeId node = model::kNoNode;
  uint64_t gpus = 0;  // Bit mask of GPU indices on the node.
  int32_t pod_id = 0;
  bool running = false;
  // GPU sharing: milli-GPU per GPU (1000 = whole), or a MIG instance (profile id of
  // place/mig.h, 0 = none) starting at a memory slice.
  int16_t gpu_milli = 1000;
  int8_t mig_profile = 0;
  int8_t mig_start = -1;
  int8_t pod_set = 0;     // Index of its pod set in the workload (its extended resources).
  bool extended = false;  // Its pod set asks for extended resources (saves reading the set).
  // CPU and memory the pod holds on its node (its pod set's; 0 = none given).
  int32_t cpu_milli = 0;
  int32_t memory_mib = 0;
  // The physical GPUs the pod holds: its GPUs, a fraction of one, or a MIG instance's compute
  // share (1g.10gb = 1/7). Utilization accounting charges this; quota counts `gpus`.
  double Share() const;
};

// The runtime state of one workload. Fields in the order event handlers touch them: the run's
// state, times and pods first, then the spec (whose scalars lead, model/workload.h), then what
// only reports and the admitter read. A 102,400-GPU run handles a few events per workload, each
// on a run no longer in cache: packing what they read into the run's leading lines cut its
// misses (docs/performance.md).
struct WorkloadRun {
  RunState state = RunState::kPending;
  bool queued = false;                 // In the admitter's queue.
  bool idle = false;                   // In its idle (zombie) phase.
  bool checkpoint_in_segment = false;  // last_checkpoint is valid.
  bool has_checkpoint = false;         // Any checkpoint ever: a restart restores from it.
  bool in_window = false;
  bool retired = false;            // Finished and handed to the twin's retention queue.
  bool fault_interrupted = false;  // Stopped at least once by a fault or a drain.
  uint32_t epoch = 0;              // Bumped when the run is torn down; stale events are ignored.
  int interruptions = 0;
  int desired_replicas = 0;  // Services.
  SimTime started;           // Start of the current run segment.
  SimDuration remaining;     // Work left at `started`.
  // Checkpoints (docs/twin.md): the current run segment starts at `started` with a restore of
  // segment_restore, then works; checkpoint events save progress every checkpoint_interval.
  SimDuration segment_restore;
  SimTime last_checkpoint;  // Latest checkpoint of the current segment.
  SimTime pending_since;
  SimTime acc_since;
  std::vector<PodAllocation> pods;
  WorkloadUsage rate;  // What it holds now.
  model::Workload spec;
  SimTime first_started = SimTime::Never();
  std::string_view reason = PendingReasonName(PendingReason::kWaitingInQueue);
  std::string reason_detail;
  // Partial admission (Kueue's minCount): the pod sets' counts as submitted while spec's are
  // the fewer admitted ones (AdmissionHost::SetAdmittedCounts); empty = not reduced.
  std::vector<int> requested_counts;
  WorkloadUsage window_total;  // GPU-hours since the current window opened (or acc_since).
  // GPUs its pods hold (a shared or MIG pod counts its one GPU).
  int GpusHeld() const;
};

}  // namespace steward::twin

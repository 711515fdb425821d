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
  int8_t pod_set = 0;  // Index of its pod set in the workload (its extended resources).
  // CPU and memory the pod holds on its node (its pod set's; 0 = none given).
  int32_t cpu_milli = 0;
  int32_t memory_mib = 0;
  // The physical GPUs the pod holds: its GPUs, a fraction of one, or a MIG instance's compute
  // share (1g.10gb = 1/7). Utilization accounting charges this; quota counts `gpus`.
  double Share() const;
};

// The runtime state of one workload.
struct WorkloadRun {
  model::Workload spec;
  RunState state = RunState::kPending;
  uint32_t epoch = 0;   // Bumped when the run is torn down; stale events are ignored.
  bool queued = false;  // In the admitter's queue.
  bool idle = false;    // In its idle (zombie) phase.
  std::string_view reason = PendingReasonName(PendingReason::kWaitingInQueue);
  std::string reason_detail;
  SimTime pending_since;
  SimTime started;  // Start of the current run segment.
  SimTime first_started = SimTime::Never();
  SimDuration remaining;     // Work left at `started`.
  int desired_replicas = 0;  // Services.
  std::vector<PodAllocation> pods;
  int interruptions = 0;
  bool fault_interrupted = false;  // Stopped at least once by a fault or a drain.
  // Partial admission (Kueue's minCount): the pod sets' counts as submitted while spec's are
  // the fewer admitted ones (AdmissionHost::SetAdmittedCounts); empty = not reduced.
  std::vector<int> requested_counts;
  // Checkpoints (docs/twin.md): the current run segment starts at `started` with a restore of
  // segment_restore, then works; checkpoint events save progress every checkpoint_interval.
  SimDuration segment_restore;
  SimTime last_checkpoint;             // Latest checkpoint of the current segment ...
  bool checkpoint_in_segment = false;  // ... valid when this is set.
  bool has_checkpoint = false;         // Any checkpoint ever: a restart restores from it.
  WorkloadUsage rate;                  // What it holds now.
  WorkloadUsage window_total;          // GPU-hours since the current window opened (or acc_since).
  SimTime acc_since;
  bool in_window = false;
  bool retired = false;  // Finished and handed to the twin's retention queue.
  // GPUs its pods hold (a shared or MIG pod counts its one GPU).
  int GpusHeld() const;
};

}  // namespace steward::twin

// The digital twin: a deterministic discrete-event simulation of a Kubernetes GPU cluster.
//
// The loop pops the next event (ordered by time, then insertion), advances "now", and
// dispatches to one handler per event kind. Policies (admission, placement) decide; the twin
// turns their decisions into allocations and events. Utilization is integrated analytically
// (UsageMeter), so the cost of a run is proportional to events, not to GPUs x time.
// Same scenario + seed => identical event sequence => byte-identical report.
// A Twin is single-threaded and owns its cluster, state and policies.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/cluster.h"
#include "model/status.h"
#include "model/workload.h"
#include "twin/admitter.h"
#include "twin/cluster_state.h"
#include "twin/event_queue.h"
#include "twin/placer.h"
#include "twin/report.h"
#include "twin/rng.h"
#include "twin/scenario.h"
#include "twin/usage_meter.h"
#include "twin/workload_source.h"

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

// One workload's usage in one closed window, for showback ledgers.
struct UsageRecord {
  std::string workload;
  std::string team;
  std::string namespace_name;
  std::string kind;
  std::string gpu_model;  // "" when the workload may run on any model.
  WorkloadUsage hours;
};

struct TwinOptions {
  // Overrides of the scenario (negative / zero = keep the scenario's).
  double days = 0;
  int64_t seed = -1;
  // Kueue/Volcano policy files; non-empty selects the "kueue" admitter (overrides the
  // scenario's policies.governance).
  std::vector<std::string> policy_files;
  // Per-workload usage windows (e.g. for `--ledger`): called at every window end and at the
  // end of the run with the workloads that held GPUs in [start, end).
  SimDuration window = Hours(1);
  std::function<void(SimTime start, SimTime end, const std::vector<UsageRecord>&)> on_window;
  // Called about once per simulated day with (now, horizon); for progress on stderr.
  std::function<void(SimTime, SimTime)> progress;
};

struct PodAllocation {
  model::NodeId node = model::kNoNode;
  uint64_t gpus = 0;  // Bit mask of GPU indices on the node.
  int32_t pod_id = 0;
  bool running = false;
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
  WorkloadUsage rate;          // What it holds now.
  WorkloadUsage window_total;  // GPU-hours since the current window opened (or acc_since).
  SimTime acc_since;
  bool in_window = false;
};

class Twin : private AdmissionHost {
 public:
  // Builds the cluster, loads traces and creates the policies; fails on a bad scenario.
  static Result<std::unique_ptr<Twin>> Create(Scenario scenario, const TwinOptions& options = {});

  // Runs to the horizon and returns the report.
  Report Run();
  // Runs until `t` (or the horizon); Run() is RunUntil(horizon) + Finish().
  void RunUntil(SimTime t);
  Report BuildReport() const;

  SimTime now() const { return now_; }
  SimTime horizon() const { return horizon_; }
  const Scenario& scenario() const { return scenario_; }
  const model::Cluster& cluster() const { return cluster_; }
  const ClusterState& state() const { return *state_; }
  const std::vector<WorkloadRun>& runs() const { return runs_; }
  const UsageMeter& meter() const { return meter_; }
  // The run of the workload called `name`, or nullptr.
  const WorkloadRun* FindRun(std::string_view name) const;
  int64_t events_processed() const { return events_; }

  // Live controls (steward serve). Call them between RunUntil() calls, on the thread that
  // runs the twin; each takes effect at now() and asks for an admission cycle.
  // Submits `w` as arriving now (its id and submit time are assigned here); returns its id.
  // Fails on an unknown team or GPU model or a pod that no node could hold.
  Result<model::WorkloadId> Submit(model::Workload w);
  // Cordons (or uncordons) node `n`: a cordoned node takes no new pods; running pods stay.
  Status SetNodeCordoned(model::NodeId n, bool cordoned);
  // Changes the nominal GPU quota of `team`'s queue, if the admission policy has one.
  Status SetTeamQuota(int team, int gpus);

 private:
  Twin(Scenario scenario, model::Cluster cluster);

  // Event handlers.
  void OnArrive(const Event& e);
  void OnSchedule();
  void OnStart(const Event& e);
  void OnPhase(const Event& e);
  void OnFinish(const Event& e);
  void OnFail(const Event& e);
  void OnScale();
  void OnSample();
  void OnWindow();

  // AdmissionHost.
  const model::Workload& workload(model::WorkloadId id) const override { return runs_[id].spec; }
  int GpusWanted(model::WorkloadId id) const override;
  int TryPlace(model::WorkloadId id, int gpu_budget, bool* done) override;
  void SetPendingReason(model::WorkloadId id, std::string_view reason,
                        std::string detail) override {
    runs_[id].reason = reason;
    runs_[id].reason_detail = std::move(detail);
  }
  void Preempt(model::WorkloadId victim, model::WorkloadId preemptor) override;
  SimTime Now() const override { return now_; }

  void RequestSchedule();
  void MakePending(model::WorkloadId id);
  // Places one pod set worth of pods; all-or-nothing. Returns false (and releases) if any
  // pod does not fit.
  bool PlacePods(WorkloadRun& run, int pods, int gpus_per_pod);
  // Releases pods [from, end). A rollback (undoing a placement that never admitted) does not
  // tell the admitter, which never counted those GPUs.
  void ReleasePods(WorkloadRun& run, size_t from, bool rollback = false);
  void SetRates(WorkloadRun& run, bool active, bool running);
  // Recomputes what `run` holds from its pods and phase, and moves the meters by the change.
  // Every change of a workload's pods, state or phase ends with this one call.
  void Reaccount(WorkloadRun& run);
  void EmitWindow(SimTime end);
  int RunningPods(const WorkloadRun& run) const;
  int DesiredReplicas(const model::Workload& w, SimTime t) const;
  void RecordWait(const WorkloadRun& run);
  // Sets the no-fit reason of a workload that passed admission but did not fit any node.
  void SetNoFitReason(WorkloadRun& run, int gpus_needed);
  // Tears down a running workload, keeping work up to its last checkpoint; returns the
  // GPU-hours lost. Used by failures and preemptions.
  double Interrupt(WorkloadRun& run);

  Scenario scenario_;
  model::Cluster cluster_;
  std::unique_ptr<ClusterState> state_;
  std::unique_ptr<Admitter> admitter_;
  std::unique_ptr<Placer> placer_;
  std::vector<std::unique_ptr<WorkloadSource>> sources_;
  EventQueue events_queue_;
  UsageMeter meter_;
  Rng failure_rng_;
  SimTime now_;
  SimTime horizon_;
  SimDuration startup_;
  bool schedule_requested_ = false;
  int64_t events_ = 0;
  int32_t next_pod_id_ = 0;
  std::vector<WorkloadRun> runs_;
  std::vector<model::WorkloadId> services_;
  int pending_ = 0;
  int running_ = 0;
  int completed_ = 0;
  int interruptions_ = 0;
  double lost_gpu_hours_ = 0;
  std::vector<std::vector<double>> waits_by_tier_;
  std::vector<std::vector<double>> waits_by_team_;
  std::map<std::string, int> preemptions_by_tier_;
  std::map<std::string, double> lost_by_team_;
  std::vector<TenantAlert> alerts_;  // Indexed by team; team "" = never alerted.
  std::vector<TimePoint> series_;
  std::function<void(SimTime, SimTime)> progress_;
  std::function<void(SimTime, SimTime, const std::vector<UsageRecord>&)> on_window_;
  SimDuration window_;
  SimTime window_start_;
  std::vector<model::WorkloadId> window_runs_;  // Runs that held GPUs in the open window.
  SimTime next_progress_;
};

}  // namespace steward::twin

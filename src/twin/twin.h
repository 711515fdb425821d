// The digital twin: a deterministic discrete-event simulation of a Kubernetes GPU cluster.
//
// The loop pops the next event (ordered by time, then insertion), advances "now", and
// dispatches to one handler per event kind. Policies (admission, placement) decide; the twin
// turns their decisions into allocations and events. Utilization is integrated analytically
// (UsageMeter), so the cost of a run is proportional to events, not to GPUs x time.
// Same scenario + seed => identical event sequence => byte-identical report.
// A Twin is single-threaded and owns its cluster, state and policies.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "control/tenant_share_alert.h"
#include "model/cluster.h"
#include "model/status.h"
#include "model/workload.h"
#include "twin/admitter.h"
#include "twin/cluster_state.h"
#include "twin/controller.h"
#include "twin/event_queue.h"
#include "twin/fault_injector.h"
#include "twin/gpu_sharing.h"
#include "twin/lifecycle.h"
#include "twin/placer.h"
#include "twin/report.h"
#include "twin/rng.h"
#include "twin/run_table.h"
#include "twin/scenario.h"
#include "twin/service_model.h"
#include "twin/usage_meter.h"
#include "twin/wait_distribution.h"
#include "twin/workload_run.h"
#include "twin/workload_source.h"

namespace steward::twin {

// One workload's usage in one closed window, for showback ledgers.
struct UsageRecord {
  std::string workload;
  std::string team;
  std::string namespace_name;
  std::string kind;
  std::string gpu_model;  // "" when the workload may run on any model.
  WorkloadUsage hours;
  // Its spec (requests, labels); valid during the on_window callback only.
  const model::Workload* spec = nullptr;
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
  // Refuse to build a twin whose estimated memory (twin/memory_estimate.h) exceeds this many
  // bytes: 0 = half of the machine's memory, < 0 = no limit (`--memory-limit none`).
  int64_t memory_limit_bytes = 0;
  // Called about once per simulated day with (now, horizon); for progress on stderr.
  std::function<void(SimTime, SimTime)> progress;
  // Called at every step of every workload's lifecycle (twin/lifecycle.h), in event order;
  // e.g. for `--events`. Unset costs nothing.
  std::function<void(const LifecycleRecord&)> on_lifecycle;
  // Finished runs stay readable in runs() (state kDone) until this many more have finished;
  // then they are released and only the report's accumulators remember them (issue 22:
  // memory bounded by live state). < 0 keeps every run (tests that inspect finished runs).
  int finished_runs_kept = kDefaultFinishedRunsKept;
};

// Fault state of one GPU, as DCGM would report it.
struct GpuFaultState {
  int last_xid = 0;  // DCGM_FI_DEV_XID_ERRORS: the last XID (cleared by a repair).
  // ECC error counters: volatile ones reset with the GPU (repair), aggregate ones persist.
  int64_t ecc_sbe_volatile = 0, ecc_dbe_volatile = 0;
  int64_t ecc_sbe_aggregate = 0, ecc_dbe_aggregate = 0;
  // NVLink error counters (totals over the GPU's links).
  int64_t nvlink_crc_flit = 0, nvlink_crc_data = 0, nvlink_replay = 0, nvlink_recovery = 0;
};

// Why work was thrown away.
// kResize: an elastic job's pause while its remaining workers regroup after a shrink; kRegrow:
// its pause while it grows back (the new workers start, then all regroup).
enum class LossCause : uint8_t {
  kFailure,
  kDrain,
  kPreemption,
  kPodsReadyTimeout,
  kResize,
  kRegrow
};

// One preemption (issue 6: every preemption recorded with the work it threw away).
struct PreemptionRecord {
  SimTime at;
  std::string victim;
  std::string preemptor;
  std::string team;  // The victim's.
  model::Tier tier = model::Tier::kDev;
  int gpus = 0;
  // (time since its last checkpoint, or since its start without one, + restore) x GPUs.
  double lost_gpu_hours = 0;
};

class Twin : private AdmissionHost, private TwinOps {
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
  const Scenario& scenario() const override { return scenario_; }
  // The tenant isolation audit of the scenario's tenancy section, done once at Create (static:
  // it reads the section's objects, the twin's nodes and policy); null without the section.
  const std::optional<audit::AuditResult>& tenancy() const { return tenancy_; }
  const model::Cluster& cluster() const override { return cluster_; }
  const ClusterState& state() const { return *state_; }
  // The runs held now, by id (twin/run_table.h): every workload not finished, plus the most
  // recent TwinOptions::finished_runs_kept finished ones; runs().size() counts every id.
  const RunTable& runs() const { return runs_; }
  // Workloads finished so far (completed, or stopped by a controller).
  int workloads_done() const { return completed_ + stopped_; }
  const UsageMeter& meter() const { return meter_; }
  std::string_view admission_policy() const { return admitter_->Name(); }
  // The run of the workload called `name`, or nullptr.
  const WorkloadRun* FindRun(std::string_view name) const;
  int64_t events_processed() const { return events_; }
  // Every preemption so far, in order.
  const std::vector<PreemptionRecord>& preemption_records() const { return preemption_records_; }
  // Adds a listener for every lifecycle step, after TwinOptions::on_lifecycle (e.g. the
  // Kubernetes front's events for drains and failures). Called on the simulation thread.
  void AddLifecycleListener(std::function<void(const LifecycleRecord&)> listener);

  // Live controls (steward serve). Call them between RunUntil() calls, on the thread that
  // runs the twin; each takes effect at now() and asks for an admission cycle.
  // Submits `w` as arriving now (its id and submit time are assigned here); returns its id.
  // Fails on an unknown team or GPU model or a pod that no node could hold.
  Result<model::WorkloadId> Submit(model::Workload w);
  // Cordons (or uncordons) node `n`: a cordoned node takes no new pods; running pods stay.
  Status SetNodeCordoned(model::NodeId n, bool cordoned);
  // Changes the nominal GPU quota of `team`'s queue: the fifo-quota team queue, or under the
  // kueue admitter the nominal quota of the team's ClusterQueue (its only GPU flavor).
  Status SetTeamQuota(int team, int gpus);
  // Changes the nominal GPU quota of a ClusterQueue in `flavor` ("" = its only GPU flavor).
  Status SetClusterQueueQuota(std::string_view cluster_queue, std::string_view flavor, int gpus);
  // Sets (nullopt: removes) the GPU lendingLimit of a ClusterQueue in `flavor` (twin_control.cc).
  Status SetClusterQueueLendingLimit(std::string_view cluster_queue, std::string_view flavor,
                                     std::optional<int> gpus);
  // Replaces node `n`'s labels (what `kubectl label node` writes). Placement goes by pools and
  // GPU models, so a label does not move a node between pools.
  Status SetNodeLabels(model::NodeId n, std::map<std::string, std::string> labels);
  // Replaces node `n`'s taints (`kubectl taint`). The twin's workloads tolerate the taints
  // their scenario's nodes start with (as GPU pods tolerate nvidia.com/gpu); any other
  // NoSchedule or NoExecute taint keeps new pods off the node, like a cordon. Running pods
  // stay (NoExecute eviction is not modelled). InvalidArgument for an unknown effect.
  Status SetNodeTaints(model::NodeId n, std::vector<model::Taint> taints);
  // Evicts one pod (PodAllocation::pod_id) of workload `w`, as the Eviction API does: it stops
  // `grace` from now. A service loses that replica (and asks for a new one); a job's pods
  // stop together (a gang restarts whole), saving a checkpoint within the grace if it can, as
  // a drain's evictions do. NotFound when the pod is gone.
  Status EvictPod(model::WorkloadId w, int32_t pod_id, SimDuration grace);
  // Where workload `id` holds quota now (Kueue's Workload status.admission), if the admitter
  // has ClusterQueues.
  Admitter::Admission AdmissionOf(model::WorkloadId id) const { return admitter_->AdmissionOf(id); }
  // The governance policy of the kueue admitter (null under fifo-quota).
  const govern::Policy* governance_policy() const override { return admitter_->policy(); }
  // Bumped by every quota change: the queues' resourceVersion (TwinClusterControl).
  uint64_t quota_generation() const override { return quota_generation_; }
  // GPUs team `team` holds under its quota now (the admitter's count).
  int team_used_gpus(int team) const { return admitter_->used_gpus(team); }
  // The scheduler's queues and counters (Kueue-metric style; no queues under fifo-quota).
  SchedulerReport Scheduler() const;
  // Injects XID `xid` on GPU `gpu` of node `n` now (gpu -1: every GPU of the node); its effect
  // follows the XID catalog's action (twin_faults.cc). InvalidArgument for an XID the catalog
  // does not know or a GPU the node does not have.
  Status InjectXid(model::NodeId n, int gpu, int xid);
  // A rack event now: every node of `rack` reports `xid` on all its GPUs.
  Status InjectRackEvent(int rack, int xid);

  // Controllers (twin/controller.h): attached before or between RunUntil() calls; the twin
  // owns them. Returns the controller, or the error of its Attach().
  Result<TwinController*> AddController(std::unique_ptr<TwinController> controller);
  const std::vector<std::unique_ptr<TwinController>>& controllers() const { return controllers_; }
  // `controller` changed outside the twin's events (a human's answer through steward serve):
  // re-reads its NextDeadline(). Between RunUntil() calls only.
  void Rewake(const TwinController* controller);

  // Fault state, per GPU (by GpuId) and per node.
  const std::vector<GpuFaultState>& gpu_faults() const { return gpu_faults_; }
  // The device plugin advertises no GPUs on the node (a bad driver).
  bool gpus_missing(model::NodeId n) const { return nodes_[n].gpus_missing; }
  // Nodes of each rack, by rack id.
  const std::vector<model::NodeId>& rack_nodes(int rack) const { return rack_nodes_[rack]; }

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
  void OnFault(const Event& e);
  void OnPlannedFault(const Event& e);
  void OnRollout(const Event& e);
  void OnEvictEnd(const Event& e);
  void OnCheckpoint(const Event& e);
  void OnWake(const Event& e);
  void OnServe();  // twin_serving.cc.

  // TwinOps (for controllers); Now() is shared with AdmissionHost.
  Status SetCordoned(model::NodeId n, bool cordoned) override {
    return SetNodeCordoned(n, cordoned);
  }
  Status SetLabels(model::NodeId n, std::map<std::string, std::string> labels) override {
    return SetNodeLabels(n, std::move(labels));
  }
  Status SetTaints(model::NodeId n, std::vector<model::Taint> taints) override {
    return SetNodeTaints(n, std::move(taints));
  }
  std::vector<NodeWorkloadInfo> WorkloadsOn(model::NodeId n) const override;
  Status SetQueueGpuQuota(std::string_view queue, std::string_view flavor, int gpus) override;
  Status SetQueueGpuLendingLimit(std::string_view queue, std::string_view flavor,
                                 std::optional<int> gpus) override {
    return SetClusterQueueLendingLimit(queue, flavor, gpus);
  }
  Status Evict(model::NodeId n, model::WorkloadId w, SimDuration grace) override;
  Status Repair(model::NodeId n) override;
  bool Healthy(model::NodeId n) const override;
  Result<WorkloadView> View(model::WorkloadId w) const override;
  Status Stop(model::WorkloadId w) override;
  Status Resize(model::WorkloadId w, int workers) override;  // twin_elastic.cc.
  std::vector<ServingLoad> ServingLoads() const override;

  // AdmissionHost.
  const model::Workload& workload(model::WorkloadId id) const override { return runs_[id].spec; }
  int GpusWanted(model::WorkloadId id) const override;
  int TryPlace(model::WorkloadId id, int gpu_budget, bool* done) override;
  void SetPendingReason(model::WorkloadId id, std::string_view reason,
                        std::string_view detail) override {
    runs_[id].reason = reason;
    runs_[id].reason_detail.assign(detail);  // Reuses the string's buffer.
  }
  void Preempt(model::WorkloadId victim, model::WorkloadId preemptor) override;
  bool FitsAfterPreempting(model::WorkloadId id,
                           const std::vector<model::WorkloadId>& victims) const override;
  SimTime Now() const override { return now_; }  // AdmissionHost and TwinOps.
  void EvictPodsReadyTimeout(model::WorkloadId id) override;
  void SetGpuModel(model::WorkloadId id, int gpu_model) override {
    runs_[id].spec.gpu_model = gpu_model;
  }
  void SetAdmittedCounts(model::WorkloadId id, const std::vector<int>& counts) override;
  SimTime PendingSince(model::WorkloadId id) const override { return runs_[id].pending_since; }
  void RequestCycleAt(SimTime t) override;
  std::string_view PendingReasonOf(model::WorkloadId id, std::string* detail) const override {
    *detail = runs_[id].reason_detail;
    return runs_[id].reason;
  }
  bool AdmitsPerReplica(model::WorkloadId id) const override;  // twin_serving.cc.

  // Takes a new workload (an arrival or a submission; its id is already runs_.size()) into
  // the run list and the admission queue.
  void Accept(model::Workload w);
  void RequestSchedule();
  void MakePending(model::WorkloadId id);
  // Places one pod set worth of pods; all-or-nothing. Returns false (and releases) if any
  // pod does not fit.
  bool PlacePods(WorkloadRun& run, int pods, const model::PodSet& pod_set);
  // Releases pods [from, end). A rollback (undoing a placement that never admitted) does not
  // tell the admitter, which never counted those GPUs.
  void ReleasePods(WorkloadRun& run, size_t from, bool rollback = false);
  void SetRates(WorkloadRun& run, bool active, bool running);
  // Recomputes what `run` holds from its pods and phase, and moves the meters by the change.
  // Every change of a workload's pods, state or phase ends with this one call.
  void Reaccount(WorkloadRun& run);
  void EmitWindow(SimTime end);
  // How long this start of `w`'s pods takes: the scenario's startup, plus a fresh draw of
  // its startup jitter.
  SimDuration StartupDelay(const model::Workload& w);
  int RunningPods(const WorkloadRun& run) const;
  int DesiredReplicas(const model::Workload& w, SimTime t) const;
  void RecordWait(const WorkloadRun& run);
  // Hands a finished run to the retention queue once nothing in the twin needs it any more
  // (out of the admitter's queue, its usage window closed, no serving model reporting on it),
  // releasing the oldest retained run beyond finished_runs_kept_.
  void MaybeRetire(WorkloadRun& run);
  // Sets the no-fit reason of a workload that passed admission but did not fit any node.
  void SetNoFitReason(WorkloadRun& run, int gpus_needed);
  // Tears down a running workload, keeping work up to its last checkpoint; returns the
  // GPU-hours lost. Used by failures, drains and preemptions.
  double Interrupt(WorkloadRun& run, LossCause cause);
  // Serving (twin_serving.cc): sets up the services' models and the autoscalers' sync when a
  // generator has traffic:; a new service gets its model; the report's serving part.
  Status SetUpServing();
  bool AcceptService(WorkloadRun& run);
  void FillServingReport(Report& r) const;
  // GPU sharing (twin_sharing.cc), only when a pool shares GPUs (its gpu_sharing): the index of
  // pods that share a GPU, kept as pods are placed and released; the interference of each
  // ready replica at a serving sync; its neighbours' GPU-hours; the report's part.
  void SetUpSharing();
  void IndexSharedPod(const WorkloadRun& run, const PodAllocation& p, bool placed);
  ReplicaSharing SharingOf(const WorkloadRun& run, const ServiceModel& model);
  void AccountSharedNeighbours();
  void FillSharingReport(Report& r) const;
  // Applies a new desired replica count to a service: releases the extra pods or asks for more.
  void Rescale(WorkloadRun& run, int desired);
  // Schedules a (re)started workload's checkpoints and its non-GPU failure.
  void ScheduleRunEvents(WorkloadRun& run, int gpus);
  // Accounts `hours` of lost work of `run` to `cause`.
  void AddLost(const WorkloadRun& run, double hours, LossCause cause);

  // Faults (twin_faults.cc).
  struct NodeFaults {
    bool gpus_missing = false;  // The device plugin advertises no GPUs.
    int rollout = -1;           // Driver rollout the node is on (-1: the pool's driver).
    // faults.versions entries a rollout set on the node, by version label (twin_faults.cc).
    std::map<std::string, int> versions;
    bool tainted = false;  // A NoSchedule/NoExecute taint the workloads do not tolerate.
    SimTime out_since = SimTime::Never();  // Open fault episode (for MTTR).
  };
  enum class FaultSource : uint8_t { kRandom, kRack, kDriver, kScheduled, kInjected };
  struct PlannedFault {
    model::NodeId node = model::kNoNode;  // Or ...
    int rack = -1;                        // ... a rack event.
    int gpu = -1;
    int xid = 0;
    FaultSource source = FaultSource::kScheduled;
  };
  Status SetUpFaults();
  // Applies XID `xid` to GPUs of node n (gpu -1 = all) and tells the controllers.
  void ApplyXid(model::NodeId n, int gpu, int xid, FaultSource source);
  void ApplyRackEvent(int rack, int xid, FaultSource source);
  void SetGpuBroken(model::GpuId g, bool broken);
  void SetGpusMissing(model::NodeId n, bool missing);
  // A rollout changed version labels of node n (`before` -> its labels now): what the new
  // versions do (faults.versions) takes effect.
  void ApplyVersionLabels(model::NodeId n, const std::map<std::string, std::string>& before);
  bool RunsVersion(model::NodeId n, int version) const;
  // Node n's driver label says `driver`: it joins the gated faults.driver_rollouts entry whose
  // batch holds it with that version, or leaves the one it was on.
  void SetGatedRollout(model::NodeId n, const std::string& driver);
  // Re-derives the node's allocatable GPUs and schedulability, and opens or closes its fault
  // episode.
  void RefreshNode(model::NodeId n);
  // Stops what runs on GPU g of node n because of a fault.
  void StopOnGpu(model::NodeId n, model::GpuId g);
  // Removes pod `index` of a service (a replica) and asks for a new one.
  void DropReplica(WorkloadRun& run, size_t index);
  // Stops `run`'s pods on node n for a drain: a gang restarts whole, a service loses its
  // replicas there; `saves`: a checkpoint is taken first.
  void StopOnNode(WorkloadRun& run, model::NodeId n, bool saves);
  struct PendingEviction {
    model::WorkloadId workload = 0;
    model::NodeId node = model::kNoNode;
    uint32_t epoch = 0;
    bool saves = false;
    int32_t pod_id = -1;  // One service replica (EvictPod); -1 = every pod on the node.
  };
  void Signal(const TwinSignal& signal);
  // Workload signals, to the controllers that observe workloads only.
  // Reports a lifecycle step of `run` to on_lifecycle_ (if set). kPlace lists the nodes of
  // run.pods[first_pod...].
  void Log(LifecycleKind kind, const WorkloadRun& run, int gpus = 0, double lost_gpu_hours = 0,
           size_t first_pod = 0) const;
  void SignalObservers(TwinSignal::Kind kind, model::WorkloadId w, model::NodeId n = model::kNoNode,
                       uint64_t gpus = 0);
  void ScheduleWake(size_t controller);
  // Integrates unavailable GPUs up to `t` (capacity lost).
  void AccumulateUnavailable(SimTime t);
  void FillFaultReport(Report& r) const;

  // The GPU-hours Interrupt(run, ...) would count as lost if it ran now (its formula, for
  // ranking defrag victims; the loss recorded is Interrupt's own).
  double LostIfInterrupted(const WorkloadRun& run) const;
  // Where a running job's work stands now: its segment's work began at `work_start` (after
  // the restore), is saved up to `saved_to`, and a restart pays `restore` again.
  struct SavePoint {
    SimTime work_start, saved_to;
    SimDuration restore;
    double lost_gpu_hours = 0;  // GPUs x (now - saved_to + restore).
  };
  SavePoint SavePointOf(const WorkloadRun& run) const;

  // Placement path (twin_placement.cc).
  // Places every pod set of a gang all-or-nothing; false (nothing held) if any does not fit.
  bool PlaceGang(WorkloadRun& run);
  // Defragmenting preemption for a blocked job of whole-node pods: evicts the cheapest small
  // preemptible workloads (within the per-cycle and per-hour bounds) to empty enough whole
  // nodes; true if it evicted any.
  bool Defragment(const WorkloadRun& run);
  bool IsDefragVictim(const WorkloadRun& victim, const WorkloadRun& job, int node_gpus) const;
  // The report key of a workload's pod size ("8", "1", "shared", ...).
  static std::string PodSizeKey(const model::Workload& w);
  PoolPoint SamplePool(int pool) const;
  // Fails if some generator's pods are accepted by no placement pool.
  Status CheckRoutes() const;

  Scenario scenario_;
  model::Cluster cluster_;
  std::optional<audit::AuditResult> tenancy_;
  std::unique_ptr<ClusterState> state_;
  std::unique_ptr<Admitter> admitter_;
  uint64_t quota_generation_ = 1;
  std::unique_ptr<Placer> placer_;
  std::vector<std::unique_ptr<WorkloadSource>> sources_;
  EventQueue events_queue_;
  UsageMeter meter_;
  Rng failure_rng_;
  Rng startup_rng_;  // Slow starts (Workload::startup_jitter); drawn only when jitter > 0.
  std::vector<PreemptionRecord> preemption_records_;
  // Faults.
  std::unique_ptr<FaultInjector> injector_;
  std::vector<GpuFaultState> gpu_faults_;
  std::vector<NodeFaults> nodes_;
  std::vector<std::vector<model::NodeId>> rack_nodes_;
  std::vector<PlannedFault> planned_;
  std::vector<std::string> tolerated_taints_;  // Keys of the scenario nodes' own taints.
  std::vector<PendingEviction> evictions_;     // Indexed by kEvictEnd events.
  std::vector<std::unique_ptr<TwinController>> controllers_;
  std::vector<size_t> observers_;     // Controllers that ObservesWorkloads().
  std::vector<SimTime> wake_at_;      // Per controller: the pending kWake's time.
  std::vector<uint32_t> wake_epoch_;  // Per controller: its valid kWake's epoch.
  FaultReport fault_stats_;
  double mttr_total_hours_ = 0;
  double capacity_lost_ = 0;
  SimTime unavailable_since_;
  double training_startup_rate_ = 0;  // Starting training GPUs now.
  double training_startup_hours_ = 0;
  SimTime training_startup_since_;
  double lost_training_ = 0;
  SimTime now_;
  SimTime horizon_;
  SimDuration startup_;
  bool schedule_requested_ = false;
  int64_t events_ = 0;
  int32_t next_pod_id_ = 0;
  std::vector<PodPlacement> placed_;  // PlacePods' scratch, kept to reuse its capacity.
  RunTable runs_;
  std::deque<model::WorkloadId> retired_;  // Finished runs kept readable, oldest first.
  int finished_runs_kept_ = kDefaultFinishedRunsKept;
  std::vector<int> workloads_by_team_;  // Submitted, per team (the report's teams.workloads).
  int released_fault_interrupted_ = 0;  // Released runs that a fault or drain stopped.
  std::vector<model::WorkloadId> services_;
  // Serving (twin_serving.cc): generator index -> its spec, for generators with traffic:.
  std::map<std::string, int> serving_generators_;  // By generator name (kGeneratorLabel).
  struct Service {
    model::WorkloadId id = 0;
    ServiceModel model;
  };
  std::vector<Service> serving_;                    // In arrival order.
  std::map<model::WorkloadId, size_t> serving_of_;  // Workload -> index in serving_.
  SimDuration serve_period_;
  int tidal_borrower_team_ = -1;  // Team lending goes to (fifo-quota), for training gained.
  int tidal_borrower_quota_ = 0;  // Its quota in the static split.
  double training_gained_gpu_hours_ = 0;
  WaitDistribution training_jct_;  // Submit to completion of finished training.

  std::unique_ptr<GpuSharing> sharing_;  // Null unless a pool shares GPUs (twin_sharing.cc).
  int pending_ = 0;
  int running_ = 0;
  int completed_ = 0;
  int stopped_ = 0;  // Stopped for good by a controller (TwinOps::Stop).
  int interruptions_ = 0;
  double lost_gpu_hours_ = 0;
  // Waits of admitted workloads (twin/wait_distribution.h: exact while compact).
  std::vector<WaitDistribution> waits_by_tier_;
  std::vector<WaitDistribution> waits_by_team_;
  std::map<std::string, int> preemptions_by_tier_;
  std::map<std::string, double> lost_by_team_;
  std::map<std::string, double> lost_by_cause_;
  std::map<std::string, double> lost_by_tier_;
  std::map<std::string, double> preemption_lost_by_team_, preemption_lost_by_tier_;
  int pods_ready_timeouts_ = 0;
  control::TenantShareAlert alerts_{0};  // By team index (threshold set in Create).
  std::vector<TimePoint> series_;
  std::map<std::string, WaitDistribution> waits_by_pod_size_;
  std::vector<WaitDistribution*> pod_size_waits_;  // By GPUs per pod + 1 (0: shared); lazily.
  DefragStats defrag_;
  std::deque<SimTime> defrag_evictions_;  // Eviction times in the last hour.
  SimTime defrag_cycle_time_ = SimTime::Never();
  int defrag_cycle_victims_ = 0;
  SimTime defrag_wakeup_ = SimTime::Never();  // A cycle queued for when the hour frees up.
  // A defrag attempt that found no plan is not retried for the same job until the cluster or
  // the budget changes: (job, placement change-log end, victims allowed) of the last failure.
  model::WorkloadId defrag_failed_job_ = -1;
  size_t defrag_failed_log_ = 0;
  int defrag_failed_budget_ = -1;
  std::function<void(SimTime, SimTime)> progress_;
  std::function<void(SimTime, SimTime, const std::vector<UsageRecord>&)> on_window_;
  std::function<void(const LifecycleRecord&)> on_lifecycle_;
  SimDuration window_;
  SimTime window_start_;
  std::vector<model::WorkloadId> window_runs_;  // Runs that held GPUs in the open window.
  SimTime next_progress_;
};

}  // namespace steward::twin

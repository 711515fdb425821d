// The plug-in point for controllers that act on the twin over simulated time: the remediation
// loop (health/twin_remediation.h), idle reclaim (reclaim/idle_reclaimer.h); defragmentation
// and the like later.
//
// A controller observes signals the simulated cluster emits (an XID on a node, a node's GPUs
// disappearing; if it asks, workloads' usage changing and GPUs changing hands), and acts only
// through TwinOps: cordon, label, taint, list, evict and stop workloads, mark a node repaired.
// Controllers that also run on a live cluster see the twin through control::ClusterControl
// instead (twin/twin_control.h adapts TwinOps to it). It never
// touches the twin's state directly, so the twin's invariants (allocation, accounting,
// determinism) stay in one place.
//
// Workload signals (kUsage, kGpusTaken, kGpusFreed) arrive in the middle of the twin's
// bookkeeping (a placement, a release): a controller only records them and acts from OnWake.
//
// Time: the twin calls OnSignal as a signal happens and OnWake at the controller's
// NextDeadline(); it re-reads NextDeadline() after every call into the controller. A
// controller must not read the wall clock: TwinOps::Now() is the time.
// Everything runs on the twin's thread; calls from a controller into TwinOps are reentrant
// with respect to the twin's event handler that called the controller.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "control/service_load.h"
#include "model/cluster.h"
#include "model/status.h"
#include "model/time.h"
#include "model/workload.h"

namespace steward::govern {
struct Policy;
}

namespace steward::twin {

struct Report;
struct Scenario;

// Something a node agent (DCGM, NPD, the device plugin) or the API server would report.
struct TwinSignal {
  enum class Kind : uint8_t {
    kXid,          // The driver logged `xid` on GPU `gpu` of the node (-1: every GPU).
    kGpusMissing,  // The device plugin stopped advertising the node's GPUs (NPD GPUMissing).
    kGpusBack,     // ... and advertises them again.
    // Only to controllers that ObservesWorkloads() (they are frequent: every placement, start,
    // idle phase and release):
    kUsage,      // `workload`'s GPUs or usage rates changed (what DCGM would show moved).
    kGpusTaken,  // `workload` was given GPUs `gpus` (bit mask of indices) of `node`.
    kGpusFreed,  // `workload` gave GPUs `gpus` of `node` back.
  };
  Kind kind = Kind::kXid;
  model::NodeId node = model::kNoNode;
  int gpu = -1;
  int xid = 0;
  model::WorkloadId workload = -1;
  uint64_t gpus = 0;
  SimTime at;
};

// A workload with pods on a node, as a controller sees it.
struct NodeWorkloadInfo {
  model::WorkloadId id = 0;
  std::string name;  // namespace/name.
  model::Tier tier = model::Tier::kDev;
  model::WorkloadKind kind = model::WorkloadKind::kBatch;
  bool can_checkpoint = false;   // Has a checkpoint interval: saves within an eviction's grace.
  int gpus = 0;                  // GPUs it holds on this node.
  bool running = false;          // Its pods run (not starting).
  std::vector<int32_t> pod_ids;  // Its pods on this node (PodAllocation::pod_id), ascending.
  std::vector<std::string> pod_names;  // Their names (twin/pod_names.h), in pod_ids' order.
  // Per pod, in pod_ids' order: an elastic job's resizable worker's minimum count
  // (control::PodInfo::min_workers), else 0.
  std::vector<int> min_workers;
};

// A workload as a controller sees it now: what it is, and what the GPUs it holds are doing (the
// sums DCGM would report over its GPUs).
struct WorkloadView {
  const model::Workload* spec = nullptr;  // Valid until the controller's call returns.
  std::string_view team;
  bool running = false;  // Its pods run (not pending, starting or done).
  // GPUs it holds now, starting or running, by physical share: a MIG instance or a fraction
  // of a GPU counts its part (2g.20gb = 2/7), as utilization accounting charges it.
  double gpus = 0;
  double busy = 0;       // GPU_UTIL-style busy GPU-equivalents now.
  double sm_active = 0;  // SM-active GPU-equivalents now.
  // When it would release its GPUs on its own if nothing stopped it (services: the horizon),
  // capped at the run's horizon. The twin's ground truth, which a real controller lacks: for
  // counterfactual accounting in reports only, never for decisions.
  SimTime natural_end;
};

// An autoscaled inference service (a generator with traffic:) as the tidal controller sees it,
// with the twin's workload id.
struct ServingLoad : control::ServiceLoad {
  model::WorkloadId id = 0;
};

// What a controller may do to the twin. Implemented by the Twin.
class TwinOps {
 public:
  virtual ~TwinOps() = default;
  virtual SimTime Now() const = 0;
  virtual const model::Cluster& cluster() const = 0;

  // Cordons (or uncordons) node `n`: a cordoned node takes no new pods; running pods stay.
  virtual Status SetCordoned(model::NodeId n, bool cordoned) = 0;
  // Replaces node `n`'s labels / taints, as `kubectl label` / `kubectl taint` would (a taint
  // the scenario's workloads do not tolerate keeps new pods off, like a cordon).
  virtual Status SetLabels(model::NodeId n, std::map<std::string, std::string> labels) = 0;
  virtual Status SetTaints(model::NodeId n, std::vector<model::Taint> taints) = 0;
  // The scenario, and the Kueue/Volcano policy admission runs under (nullptr: fifo-quota, whose
  // queues are the teams').
  virtual const Scenario& scenario() const = 0;
  virtual const govern::Policy* governance_policy() const = 0;
  // Bumped by every quota change (the queues' resourceVersion, for optimistic concurrency).
  virtual uint64_t quota_generation() const = 0;
  // The nominal GPU quota of a ClusterQueue in `flavor` ("" = its only GPU flavor), or of a
  // fifo-quota team's queue (by team name).
  virtual Status SetQueueGpuQuota(std::string_view queue, std::string_view flavor, int gpus) = 0;
  // The GPU lendingLimit of a ClusterQueue in `flavor` ("" = its only GPU flavor); nullopt
  // removes it. Only under a Kueue policy (fifo-quota's queues have no cohort to lend to).
  virtual Status SetQueueGpuLendingLimit(std::string_view queue, std::string_view /*flavor*/,
                                         std::optional<int> /*gpus*/) {
    return Status::FailedPrecondition("queue " + std::string(queue) +
                                      ": this twin takes no lendingLimit changes");
  }
  // Workloads holding GPUs on `n` (starting or running), by workload id. O(GPUs of the node).
  virtual std::vector<NodeWorkloadInfo> WorkloadsOn(model::NodeId n) const = 0;
  // Evicts workload `w`'s pods from node `n`; they stop `grace` from now (0 = at once). A gang
  // restarts as a whole, elsewhere; a service replica is re-placed. A workload that can
  // checkpoint and gets a grace saves its progress up to the moment it stops, so it loses
  // nothing but its restore time; anything else loses the work since its last checkpoint (or
  // everything). NotFound if `w` holds nothing on `n` (already gone is not an error to retry).
  virtual Status Evict(model::NodeId n, model::WorkloadId w, SimDuration grace) = 0;
  // The node's physical repair is done: every GPU healthy, volatile error counters and the
  // last XID cleared, the device plugin advertising its GPUs again on the pool's driver.
  // Cordon state is unchanged (validation and uncordon are the controller's business).
  virtual Status Repair(model::NodeId n) = 0;
  // What a validation diagnostic (DCGM diag) would find: every GPU healthy and advertised.
  virtual bool Healthy(model::NodeId n) const = 0;
  // Workload `w` now. NotFound for an id that never arrived.
  virtual Result<WorkloadView> View(model::WorkloadId w) const = 0;
  // Stops `w` for good, as an idle culler scales a notebook to zero (its volume is kept; the
  // user starts a new one if they come back): its GPUs are released now, nothing is lost or
  // restarted, and it leaves the run as stopped. FailedPrecondition unless it holds GPUs.
  virtual Status Stop(model::WorkloadId w) = 0;
  // Resizes elastic training job `w` (model::Workload::elastic) to `workers` pods in its
  // elastic pod set while it runs (twin_elastic.cc): a shrink releases the highest ordinals now
  // and the job goes on with the rest, its remaining work stretched in proportion (linear
  // scaling) after a pause of its restore time. InvalidArgument outside [min_count, the count
  // it was submitted with] or when not elastic; FailedPrecondition unless running. A grow
  // (back toward the submitted count) asks the admitter for the quota and placement for the
  // nodes now; Unavailable when either refuses (try again later).
  virtual Status Resize(model::WorkloadId w, int workers) {
    (void)w, (void)workers;
    return Status::FailedPrecondition("this twin resizes no workloads");
  }
  // The autoscaled services (generators with traffic:), in arrival order. Empty without them.
  virtual std::vector<ServingLoad> ServingLoads() const { return {}; }
};

class TwinController {
 public:
  TwinController() = default;
  TwinController(const TwinController&) = delete;
  TwinController& operator=(const TwinController&) = delete;
  virtual ~TwinController() = default;

  virtual std::string_view Name() const = 0;
  // Called once, when the controller is added to a twin; `ops` outlives the controller's use.
  virtual Status Attach(TwinOps& ops) = 0;
  // True: also receive kUsage, kGpusTaken and kGpusFreed signals.
  virtual bool ObservesWorkloads() const { return false; }
  virtual void OnSignal(const TwinSignal& /*signal*/) {}
  virtual void OnWake(SimTime /*now*/) {}
  // Earliest simulated time the controller wants OnWake; Never() = no timer.
  virtual SimTime NextDeadline() const { return SimTime::Never(); }
  // Adds what the controller knows to the run's report (e.g. open incidents).
  virtual void Contribute(Report& /*report*/) const {}
  // The first error the controller hit, if any (the twin keeps running; the CLI reports it).
  virtual Status status() const { return Status::Ok(); }
};

}  // namespace steward::twin

// ClusterControl: the one interface through which Steward's controllers (remediation, idle
// reclaim, stack health, tenant alerts; rollout and tidal later) observe a cluster and act on
// it. The digital twin implements it on its simulation (twin/twin_control.h); the live
// cluster implements it on the Kubernetes API (an informer cache for reads, the client for
// writes). A controller written against it runs unchanged on both.
//
//   ClusterControl& c = ...;                      // twin or live
//   for (const PodInfo& p : c.PodsOnNode("gpu-017")) ...
//   Status s = c.Cordon("gpu-017", true, "XID 79: GPU fell off the bus");
//   s = c.Evict({"training", "llm-7b-0"}, Seconds(300), "drain gpu-017");
//   s = c.ResizeWorkload("training/llm-7b", 2, "serving takes GPUs back");   // elastic jobs
//
// Objects are named as Kubernetes names them (node name; namespace + name), never by an
// implementation's internal ids, so a plan line or an audit row means the same on both sides.
// Every action carries the reason a human reads in the plan, the audit log and the Event.
//
// Semantics every implementation keeps:
// - Actions are requests. An eviction completes after its grace; a cordon at once. Their
//   effects show in later observations.
// - Actions are idempotent: cordoning a cordoned node, evicting a pod already gone (NotFound is
//   returned and callers treat it as done), labelling with the value it has.
// - Evict respects PodDisruptionBudgets: Unavailable (HTTP 429 on a live cluster) when the
//   budget allows no disruption now; the caller retries later and never deletes around it.
// Queues: ClusterQueues are observed with the resourceVersion they were read at, and a quota
// is patched carrying it, so a concurrent change is Aborted (HTTP 409) and the controller
// re-reads and recomputes: never a blind overwrite. DCGM series are not read through it:
// each side feeds its controllers what DCGM shows (the twin its usage signals, operate a
// Prometheus query), keyed by the pod names used here.
//
// Thread-safety: an implementation is used from one controller thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/cluster.h"
#include "model/status.h"
#include "model/time.h"
#include "model/workload.h"

namespace steward::control {

struct ObjectRef {
  std::string kind;            // "Node", "Pod", "ClusterQueue", ...
  std::string namespace_name;  // "" for cluster-scoped objects.
  std::string name;
  std::string Display() const;  // "node/gpu-017", "pod/training/llm-7b-0".
};

struct PodRef {
  std::string namespace_name;
  std::string name;
};

struct NodeCondition {
  std::string type;  // "Ready", "GPUXidFatal", ...
  bool status = false;
  std::string reason;
};

struct NodeInfo {
  std::string name;
  bool unschedulable = false;
  std::map<std::string, std::string> labels, annotations;
  std::vector<model::Taint> taints;
  int gpu_capacity = 0, gpu_allocatable = 0;  // nvidia.com/gpu.
  std::vector<NodeCondition> conditions;
};

// A pod holding GPUs, as controllers need to see it.
struct PodInfo {
  PodRef ref;
  std::string node;
  // The workload it belongs to: its controlling owner (Job, ReplicaSet, ...) as
  // "namespace/name"; pods of one workload stop together (a gang restarts whole).
  std::string workload;
  model::Tier tier = model::Tier::kDev;
  model::WorkloadKind kind = model::WorkloadKind::kBatch;
  // Saves its state within an eviction's grace (training jobs with a checkpoint interval; on a
  // live cluster the steward.io/checkpointing=true annotation or label).
  bool can_checkpoint = false;
  int gpus = 0;
  bool running = false;
  // Being deleted (an eviction's grace, metadata.deletionTimestamp): leaving already.
  bool terminating = false;
  // One of an elastic job's resizable workers (kueue#12146): its workload may run with as few
  // as `min_workers` such pods (ResizeWorkload). 0 = a fixed-size workload's pod, or one of an
  // elastic job's other pods (a launcher). On a live cluster: a Job's pod with the
  // steward.io/min-workers label or annotation.
  int min_workers = 0;
  std::map<std::string, std::string> labels, annotations;
};

// One quota of a ClusterQueue: a resource in a flavor, as Kubernetes quantities.
struct QueueQuota {
  std::string flavor;                                         // ResourceFlavor name.
  std::string resource;                                       // "nvidia.com/gpu", "cpu", ...
  std::string nominal;                                        // nominalQuota, e.g. "32".
  std::optional<std::string> borrowing_limit, lending_limit;  // nullopt = none.
};

struct QueueInfo {
  std::string name;  // The ClusterQueue.
  std::string cohort;
  std::string resource_version;  // As read: PatchQueueQuota carries it.
  std::vector<QueueQuota> quotas;
};

class ClusterControl {
 public:
  ClusterControl() = default;
  ClusterControl(const ClusterControl&) = delete;
  ClusterControl& operator=(const ClusterControl&) = delete;
  virtual ~ClusterControl() = default;

  // ---- Observe ----
  // The controllers' clock: simulated time in the twin, the wall clock at the live edge.
  virtual SimTime Now() const = 0;
  virtual std::optional<NodeInfo> Node(std::string_view name) const = 0;
  virtual std::vector<NodeInfo> Nodes() const = 0;
  // GPU pods bound to `node` (DaemonSet pods excluded), in a stable order.
  virtual std::vector<PodInfo> PodsOnNode(std::string_view node) const = 0;

  // ClusterQueues with their quotas, by name. Empty where the cluster runs no Kueue.
  virtual std::vector<QueueInfo> ClusterQueues() const { return {}; }

  // ---- Act ---- (`reason` is for people: plans, audit rows, Events)
  // Sets spec.unschedulable. Running pods stay.
  virtual Status Cordon(std::string_view node, bool cordoned, std::string_view reason) = 0;
  // Sets (value) or removes (nullopt) a node label.
  virtual Status LabelNode(std::string_view node, std::string_view key,
                           std::optional<std::string> value, std::string_view reason) = 0;
  // Adds a taint (replacing one with the same key and effect) or removes it (`remove`).
  virtual Status TaintNode(std::string_view node, const model::Taint& taint, bool remove,
                           std::string_view reason) = 0;
  // Sets (value) or removes (nullopt) an annotation of a node or pod.
  virtual Status Annotate(const ObjectRef& object, std::string_view key,
                          std::optional<std::string> value, std::string_view reason) = 0;
  // The Eviction API: the pod stops `grace` from now. Unavailable when a disruption budget
  // forbids it now; NotFound when the pod is gone.
  virtual Status Evict(const PodRef& pod, SimDuration grace, std::string_view reason) = 0;
  // An Event about `object` (type "Normal" or "Warning").
  virtual Status EmitEvent(const ObjectRef& object, std::string_view type,
                           std::string_view event_reason, std::string_view message) = 0;

  // Sets the quota of (quota.flavor, quota.resource) of ClusterQueue `queue`, as read at
  // `resource_version` (QueueInfo): Aborted when the queue changed since (HTTP 409: re-read,
  // recompute, try again); NotFound when the queue, flavor or resource does not exist;
  // InvalidArgument for a change the cluster cannot take.
  virtual Status PatchQueueQuota(std::string_view queue, std::string_view resource_version,
                                 const QueueQuota& quota, std::string_view reason) {
    (void)queue, (void)resource_version, (void)quota, (void)reason;
    return Status::FailedPrecondition("this cluster takes no quota changes");
  }

  // Sets an elastic workload's worker count (PodInfo::workload, "namespace/name"; PodInfo::
  // min_workers) to `workers`: fewer stops the surplus workers and the job goes on with the rest
  // (a shrink instead of an eviction); more asks for them back (a grow; they start once admitted
  // and placed). A live cluster patches the Job's spec.parallelism, as Kueue's
  // ElasticJobsViaWorkloadSlices lets an admitted Job change it. InvalidArgument below its
  // minimum or for a workload that is not elastic; NotFound when it is gone; FailedPrecondition
  // where the cluster cannot resize it (e.g. still starting).
  virtual Status ResizeWorkload(std::string_view workload, int workers, std::string_view reason) {
    (void)workload, (void)workers, (void)reason;
    return Status::FailedPrecondition("this cluster resizes no workloads");
  }

  // What the following actions are part of ("drain", "reclaim-notice", "reclaim-evict"), so a
  // plan line or an audit row names the operation rather than its primitive ("evict");
  // "" = the primitive's own name. Implementations that record nothing ignore it. Set it
  // through IntentScope.
  virtual void SetIntent(std::string_view intent) { (void)intent; }
};

// Names the actions taken on `control` while it lives (ClusterControl::SetIntent).
//
//   { IntentScope drain(control, "drain"); control.Evict(pod, grace, reason); }
class IntentScope {
 public:
  IntentScope(ClusterControl& control, std::string_view intent) : control_(control) {
    control_.SetIntent(intent);
  }
  ~IntentScope() { control_.SetIntent(""); }
  IntentScope(const IntentScope&) = delete;
  IntentScope& operator=(const IntentScope&) = delete;

 private:
  ClusterControl& control_;
};

}  // namespace steward::control

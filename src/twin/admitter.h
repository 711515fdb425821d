// Admission: which pending workloads may start now. An Admitter orders pending work and
// enforces quota; it asks the host (the twin) to place a workload and learns how many GPUs
// that took. It never touches cluster state itself. Chosen by name from NewAdmitter(); the
// governance engine (src/govern/) brings Kueue/Volcano semantics.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"
#include "model/time.h"
#include "model/workload.h"
#include "twin/pending_reason.h"
#include "twin/report.h"

namespace steward::govern {
struct Policy;
}

namespace steward::twin {

// The one ResourceFlavor of fifo-quota's team queues when they are shown as Kueue objects (the
// Kubernetes front, TwinClusterControl::ClusterQueues).
inline constexpr char kFifoQuotaFlavor[] = "default-flavor";

// What the twin offers an admitter.
class AdmissionHost {
 public:
  virtual ~AdmissionHost() = default;
  virtual const model::Workload& workload(model::WorkloadId id) const = 0;
  // GPUs the next placement attempt of `id` needs (a gang: all of them; a service: one replica).
  virtual int GpusWanted(model::WorkloadId id) const = 0;
  // Tries to place `id` (a gang all-or-nothing; a service as many wanted replicas as fit
  // within `gpu_budget`). Returns the GPUs placed (0 = none fit) and sets *done when nothing
  // more is wanted.
  virtual int TryPlace(model::WorkloadId id, int gpu_budget, bool* done) = 0;
  // Records why `id` still waits: a static snake_case name (twin or governance reasons),
  // plus an optional human-readable detail with numbers (copied; a view, so an admitter that
  // gives many workloads one detail formats it once and nothing is allocated per workload).
  virtual void SetPendingReason(model::WorkloadId id, std::string_view reason,
                                std::string_view detail = {}) = 0;
  // Evicts a running workload to make room (preemption): its progress since the last
  // checkpoint is lost, its pods are released (Released() is called) and it is requeued.
  virtual void Preempt(model::WorkloadId victim, model::WorkloadId preemptor) = 0;
  // Whether `id`'s next placement would find nodes if `victims` released their GPUs. Quota is
  // not placement: a preemption that frees quota but no node the workload fits on throws the
  // victims' work away for nothing (and when they are readmitted at once, repeats forever).
  virtual bool FitsAfterPreempting(model::WorkloadId id,
                                   const std::vector<model::WorkloadId>& victims) const = 0;
  virtual SimTime Now() const = 0;
  // waitForPodsReady: evicts `id` (admitted, pods not all running by the timeout); its quota
  // is released (Released() is called) and it is requeued like a preempted workload.
  virtual void EvictPodsReadyTimeout(model::WorkloadId id) = 0;
  // Restricts `id`'s pods to GPU model `gpu_model` (-1 = any), as Kueue injects the assigned
  // flavor's nodeLabels into the pods' nodeSelector at admission.
  virtual void SetGpuModel(model::WorkloadId id, int gpu_model) = 0;
  // Kueue's partial admission: runs `id` with counts[i] pods in pod set i (fewer than it asked
  // for), as Kueue sets a Job's parallelism to the admitted count; an empty `counts` restores
  // the counts it was submitted with (Kueue restores the Job when it loses its admission).
  virtual void SetAdmittedCounts(model::WorkloadId id, const std::vector<int>& counts) = 0;
  // When `id` last became pending (arrival or requeue), for admission wait times.
  virtual SimTime PendingSince(model::WorkloadId id) const = 0;
  // Asks for an admission cycle at `t` (>= Now()), e.g. when a backoff ends.
  virtual void RequestCycleAt(SimTime t) = 0;
  // The pending reason last set for `id` (its name; the detail into *detail).
  virtual std::string_view PendingReasonOf(model::WorkloadId id, std::string* detail) const = 0;
  // Whether service `id` is admitted replica by replica (Kueue's Deployment integration: each
  // pod its own Workload, so the queue's usage follows the replicas; policies.serving_admission
  // per-replica, traffic services only). Otherwise a service is one Workload at its peak size.
  virtual bool AdmitsPerReplica(model::WorkloadId /*id*/) const { return false; }
};

class Admitter {
 public:
  virtual ~Admitter() = default;
  Admitter() = default;
  Admitter(const Admitter&) = delete;
  Admitter& operator=(const Admitter&) = delete;

  virtual std::string_view Name() const = 0;
  // `id` became pending (arrival, requeue after a failure, a service scaling up).
  virtual void Enqueue(model::WorkloadId id, int team) = 0;
  // One admission cycle: admit in policy order while work fits.
  virtual void Cycle(AdmissionHost& host) = 0;
  // `gpus` GPUs of workload `w` were released (pods finished, failed, were preempted or
  // scaled down); `all` when the workload holds no pods any more.
  virtual void Released(const model::Workload& w, int gpus, bool all) = 0;
  virtual int used_gpus(int team) const = 0;
  // All pods of gang/batch workload `w` run (Kueue's PodsReady). Returns true when the
  // admitter wants a cycle now (e.g. blockAdmission lifted).
  virtual bool Started(const model::Workload& /*w*/) { return false; }
  // A running elastic workload asks for `gpus` more GPUs now (growing back after a shrink,
  // twin_elastic.cc): true when the admitter counts them against its quota. Default: refused
  // (the Kueue admitter: a resized admission is not modelled).
  virtual bool Grow(AdmissionHost& /*host*/, const model::Workload& /*w*/, int /*gpus*/) {
    return false;
  }
  // Schedulable capacity changed outside admission (a node cordoned or uncordoned): admitters
  // that park workloads retry them.
  virtual void Requeue() {}
  // Changes the nominal GPU quota of `team`'s queue while running (steward serve's control).
  // Policies whose quotas live elsewhere (Kueue ClusterQueues) keep the default refusal.
  virtual Status SetQuota(int /*team*/, int /*gpus*/) {
    return Status::FailedPrecondition("admission policy '" + std::string(Name()) +
                                      "' has no adjustable team quota");
  }
  // Sets every pending reason the admitter has decided but not yet written (an admitter may
  // defer them to keep a cycle from visiting every waiting workload). The host calls it before
  // anything reads reasons (the end of each RunUntil).
  virtual void FlushPendingReasons(AdmissionHost& /*host*/) {}
  // Why a queued workload waits, for admitters that know better than the host (or "").
  virtual std::string Explain(model::WorkloadId /*id*/) const { return {}; }

  // Admitters with ClusterQueues (kueue): their state and counters, Kueue-metric style.
  // Others report no queues. O(queues x flavors + pending).
  virtual SchedulerReport Scheduler() const { return {}; }
  // The ClusterQueue a workload of namespace `ns` naming queue `queue` goes to, or "".
  virtual std::string ClusterQueueFor(std::string_view /*ns*/, std::string_view /*queue*/) const {
    return {};
  }
  // Where an admitted workload holds quota (Kueue's Workload status.admission): its
  // ClusterQueue and, per resource, the flavor. Empty cluster_queue when `id` holds no quota
  // or the admitter has no ClusterQueues.
  struct Admission {
    std::string cluster_queue;
    std::vector<std::pair<std::string, std::string>> flavors;  // (resource, flavor).
  };
  virtual Admission AdmissionOf(model::WorkloadId /*id*/) const { return {}; }
  // The governance policy the admitter runs (ClusterQueues, flavors, ...), or null.
  virtual const govern::Policy* policy() const { return nullptr; }
  // Changes the nominal GPU quota of ClusterQueue `cq` in `flavor` ("" = its only GPU flavor).
  virtual Status SetClusterQueueQuota(std::string_view /*cq*/, std::string_view /*flavor*/,
                                      int /*gpus*/) {
    return Status::FailedPrecondition("admission policy '" + std::string(Name()) +
                                      "' has no ClusterQueues");
  }
  // Sets (or, nullopt, removes) the GPU lendingLimit of ClusterQueue `cq` in `flavor` ("" = its
  // only GPU flavor): what its cohort may borrow of its nominal quota (the tidal controller's
  // lendingLimit form).
  virtual Status SetClusterQueueLendingLimit(std::string_view /*cq*/, std::string_view /*flavor*/,
                                             std::optional<int> /*gpus*/) {
    return Status::FailedPrecondition("admission policy '" + std::string(Name()) +
                                      "' has no ClusterQueues");
  }
};

// "fifo-quota": one StrictFIFO queue per team with a nominal GPU quota and no borrowing.
// `quota_gpus[t]` is team t's quota.
Result<std::unique_ptr<Admitter>> NewAdmitter(std::string_view name, std::vector<int> quota_gpus);

}  // namespace steward::twin

namespace steward::govern {
struct Policy;
}

namespace steward::twin {

// "kueue": the governance engine (src/govern/) under a Kueue/Volcano policy: ClusterQueues
// with cohorts, borrowing and lending limits, priority tiers, gang admission and
// checkpoint-aware preemption. `victim_ordering` names a govern victim ordering.
// `cluster_gpus` sizes the shared pool Volcano queues borrow from (govern's
// SetVolcanoClusterCapacity); Kueue-only policies ignore it. `gpu_products[m]` is GPU model
// m's nvidia.com/gpu.product label: a workload needing model m asks flavors for that label, and
// a flavor whose nodeLabels name a product pins the workload's pods to that model.
Result<std::unique_ptr<Admitter>> NewKueueAdmitter(govern::Policy policy,
                                                   std::string_view victim_ordering,
                                                   int cluster_gpus,
                                                   std::vector<std::string> gpu_products = {});

}  // namespace steward::twin

// TidalController: lends the serving fleet's trough to preemptible, checkpointing training and
// takes it back before the ramp (the guide's 潮汐调度; design and measurements in
// docs/tidal.md). It acts only through control::ClusterControl, so the same controller plans on
// the twin (tidal/twin_tidal.h) and could on a live cluster; the request-rate signal comes from
// the side that runs it (the twin's traffic model; on a live cluster a Prometheus query), as
// DCGM readings do for idle reclaim.
//
//   TidalController c(control, options);
//   Status s = c.Step(services);     // every options.period
//
// One step:
//  1. Observe each service's demand (replicas its request rate asks for) into its forecast.
//  2. Serving must keep, per service, the larger of its autoscaler's replicas and the forecast
//     peak over [now, now + lead time + 2 periods], plus the reserve (lend_plan.h).
//  3. Lend what the serving queue's quota holds beyond that, in whole nodes, by moving nominal
//     GPU quota from the serving queue (lend_from) to the borrowing queue (lend_to) through
//     PatchQueueQuota (resourceVersion-checked; a 409 re-reads and retries once); or, with
//     LendBy::kLendingLimit, by setting the serving queue's GPU lendingLimit to that amount in a
//     cohort the borrowing queue borrows from (Kueue's own pattern; its nominal stays).
//  4. When less may be lent than is lent, take it back at once: the borrower's quota first, then
//     serving's, and free what the borrower holds beyond its quota: elastic borrowers shrink
//     toward their minimum workers first (ResizeWorkload), and only what shrinking cannot free
//     is evicted, least lost work first (checkpointing ones lose only their restore: they get
//     `save` as grace). A workload the cluster refuses to resize is evicted instead.
//  5. With grow_back, outside a reclaim, shrunk borrowers grow back toward their size before
//     the shrink while the borrower's quota has room (tried every 5 periods).
// Never lends below the reserve and never before a day of history (no forecast, no lending).
//
// Cost per step: O(services x forecast window) plus, when taking GPUs back, one listing of
// every node's GPU pods. Thread-safety: one thread, like ClusterControl.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "control/cluster_control.h"
#include "control/service_load.h"
#include "model/status.h"
#include "model/time.h"
#include "tidal/demand_forecast.h"
#include "tidal/lend_plan.h"
#include "tidal/reclaimed_capacity.h"

namespace steward::tidal {

// One autoscaled service's signals at a control step (the request rate, what its autoscaler
// does with it).
using ServiceLoad = control::ServiceLoad;

// How a loan is made (docs/tidal.md): nominal quota moved from lend_from to lend_to, or
// lend_from's lendingLimit in a cohort both queues are in (the borrower then holds at most its
// nominal quota plus that limit; borrowers beyond it are taken back as in the nominal form).
enum class LendBy { kNominal, kLendingLimit };

struct TidalOptions {
  LendBy lend_by = LendBy::kNominal;
  std::string lend_from;           // The serving ClusterQueue (fifo-quota: the team's queue).
  std::string lend_to;             // The borrowing ClusterQueue.
  std::string borrower_namespace;  // Where the borrowers' pods run ("" = lend_to).
  int reserve_gpus = -1;           // < 0: each service's autoscaler step (HpaStepReserve).
  ForecastOptions forecast;
  SimDuration save = Seconds(120);    // A checkpoint save: the eviction grace.
  SimDuration restart = Seconds(90);  // A replica's start on a freed GPU.
  SimDuration period = Minutes(1);
  // Lost work assumed for a victim, per GPU: a checkpointing job saves within the grace and
  // loses its restore; one that cannot checkpoint loses its run so far (unknown here: a day).
  SimDuration checkpointing_loss = Minutes(10);
  SimDuration non_checkpointing_loss = Hours(24);
  // Shrunk elastic borrowers grow back toward their size when the borrower's quota has room.
  bool grow_back = false;
  SimDuration lead_time() const { return save + restart; }
  // The static split the controller lends from and returns to (GPU nominal quotas of lend_from
  // and lend_to); unset: the quotas as first read. A live operator states it, so a restart
  // while GPUs are lent does not take the lent quotas for the split.
  std::optional<int> serving_quota, borrower_quota;
};

struct TidalStats {
  int lent_gpus = 0;  // Now.
  int max_lent_gpus = 0;
  double gpu_hours_lent = 0;  // Integral of the lent quota.
  int lends = 0;              // Steps that lent more.
  int reclaims = 0;           // Steps that took GPUs back.
  int gpus_reclaimed = 0;     // GPUs of quota taken back, summed over reclaims.
  // Reclaimed GPUs x time until lent again (or now): ReclaimedCapacity::GpuHours.
  double gpu_hours_reclaimed = 0;
  int evictions = 0;     // Borrowing workloads evicted to give GPUs back.
  int shrinks = 0;       // Elastic borrowers shrunk to give GPUs back ...
  int gpus_shrunk = 0;   // ... and the GPUs that freed.
  int regrows = 0;       // Shrunk borrowers grown back when the borrower's quota had room ...
  int gpus_regrown = 0;  // ... and the GPUs they took.
  int errors = 0;
};

class TidalController {
 public:
  TidalController(control::ClusterControl& control, TidalOptions options);
  // One control step at control.Now(). An error is the first failed action (the step goes on
  // with the next).
  Status Step(const std::vector<ServiceLoad>& services);
  // Takes every lent GPU back: serving keeps its whole static split, and borrowers beyond their
  // quota shrink or are evicted as after any reclaim (the fail-safe of a live controller whose
  // demand signal has been missing too long; `why` goes into the reason). Call it each period
  // while that lasts: later calls evict what the first one's lead time left running.
  Status ReclaimAll(std::string_view why);
  // Feeds a past reading of a service into its forecast without acting (a live controller
  // primed from the request-rate metric's history need not wait a day). Times must not go
  // backwards, nor come after a Step's.
  void ObserveHistory(const ServiceLoad& service, SimTime at);
  const TidalStats& stats() const { return stats_; }
  // Reclaimed GPU-hours counted up to `now` (stats() holds them up to the last step).
  double GpuHoursReclaimed(SimTime now) const { return reclaimed_.GpuHours(now); }
  const TidalOptions& options() const { return options_; }
  // The GPUs serving had to keep at the last step (nullopt: no forecast yet).
  std::optional<int> last_need() const { return last_need_; }

 private:
  struct Queues {
    const control::QueueInfo* from = nullptr;
    const control::QueueInfo* to = nullptr;
    std::vector<control::QueueInfo> all;
  };
  Result<Queues> ReadQueues() const;
  // The static split (and the loan found in place), read once, at the first step.
  Status ReadSplit(const Queues& q);
  // Integrates the lent GPU-hours up to `now`.
  void Account(SimTime now);
  // Lends or takes back to `target` GPUs, then evicts beyond quota after a reclaim or grows
  // shrunk borrowers back (steps 3-5 of Step).
  Status Act(int target, std::string_view reason, SimTime now);
  // Changes the GPU quota of `queue` with `change` (re-read, then patched unless `change` leaves
  // it as it is; one retry on a 409).
  Status PatchGpuQuota(const std::string& queue,
                       const std::function<void(control::QueueQuota&)>& change,
                       std::string_view reason);
  Status SetNominal(const std::string& queue, int gpus, std::string_view reason);
  // The serving queue's GPU lendingLimit (the lendingLimit form of a loan).
  Status SetLendingLimit(int gpus, std::string_view reason);
  Status MoveQuota(int lent, std::string_view reason);
  // The borrower's pods now, by workload.
  struct BorrowerView {
    std::map<std::string, Borrower> by_workload;
    std::map<std::string, control::PodRef> first_pod;
    std::map<std::string, std::pair<int, int>> workers;  // Elastic: (workers, their minimum).
    int held = 0;
  };
  BorrowerView ListBorrowers() const;
  // Evicts borrowing workloads until the borrower holds at most its quota (elastic ones shrink
  // first).
  Status EvictBeyondQuota(int borrower_quota);
  // Grows shrunk borrowers back toward their size before the shrink, by name, while the
  // borrower's quota has room (the cluster may still refuse: tried again later).
  Status GrowBack(int borrower_quota);
  static constexpr int kGrowEvery = 5;

  control::ClusterControl& control_;
  TidalOptions options_;
  std::map<std::string, DemandForecast> forecasts_;
  std::optional<int> serving_base_, borrower_base_;  // The static split, as first read.
  int node_gpus_ = 0;
  SimTime last_step_ = SimTime::Never();
  std::optional<int> last_need_;
  // Borrowing workloads evicted, until their grace is surely over (not counted again).
  std::map<std::string, SimTime> evicting_;
  // Elastic borrowers shrunk, until their surplus pods are surely gone: those pods, still
  // terminating on a live cluster, are not counted again.
  std::map<std::string, SimTime> shrinking_;
  std::set<std::string> resize_refused_;    // Evicted whole from then on.
  std::map<std::string, int> shrunk_;       // Shrunk borrowers: their workers before.
  SimTime next_grow_;                       // Next GrowBack try.
  SimTime check_until_ = SimTime::Never();  // Re-check the borrower's usage until then.
  TidalStats stats_;
  ReclaimedCapacity reclaimed_;
};

}  // namespace steward::tidal

// The tidal controller's decisions as pure functions (docs/tidal.md, "Decisions"), so each is
// tested by hand: how many GPUs serving must keep, how many may be lent, and which borrowing
// workloads give GPUs back when serving needs them.
//
//   int keep = ServingNeed(services, reserve);            // GPUs serving keeps
//   int lend = LendTarget(serving_quota, keep, 8);        // whole nodes only
//   std::vector<size_t> v = ChooseVictims(borrowers, gpus_over);
//   ReclaimPlan p = PlanReclaim(borrowers, gpus_over);    // elastic ones shrink first
//
// Cost: linear in services / O(n log n) in borrowers. Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace steward::tidal {

// One autoscaled service as the controller sees it at a control step.
struct ServiceDemand {
  std::string name;
  int gpus_per_replica = 1;
  int min_replicas = 1, max_replicas = 1;
  int desired = 0;  // The autoscaler's replicas now.
  // Replicas the forecast expects at its peak over the coming lead window (nullopt: no
  // forecast yet, so nothing is lent).
  std::optional<double> forecast;
  // The autoscaler's scale-up policy (reserve "hpa-step"): max(pods, percent of the count)
  // per period.
  int scale_up_pods = 4;
  double scale_up_percent = 100;
};

// The reserve of one service under "hpa-step": the replicas one autoscaler scale-up step adds
// to `base` (max(pods, ceil(base x percent / 100))), never past max_replicas.
int HpaStepReserve(const ServiceDemand& s, int base);

// GPUs serving must keep: per service, max(desired, ceil(forecast)) replicas plus its reserve,
// capped at max_replicas, times its GPUs per replica. `reserve_gpus` < 0: each service's
// HpaStepReserve; >= 0: that many GPUs in all, on top of the services' needs. nullopt when a
// service has no forecast.
std::optional<int> ServingNeed(const std::vector<ServiceDemand>& services, int reserve_gpus);

// GPUs that may be lent: what the serving quota holds beyond `need`, in whole nodes of
// `node_gpus` (a training gang takes whole nodes; a part node would strand GPUs). Never
// negative, never below the reserve (it is part of `need`).
int LendTarget(int serving_quota, int need, int node_gpus);

// A workload running on lent capacity, a candidate victim when serving takes GPUs back.
struct Borrower {
  std::string workload;  // namespace/name.
  int gpus = 0;
  bool can_checkpoint = false;
  // Work it would lose if evicted now, GPU-hours (with a grace long enough to save, a
  // checkpointing job loses its restore; otherwise its work since it started).
  double lost_gpu_hours = 0;
  // Elastic (kueue#12146): workers it may drop and the GPUs each holds; 0 = fixed size.
  int shrinkable_workers = 0;
  int gpus_per_worker = 0;
  int ShrinkableGpus() const { return shrinkable_workers * gpus_per_worker; }
};

// Victims that free at least `gpus` GPUs with the least lost work: the cheapest per GPU first,
// then every victim whose GPUs are not needed after all is put back (most expensive first).
// Indices into `borrowers`, in eviction order. Frees as much as it can when all of them are
// not enough.
std::vector<size_t> ChooseVictims(const std::vector<Borrower>& borrowers, int gpus);

// How to free `gpus` GPUs from borrowers, some of them elastic: shrink first, evict whole only
// what shrinking cannot free.
struct ReclaimPlan {
  struct Shrink {
    size_t borrower = 0;  // Index into the borrowers.
    int drop_workers = 0;
  };
  std::vector<Shrink> shrinks;    // In order.
  std::vector<size_t> evictions;  // Indices, in eviction order.
  int freed = 0;                  // GPUs the plan frees (>= gpus unless all are not enough).
};

// 1. When shrinking every elastic borrower to its minimum frees too little, victims for the
//    rest are chosen as ChooseVictims does: among the fixed-size borrowers first, then, if they
//    are not enough, among the elastic ones counted at their minimum (such a victim goes
//    whole: its shrink is moot).
// 2. The GPUs still wanted come from shrinking the others: the borrower that may give the most
//    GPUs first (fewest jobs disturbed), ties by name; each drops the fewest whole workers that
//    cover what is left, down to its minimum.
// Without elastic borrowers the evictions are ChooseVictims(borrowers, gpus).
ReclaimPlan PlanReclaim(const std::vector<Borrower>& borrowers, int gpus);

}  // namespace steward::tidal

#include "tidal/lend_plan.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace steward::tidal {

int HpaStepReserve(const ServiceDemand& s, int base) {
  const int step = std::max(s.scale_up_pods,
                            static_cast<int>(std::ceil(base * s.scale_up_percent / 100 - 1e-9)));
  return std::max(0, std::min(step, s.max_replicas - base));
}

std::optional<int> ServingNeed(const std::vector<ServiceDemand>& services, int reserve_gpus) {
  int need = 0;
  for (const ServiceDemand& s : services) {
    if (!s.forecast) return std::nullopt;
    const int base =
        std::clamp(std::max(s.desired, static_cast<int>(std::ceil(*s.forecast - 1e-9))),
                   s.min_replicas, s.max_replicas);
    const int reserve = reserve_gpus < 0 ? HpaStepReserve(s, base) : 0;
    need += std::min(base + reserve, s.max_replicas) * s.gpus_per_replica;
  }
  return need + std::max(0, reserve_gpus);
}

int LendTarget(int serving_quota, int need, int node_gpus) {
  const int spare = serving_quota - need;
  if (spare <= 0 || node_gpus <= 0) return 0;
  return spare / node_gpus * node_gpus;
}

std::vector<size_t> ChooseVictims(const std::vector<Borrower>& borrowers, int gpus) {
  std::vector<size_t> order(borrowers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  auto per_gpu = [&](size_t i) {
    return borrowers[i].lost_gpu_hours / std::max(1, borrowers[i].gpus);
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (per_gpu(a) != per_gpu(b)) return per_gpu(a) < per_gpu(b);
    return borrowers[a].workload < borrowers[b].workload;
  });
  std::vector<size_t> chosen;
  int freed = 0;
  for (size_t i : order) {
    if (freed >= gpus) break;
    chosen.push_back(i);
    freed += borrowers[i].gpus;
  }
  // Fill back: a victim whose GPUs the others already cover stays (most lost work first).
  std::vector<size_t> by_cost = chosen;
  std::stable_sort(by_cost.begin(), by_cost.end(), [&](size_t a, size_t b) {
    return borrowers[a].lost_gpu_hours > borrowers[b].lost_gpu_hours;
  });
  for (size_t i : by_cost) {
    if (freed - borrowers[i].gpus >= gpus) {
      freed -= borrowers[i].gpus;
      std::erase(chosen, i);
    }
  }
  return chosen;
}

ReclaimPlan PlanReclaim(const std::vector<Borrower>& borrowers, int gpus) {
  ReclaimPlan plan;
  if (gpus <= 0) return plan;
  int shrinkable = 0;
  for (const Borrower& b : borrowers) shrinkable += b.ShrinkableGpus();
  // 1. Evictions for what shrinking every elastic borrower to its minimum cannot free.
  // Fixed-size borrowers first; elastic ones (at their minimum) only when those are not
  // enough. Either goes whole.
  if (gpus > shrinkable) {
    for (const bool elastic : {false, true}) {
      std::vector<Borrower> group;
      std::vector<size_t> index;  // Into borrowers.
      for (size_t i = 0; i < borrowers.size(); ++i) {
        if ((borrowers[i].ShrinkableGpus() > 0) != elastic) continue;
        Borrower b = borrowers[i];
        const int keep = b.gpus - b.ShrinkableGpus();
        if (b.gpus > 0) b.lost_gpu_hours *= static_cast<double>(keep) / b.gpus;  // Same per GPU.
        b.gpus = keep;
        group.push_back(std::move(b));
        index.push_back(i);
      }
      int evicted_at_min = 0;
      for (size_t i : plan.evictions)
        evicted_at_min += borrowers[i].gpus - borrowers[i].ShrinkableGpus();
      const int need = gpus - shrinkable - evicted_at_min;
      if (need <= 0) break;
      for (size_t g : ChooseVictims(group, need)) {
        plan.evictions.push_back(index[g]);
        plan.freed += borrowers[index[g]].gpus;  // Whole.
      }
    }
  }
  // 2. Shrinks of the others for the rest.
  std::vector<size_t> order;
  for (size_t i = 0; i < borrowers.size(); ++i)
    if (borrowers[i].ShrinkableGpus() > 0 &&
        std::find(plan.evictions.begin(), plan.evictions.end(), i) == plan.evictions.end())
      order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (borrowers[a].ShrinkableGpus() != borrowers[b].ShrinkableGpus())
      return borrowers[a].ShrinkableGpus() > borrowers[b].ShrinkableGpus();
    return borrowers[a].workload < borrowers[b].workload;
  });
  for (size_t i : order) {
    const int left = gpus - plan.freed;
    if (left <= 0) break;
    const Borrower& b = borrowers[i];
    const int drop =
        std::min(b.shrinkable_workers, (left + b.gpus_per_worker - 1) / b.gpus_per_worker);
    plan.shrinks.push_back({i, drop});
    plan.freed += drop * b.gpus_per_worker;
  }
  return plan;
}

}  // namespace steward::tidal

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

}  // namespace steward::tidal

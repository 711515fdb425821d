#include "twin/defrag.h"

#include <algorithm>
#include <tuple>
#include <unordered_set>

namespace steward::twin {

DefragPlan PlanDefrag(std::vector<DefragCandidate> candidates, int nodes_needed, int max_victims,
                      const std::function<double(model::WorkloadId)>& lost) {
  DefragPlan plan;
  if (nodes_needed <= 0) return plan;
  struct Ranked {
    double cost;
    size_t victims;
    model::NodeId node;
    size_t index;
  };
  std::vector<Ranked> order;
  order.reserve(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    double cost = 0;
    for (model::WorkloadId v : candidates[i].victims) cost += lost(v);
    order.push_back({cost, candidates[i].victims.size(), candidates[i].node, i});
  }
  std::sort(order.begin(), order.end(), [](const Ranked& a, const Ranked& b) {
    return std::tie(a.cost, a.victims, a.node) < std::tie(b.cost, b.victims, b.node);
  });
  std::unordered_set<model::WorkloadId> chosen;
  for (const Ranked& r : order) {
    const DefragCandidate& c = candidates[r.index];
    int fresh = 0;
    for (model::WorkloadId v : c.victims) fresh += !chosen.count(v);
    if (static_cast<int>(chosen.size()) + fresh > max_victims) continue;
    for (model::WorkloadId v : c.victims) {
      if (!chosen.insert(v).second) continue;
      plan.victims.push_back(v);
      plan.lost_gpu_hours += lost(v);
    }
    plan.nodes.push_back(c.node);
    if (static_cast<int>(plan.nodes.size()) == nodes_needed) return plan;
  }
  return DefragPlan{};
}

}  // namespace steward::twin

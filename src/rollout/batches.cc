#include "rollout/batches.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace steward::rollout {

std::vector<control::NodeInfo> TargetNodes(const RolloutPlan& plan,
                                           const std::vector<control::NodeInfo>& nodes) {
  std::vector<control::NodeInfo> out;
  for (const control::NodeInfo& n : nodes) {
    bool match = true;
    for (const auto& [k, v] : plan.selector) {
      auto it = n.labels.find(k);
      match = match && it != n.labels.end() && it->second == v;
    }
    if (!plan.nodes.empty())
      match = match && std::find(plan.nodes.begin(), plan.nodes.end(), n.name) != plan.nodes.end();
    if (match) out.push_back(n);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

Result<std::vector<std::vector<std::string>>> SplitBatches(
    const RolloutPlan& plan, const std::vector<control::NodeInfo>& targets) {
  std::set<std::string> taken;
  std::vector<std::vector<std::string>> out;
  auto label = [](const control::NodeInfo& n, const char* key) {
    auto it = n.labels.find(key);
    return it == n.labels.end() ? std::string() : it->second;
  };
  for (const BatchSpec& b : plan.batches) {
    std::vector<std::string> batch;
    if (!b.nodes.empty()) {
      for (const std::string& name : b.nodes) {
        const bool target = std::any_of(targets.begin(), targets.end(),
                                        [&](const auto& t) { return t.name == name; });
        if (!target)
          return MakeInputError(plan.file, b.line, 0, fmt::format("batches.{}.nodes", b.name),
                                fmt::format("node '{}' is not a target node", name));
        if (taken.insert(name).second) batch.push_back(name);
      }
    } else {
      int want = static_cast<int>(targets.size());
      if (b.size > 0) want = b.size;
      if (b.percent > 0)
        want = static_cast<int>(std::ceil(b.percent * targets.size() / 100.0 - 1e-9));
      for (const control::NodeInfo& t : targets) {
        if (static_cast<int>(batch.size()) >= want) break;
        if (taken.count(t.name)) continue;
        if (!b.rack.empty() && label(t, "steward.io/rack") != b.rack) continue;
        if (!b.pool.empty() && label(t, "steward.io/pool") != b.pool) continue;
        batch.push_back(t.name);
        taken.insert(t.name);
      }
    }
    out.push_back(std::move(batch));
  }
  return out;
}

bool Unavailable(const control::NodeInfo& node) {
  if (node.unschedulable) return true;
  for (const control::NodeCondition& c : node.conditions)
    if (c.type == "Ready") return !c.status;
  return false;
}

int UpgradeSlots(const Budget& b) {
  int slots = b.max_parallel == 0 ? b.total : b.max_parallel - b.in_progress;
  slots = std::min(slots, b.max_unavailable);
  if (b.unavailable >= b.max_unavailable) return 0;
  if (b.max_unavailable < b.total) slots = std::min(slots, b.max_unavailable - b.unavailable);
  return std::max(slots, 0);
}

}  // namespace steward::rollout

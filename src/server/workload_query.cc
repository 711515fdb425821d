#include "server/workload_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace steward::server {
namespace {

using nlohmann::json;

constexpr size_t kMaxNodesListed = 16;  // Per workload in the list; nodes_total has them all.

bool OnPool(const Snapshot& s, const WorkloadView& w, int pool) {
  if (w.pods_placed.empty()) return w.gpu_model >= 0 && w.gpu_model == s.topology->pool_model[pool];
  return std::any_of(w.pods_placed.begin(), w.pods_placed.end(),
                     [&](const PodView& p) { return s.nodes[p.node].pool_index == pool; });
}

bool OnRack(const Snapshot& s, const WorkloadView& w, int rack) {
  return std::any_of(w.pods_placed.begin(), w.pods_placed.end(),
                     [&](const PodView& p) { return s.nodes[p.node].rack == rack; });
}

bool Matches(const Snapshot& s, const WorkloadQuery& q, const WorkloadView& w) {
  if (!q.state.empty() && w.state != q.state) return false;
  if (!q.team.empty() && w.team != q.team) return false;
  if (!q.reason.empty() && w.reason != q.reason) return false;
  if (q.pool >= 0 && !OnPool(s, w, q.pool)) return false;
  if (q.rack >= 0 && !OnRack(s, w, q.rack)) return false;
  if (q.node != model::kNoNode && std::none_of(w.pods_placed.begin(), w.pods_placed.end(),
                                               [&](const PodView& p) { return p.node == q.node; }))
    return false;
  return true;
}

}  // namespace

const WorkloadView* FindWorkload(const Snapshot& s, model::WorkloadId id) {
  auto it = std::lower_bound(s.workloads.begin(), s.workloads.end(), id,
                             [](const WorkloadView& v, model::WorkloadId x) { return v.id < x; });
  return it != s.workloads.end() && it->id == id ? &*it : nullptr;
}

Result<WorkloadQuery> ParseWorkloadQuery(const Snapshot& s, const QueryParams& p) {
  STEWARD_RETURN_IF_ERROR(
      p.Allow({"team", "pool", "rack", "node", "state", "reason", "offset", "limit", "continue"}));
  WorkloadQuery q;
  STEWARD_ASSIGN_OR_RETURN(q.offset, p.Int("offset", 0, 0, 1 << 30));
  STEWARD_ASSIGN_OR_RETURN(q.limit, p.Int("limit", 100, 1, kMaxLimit));
  const int racks = static_cast<int>(s.topology->rack_nodes.size());
  STEWARD_ASSIGN_OR_RETURN(q.rack, p.Int("rack", -1, 0, std::max(0, racks - 1)));
  q.state = p.Get("state");
  q.team = p.Get("team");
  q.reason = p.Get("reason");
  if (!q.state.empty() && q.state != "pending" && q.state != "starting" && q.state != "running")
    return Status::InvalidArgument("state=" + q.state + ": expected pending, starting or running");
  if (!q.team.empty() && std::find(s.teams.begin(), s.teams.end(), q.team) == s.teams.end())
    return Status::InvalidArgument("team=" + q.team + ": no such team");
  // Reasons are the twin's (twin/pending_reason.h) or the kueue admitter's own, so any
  // snake_case word is a valid filter; anything else is a typo.
  if (p.Has("reason") &&
      (q.reason.empty() ||
       q.reason.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos))
    return Status::InvalidArgument("reason=" + q.reason +
                                   ": expected a pending reason such as quota_exhausted");
  if (p.Has("pool")) {
    const std::string pool = p.Get("pool");
    const auto& pools = s.topology->pools;
    auto it = std::find(pools.begin(), pools.end(), pool);
    if (it == pools.end())
      return Status::InvalidArgument(
          fmt::format("pool={}: no such pool (pools: {})", pool, fmt::join(pools, ", ")));
    q.pool = static_cast<int>(it - pools.begin());
  }
  if (p.Has("node")) {
    const std::string node = p.Get("node");
    auto it = s.topology->node_by_name.find(node);
    if (it == s.topology->node_by_name.end())
      return Status::InvalidArgument("node=" + node + ": no such node");
    q.node = it->second;
  }
  if (p.Has("continue")) {
    if (p.Has("offset")) return Status::InvalidArgument("continue and offset: give one, not both");
    const std::string token = p.Get("continue");
    int id = -1;
    auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), id);
    if (ec != std::errc() || end != token.data() + token.size() || id < 0)
      return Status::InvalidArgument("continue=" + token +
                                     ": not a token from a previous page's \"continue\"");
    q.start_id = id;
  }
  return q;
}

json RunWorkloadQuery(const Snapshot& s, const WorkloadQuery& q) {
  // Candidates in id order: a node's or a rack's workloads from the node index, else all.
  std::vector<const WorkloadView*> indexed;
  const bool use_index = q.node != model::kNoNode || q.rack >= 0;
  if (use_index) {
    std::vector<model::WorkloadId> ids;
    if (q.node != model::kNoNode) {
      ids = s.nodes[q.node].workloads;
    } else {
      for (model::NodeId n : s.topology->rack_nodes[q.rack])
        ids.insert(ids.end(), s.nodes[n].workloads.begin(), s.nodes[n].workloads.end());
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    }
    for (model::WorkloadId id : ids)
      if (const WorkloadView* w = FindWorkload(s, id)) indexed.push_back(w);
  }
  const size_t n = use_index ? indexed.size() : s.workloads.size();
  auto at = [&](size_t i) -> const WorkloadView& {
    return use_index ? *indexed[i] : s.workloads[i];
  };
  json items = json::array();
  int total = 0, skipped = 0;
  json next = nullptr;
  for (size_t i = 0; i < n; ++i) {
    const WorkloadView& w = at(i);
    if (!Matches(s, q, w)) continue;
    ++total;
    if (q.start_id >= 0 ? w.id < q.start_id : skipped++ < q.offset) continue;
    if (static_cast<int>(items.size()) < q.limit)
      items.push_back(WorkloadJson(s, w));
    else if (next.is_null())
      next = std::to_string(w.id);
  }
  return {{"total", total},
          {"offset", q.start_id >= 0 ? json(nullptr) : json(q.offset)},
          {"limit", q.limit},
          {"continue", next},
          {"workloads", std::move(items)}};
}

json WorkloadJson(const Snapshot& s, const WorkloadView& w) {
  json j{{"id", w.id},
         {"name", w.name},
         {"team", w.team},
         {"kind", w.kind},
         {"tier", w.tier},
         {"state", w.state},
         {"gpus_requested", w.gpus_requested},
         {"gpus_allocated", w.gpus_allocated},
         {"pods", w.pods},
         {"submitted_hours", w.submitted_hours},
         {"interruptions", w.interruptions}};
  if (w.state == "pending") {
    j["reason"] = w.reason;
    j["reason_detail"] = w.reason_detail;
    j["pending_seconds"] = w.pending_seconds;
  }
  // Nodes holding its pods, each once, in pod order (the first kMaxNodesListed).
  json nodes = json::array();
  std::vector<model::NodeId> all;
  all.reserve(w.pods_placed.size());
  for (const PodView& p : w.pods_placed) {
    all.push_back(p.node);
    if (nodes.size() < kMaxNodesListed &&
        std::find(nodes.begin(), nodes.end(), s.nodes[p.node].name) == nodes.end())
      nodes.push_back(s.nodes[p.node].name);
  }
  std::sort(all.begin(), all.end());
  j["nodes"] = std::move(nodes);
  j["nodes_total"] = std::unique(all.begin(), all.end()) - all.begin();
  return j;
}

}  // namespace steward::server

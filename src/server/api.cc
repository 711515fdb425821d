#include "server/api.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "audit/report.h"
#include "model/xid_catalog.h"
#include "server/dashboard_assets.h"
#include "server/metrics.h"
#include "server/node_detail.h"
#include "server/query_params.h"
#include "server/workload_query.h"
#include "telemetry/dcgm_writer.h"

namespace steward::server {
namespace {

using nlohmann::json;

constexpr int kDefaultLimit = 100;

// Names may come from traces or URLs: replace invalid UTF-8 rather than throw.
std::string JsonText(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

HttpReply JsonReply(const json& j, int status = 200) {
  HttpReply r;
  r.status = status;
  r.body = JsonText(j);
  return r;
}

// The HTTP status of a failed control.
int StatusCodeOf(const Status& s) {
  switch (s.code()) {
    case Status::Code::kInvalidArgument:
      return 400;
    case Status::Code::kNotFound:
      return 404;
    case Status::Code::kFailedPrecondition:
      return 409;
    default:
      return 500;
  }
}

using Params = QueryParams;

#define API_ASSIGN_OR_REPLY(lhs, expr)                                             \
  auto lhs##_result = (expr);                                                      \
  if (!lhs##_result.ok()) return ErrorReply(400, lhs##_result.status().message()); \
  auto lhs = *lhs##_result

#define API_CHECK_PARAMS(params, ...)                   \
  do {                                                  \
    Status s_ = (params).Allow({__VA_ARGS__});          \
    if (!s_.ok()) return ErrorReply(400, s_.message()); \
  } while (0)

// ---- JSON views --------------------------------------------------------------------------

json NodeJson(const Snapshot& s, const NodeView& n, bool detail) {
  json j{{"name", n.name},
         {"rack", n.rack},
         {"leaf", n.leaf},
         {"pool", n.pool},
         {"gpu_model", n.gpu_model},
         {"gpus_total", n.capacity},
         {"gpus_in_use", n.in_use},
         {"gpus_idle", n.idle},
         {"gpus_faulty", n.faulty},
         {"gpus_cordoned", n.cordoned_gpus},
         {"cordoned", n.cordoned},
         {"schedulable", n.schedulable},
         {"remediation", n.remediation},
         {"sm_active", n.sm_active},
         {"gpus", n.gpus}};
  json w = json::array();
  for (model::WorkloadId id : n.workloads) {
    if (!detail) {
      w.push_back(id);
      continue;
    }
    auto it = std::lower_bound(s.workloads.begin(), s.workloads.end(), id,
                               [](const WorkloadView& v, model::WorkloadId x) { return v.id < x; });
    if (it != s.workloads.end() && it->id == id) w.push_back(it->name);
  }
  j[detail ? "workloads" : "workload_ids"] = std::move(w);
  if (detail) {
    j["gpu_details"] = NodeGpusJson(s, n);
    j["dcgm_sim_hours"] = s.dcgm_records ? json(s.dcgm_sim_hours) : json(nullptr);
  }
  return j;
}

json QueueJson(const Snapshot& s, const QueueView& q) {
  json j{{"team", q.team},
         {"cluster_queue", q.cluster_queue.empty() ? json() : json(q.cluster_queue)},
         {"quota_gpus", q.quota_gpus},
         {"used_gpus", q.used_gpus},
         {"borrowed_gpus", q.borrowed_gpus},
         {"running", q.running},
         {"starting", q.starting},
         {"pending", q.pending},
         {"pending_gpus", q.pending_gpus},
         {"pending_by_reason", q.pending_by_reason},
         {"allocated_gpu_hours", q.allocated_gpu_hours}};
  if (!s.currency.empty()) j["cost"] = q.cost;
  return j;
}

// ---- GET handlers ------------------------------------------------------------------------

HttpReply GetNodes(const Snapshot& s, const Params& p) {
  API_CHECK_PARAMS(p, "rack", "state", "offset", "limit");
  API_ASSIGN_OR_REPLY(rack, p.Int("rack", -1, -1, 1 << 30));
  API_ASSIGN_OR_REPLY(offset, p.Int("offset", 0, 0, 1 << 30));
  API_ASSIGN_OR_REPLY(limit, p.Int("limit", kDefaultLimit, 1, kMaxLimit));
  const std::string state = p.Get("state");
  static const std::set<std::string> kStates = {"", "in_use", "idle", "faulty", "cordoned"};
  if (!kStates.count(state))
    return ErrorReply(400, "state=" + state + ": expected in_use, idle, faulty or cordoned");
  json nodes = json::array();
  int matched = 0;
  for (const NodeView& n : s.nodes) {
    if (rack >= 0 && n.rack != rack) continue;
    if (state == "in_use" && n.in_use == 0) continue;
    if (state == "idle" && n.idle == 0) continue;
    if (state == "faulty" && n.faulty == 0) continue;
    if (state == "cordoned" && !n.cordoned) continue;
    if (matched++ < offset || static_cast<int>(nodes.size()) >= limit) continue;
    nodes.push_back(NodeJson(s, n, false));
  }
  return JsonReply({{"total", matched}, {"offset", offset}, {"limit", limit}, {"nodes", nodes}});
}

const NodeView* FindNode(const Snapshot& s, const std::string& name) {
  auto it = s.topology->node_by_name.find(name);
  return it == s.topology->node_by_name.end() ? nullptr : &s.nodes[it->second];
}

json RacksJson(const Snapshot& s, bool with_nodes) {
  json out = json::array();
  const auto& racks = s.topology->rack_nodes;
  for (size_t rack = 0; rack < racks.size(); ++rack) {
    if (racks[rack].empty()) continue;
    int in_use = 0, idle = 0, faulty = 0, cordoned = 0, gpus = 0;
    std::set<std::string> pools;
    json nodes = json::array();
    for (model::NodeId id : racks[rack]) {
      const NodeView& n = s.nodes[id];
      in_use += n.in_use;
      idle += n.idle;
      faulty += n.faulty;
      cordoned += n.cordoned_gpus;
      gpus += n.capacity;
      pools.insert(n.pool);
      if (with_nodes)
        nodes.push_back({{"name", n.name},
                         {"gpus", n.gpus},
                         {"cordoned", n.cordoned},
                         {"remediation", n.remediation},
                         {"sm_active", n.sm_active},
                         {"workloads", n.workloads.size()}});
    }
    json r{{"rack", rack},
           {"gpus_total", gpus},
           {"gpus_in_use", in_use},
           {"gpus_idle", idle},
           {"gpus_faulty", faulty},
           {"gpus_cordoned", cordoned},
           {"nodes_total", racks[rack].size()},
           {"pools", pools}};
    if (with_nodes) r["nodes"] = std::move(nodes);
    out.push_back(std::move(r));
  }
  return {{"racks", std::move(out)}};
}

HttpReply GetRacks(const Snapshot& s, const Params& p) {
  API_CHECK_PARAMS(p, "nodes");
  API_ASSIGN_OR_REPLY(with_nodes, p.Bool("nodes", true));
  const std::shared_ptr<const RenderedText>& cached = s.racks_json[with_nodes ? 1 : 0];
  if (!cached) return JsonReply(RacksJson(s, with_nodes));
  // Every dashboard polls it every second (2 MB with nodes at 102,400 GPUs, 0.4 MB without):
  // one rendering per snapshot, shared by every client.
  HttpReply reply;
  reply.shared_body = cached->Get([&] { return JsonText(RacksJson(s, with_nodes)); });
  return reply;
}

HttpReply GetWorkloads(const Snapshot& s, const Params& p) {
  API_ASSIGN_OR_REPLY(query, ParseWorkloadQuery(s, p));
  return JsonReply(RunWorkloadQuery(s, query));
}

HttpReply GetCost(const Snapshot& s, const Params& p) {
  API_CHECK_PARAMS(p);
  json teams = json::array();
  double hours = 0, cost = 0;
  for (const QueueView& q : s.queues) {
    json t{{"team", q.team},
           {"allocated_gpu_hours", q.allocated_gpu_hours},
           {"busy_gpu_hours", q.busy_gpu_hours},
           {"sm_active_gpu_hours", q.sm_active_gpu_hours},
           {"idle_allocated_gpu_hours", q.allocated_gpu_hours - q.sm_active_gpu_hours}};
    if (!s.currency.empty()) t["cost"] = q.cost;
    hours += q.allocated_gpu_hours;
    cost += q.cost;
    teams.push_back(std::move(t));
  }
  json j{
      {"sim_time", s.overview.sim_seconds}, {"teams", teams}, {"total_allocated_gpu_hours", hours}};
  if (!s.currency.empty()) {
    j["currency"] = s.currency;
    j["total_cost"] = cost;
  } else {
    j["currency"] = nullptr;
  }
  return JsonReply(j);
}

HttpReply GetTimeseries(const Snapshot& s, const Params& p) {
  API_CHECK_PARAMS(p, "since_hours", "max_points");
  API_ASSIGN_OR_REPLY(since, p.Double("since_hours", 0));
  API_ASSIGN_OR_REPLY(max_points, p.Int("max_points", 1000, 1, 100000));
  std::vector<const SeriesPoint*> picked;
  if (s.series)
    for (const SeriesPoint& pt : *s.series)
      if (pt.hours >= since) picked.push_back(&pt);
  // Evenly thinned to max_points, always keeping the latest point.
  json points = json::array();
  const size_t n = picked.size();
  const size_t stride = n > static_cast<size_t>(max_points) ? (n + max_points - 1) / max_points : 1;
  for (size_t i = 0; i < n; ++i) {
    if (i % stride != 0 && i + 1 != n) continue;
    const SeriesPoint& pt = *picked[i];
    points.push_back({{"hours", pt.hours},
                      {"allocation", pt.allocation},
                      {"busy", pt.busy},
                      {"sm_active", pt.sm_active},
                      {"gpus_in_use", pt.in_use},
                      {"gpus_idle", pt.idle},
                      {"gpus_faulty", pt.faulty},
                      {"gpus_cordoned", pt.cordoned},
                      {"running", pt.running},
                      {"pending", pt.pending}});
  }
  json markers = json::array();
  if (s.markers)
    for (const ChartMarker& m : *s.markers) {
      if (m.hours < since) continue;
      markers.push_back(
          {{"hours", m.hours}, {"kind", m.kind}, {"subjects", m.subjects}, {"count", m.count}});
    }
  return JsonReply({{"points", points}, {"markers", markers}});
}

// ---- POST handlers (controls) ------------------------------------------------------------

Result<json> ParseBody(const HttpRequest& r) {
  if (r.body.empty()) return json::object();
  json j = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("request body is not valid JSON");
  if (!j.is_object()) return Status::InvalidArgument("request body must be a JSON object");
  return j;
}

// Reads field `key` of `body` as T, or `fallback` when absent.
template <typename T>
Result<T> Field(const json& body, const char* key, T fallback) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return fallback;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) return Status::InvalidArgument(fmt::format("{}: expected a string", key));
    return it->template get<std::string>();
  } else if constexpr (std::is_same_v<T, int>) {
    if (!it->is_number_integer())
      return Status::InvalidArgument(fmt::format("{}: expected an integer", key));
    const int64_t v = it->template get<int64_t>();
    if (v < -(1LL << 31) || v >= (1LL << 31))
      return Status::InvalidArgument(fmt::format("{}: out of range", key));
    return static_cast<int>(v);
  } else {
    if (!it->is_number()) return Status::InvalidArgument(fmt::format("{}: expected a number", key));
    return it->template get<double>();
  }
}

HttpReply Reply(const Status& s, json ok) {
  if (!s.ok()) return ErrorReply(StatusCodeOf(s), s.message());
  return JsonReply(ok);
}

#define BODY_FIELD(lhs, body, key, fallback)                             \
  auto lhs##_r = Field(body, key, fallback);                             \
  if (!lhs##_r.ok()) return ErrorReply(400, lhs##_r.status().message()); \
  auto lhs = *lhs##_r

HttpReply PostWorkload(LiveTwin& live, const HttpRequest& r) {
  auto body_r = ParseBody(r);
  if (!body_r.ok()) return ErrorReply(400, body_r.status().message());
  const json body = *body_r;
  static const std::set<std::string> kKeys = {"name", "team",         "kind",           "tier",
                                              "pods", "gpus_per_pod", "duration_hours", "gpu_model",
                                              "busy", "sm_active",    "priority_class"};
  for (auto it = body.begin(); it != body.end(); ++it)
    if (!kKeys.count(it.key())) return ErrorReply(400, "unknown field '" + it.key() + "'");
  BODY_FIELD(team, body, "team", std::string());
  BODY_FIELD(name, body, "name", std::string());
  BODY_FIELD(kind_text, body, "kind", std::string("batch"));
  BODY_FIELD(tier_text, body, "tier", std::string());
  BODY_FIELD(model_name, body, "gpu_model", std::string());
  BODY_FIELD(priority_class, body, "priority_class", std::string());
  BODY_FIELD(pods, body, "pods", 1);
  BODY_FIELD(gpus_per_pod, body, "gpus_per_pod", 1);
  BODY_FIELD(hours, body, "duration_hours", 1.0);
  BODY_FIELD(busy, body, "busy", 0.9);
  BODY_FIELD(sm, body, "sm_active", 0.5);
  if (team.empty()) return ErrorReply(400, "team: required");
  model::Workload w;
  w.name = name;
  if (!model::ParseKind(kind_text, &w.kind))
    return ErrorReply(400,
                      "kind '" + kind_text + "': expected inference, training, notebook or batch");
  w.tier = w.kind == model::WorkloadKind::kInference  ? model::Tier::kProduction
           : w.kind == model::WorkloadKind::kTraining ? model::Tier::kTraining
                                                      : model::Tier::kDev;
  if (!tier_text.empty() && !model::ParseTier(tier_text, &w.tier))
    return ErrorReply(400, "tier '" + tier_text + "': expected production, training or dev");
  w.priority_class = priority_class.empty() ? std::string(model::TierName(w.tier)) : priority_class;
  if (pods < 1 || pods > 4096) return ErrorReply(400, "pods: expected 1..4096");
  if (gpus_per_pod < 1) return ErrorReply(400, "gpus_per_pod: expected >= 1");
  if (!(hours > 0) || hours > 24 * 365)
    return ErrorReply(400, "duration_hours: expected 0 < h <= 8760");
  if (!(busy >= 0 && busy <= 1) || !(sm >= 0 && sm <= busy))
    return ErrorReply(400, "busy and sm_active: expected 0 <= sm_active <= busy <= 1");
  w.pod_sets = {
      {w.kind == model::WorkloadKind::kInference ? "replica" : "worker", pods, gpus_per_pod}};
  if (w.kind == model::WorkloadKind::kInference) w.min_replicas = w.max_replicas = pods;
  w.duration = SecondsF(hours * 3600);
  w.usage.busy = busy;
  w.usage.sm_active = sm;
  model::WorkloadId id = -1;
  std::string final_name;
  const Status s = live.Control([&](twin::Twin& t) -> Status {
    const int team_index = t.scenario().FindTeam(team);
    if (team_index < 0) return Status::NotFound("no team named '" + team + "'");
    w.team = team_index;
    w.queue = team;
    if (!model_name.empty()) {
      w.gpu_model = t.cluster().FindGpuModel(model_name);
      if (w.gpu_model < 0)
        return Status::InvalidArgument("no GPU model named '" + model_name + "'");
    }
    if (!w.name.empty() && t.FindRun(w.name))
      return Status::InvalidArgument("a workload named '" + w.name + "' exists");
    STEWARD_ASSIGN_OR_RETURN(id, t.Submit(w));
    final_name = t.runs()[id].spec.name;
    return Status::Ok();
  });
  if (!s.ok()) return ErrorReply(StatusCodeOf(s), s.message());
  return JsonReply({{"id", id}, {"name", final_name}, {"team", team}}, 201);
}

// `queue` is a team (its fifo-quota queue, or under kueue its ClusterQueue) or a ClusterQueue.
HttpReply PostQuota(LiveTwin& live, const HttpRequest& r, const std::string& queue) {
  auto body_r = ParseBody(r);
  if (!body_r.ok()) return ErrorReply(400, body_r.status().message());
  BODY_FIELD(gpus, *body_r, "gpus", -1);
  BODY_FIELD(flavor, *body_r, "flavor", std::string());
  if (gpus < 0) return ErrorReply(400, "gpus: required, an integer >= 0");
  std::string cluster_queue;
  const Status s = live.Control([&](twin::Twin& t) -> Status {
    const int index = t.scenario().FindTeam(queue);
    const twin::SchedulerReport sched = t.Scheduler();
    if (index >= 0 && index < static_cast<int>(sched.team_cluster_queues.size()))
      cluster_queue = sched.team_cluster_queues[index];
    if (index >= 0 && flavor.empty()) return t.SetTeamQuota(index, gpus);
    if (index < 0) {
      for (const twin::ClusterQueueReport& cq : sched.cluster_queues)
        if (cq.name == queue) cluster_queue = cq.name;
      if (cluster_queue.empty())
        return Status::NotFound("no team or ClusterQueue named '" + queue + "'");
    }
    if (cluster_queue.empty())
      return Status::FailedPrecondition("team '" + queue + "' has no ClusterQueue (flavor given)");
    return t.SetClusterQueueQuota(cluster_queue, flavor, gpus);
  });
  json body{{"team", queue}, {"quota_gpus", gpus}};
  if (!cluster_queue.empty()) body["cluster_queue"] = cluster_queue;
  if (!flavor.empty()) body["flavor"] = flavor;
  return Reply(s, body);
}

HttpReply PostCordon(LiveTwin& live, const std::string& node, bool cordon) {
  const Status s = live.Control([&](twin::Twin& t) -> Status {
    const model::NodeId n = t.cluster().FindNode(node);
    if (n == model::kNoNode) return Status::NotFound("no node named '" + node + "'");
    return t.SetNodeCordoned(n, cordon);
  });
  return Reply(s, {{"node", node}, {"cordoned", cordon}});
}

// Reads the "xid" of a fault request (default 79, a GPU fallen off the bus) and checks it
// against the XID catalog.
Result<int> FaultXid(const json& body, int fallback) {
  auto xid = Field(body, "xid", fallback);
  if (!xid.ok()) return xid.status();
  if (model::XidCatalog::Builtin().Find(*xid) == nullptr)
    return Status::InvalidArgument(
        fmt::format("xid: {} is not in the XID catalog (see steward health xid)", *xid));
  return *xid;
}

Status CheckKeys(const json& body, std::initializer_list<std::string_view> keys) {
  for (auto it = body.begin(); it != body.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end())
      return Status::InvalidArgument("unknown field '" + it.key() + "'");
  return Status::Ok();
}

HttpReply PostNodeFault(LiveTwin& live, const HttpRequest& r, const std::string& node) {
  auto body_r = ParseBody(r);
  if (!body_r.ok()) return ErrorReply(400, body_r.status().message());
  if (Status s = CheckKeys(*body_r, {"xid", "gpu"}); !s.ok()) return ErrorReply(400, s.message());
  auto xid = FaultXid(*body_r, 79);
  if (!xid.ok()) return ErrorReply(400, xid.status().message());
  BODY_FIELD(gpu, *body_r, "gpu", 0);
  const model::XidEntry& entry = *model::XidCatalog::Builtin().Find(*xid);
  const Status s = live.Control([&](twin::Twin& t) -> Status {
    const model::NodeId n = t.cluster().FindNode(node);
    if (n == model::kNoNode) return Status::NotFound("no node named '" + node + "'");
    return t.InjectXid(n, gpu, *xid);
  });
  return Reply(s, {{"node", node},
                   {"gpu", gpu},
                   {"xid", *xid},
                   {"mnemonic", entry.mnemonic},
                   {"action", model::XidActionName(entry.action)}});
}

HttpReply PostRackFault(LiveTwin& live, const HttpRequest& r, const std::string& rack_text) {
  auto body_r = ParseBody(r);
  if (!body_r.ok()) return ErrorReply(400, body_r.status().message());
  if (Status s = CheckKeys(*body_r, {"xid"}); !s.ok()) return ErrorReply(400, s.message());
  auto xid = FaultXid(*body_r, 74);
  if (!xid.ok()) return ErrorReply(400, xid.status().message());
  // "3" or "rack-3".
  std::string_view digits = rack_text;
  if (digits.rfind("rack-", 0) == 0) digits.remove_prefix(5);
  int rack = -1;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), rack);
  if (ec != std::errc() || p != digits.data() + digits.size() || rack < 0)
    return ErrorReply(400, "rack '" + rack_text + "': expected a rack id such as 3 or rack-3");
  std::vector<std::string> nodes;
  const Status s = live.Control([&](twin::Twin& t) -> Status {
    STEWARD_RETURN_IF_ERROR(t.InjectRackEvent(rack, *xid));
    for (model::NodeId n : t.rack_nodes(rack)) nodes.push_back(t.cluster().node(n).name);
    return Status::Ok();
  });
  return Reply(s, {{"rack", rack}, {"xid", *xid}, {"nodes", nodes}});
}

// GET /api/tenancy: the scenario's tenant isolation findings (static for a run), in the shape
// of `steward audit tenancy --json`, plus "enabled" (false without a tenancy section).
json TenancyJson(const audit::AuditResult* tenancy) {
  if (!tenancy) return {{"enabled", false}, {"findings", json::array()}};
  json j = audit::FindingsJson(*tenancy);
  j["enabled"] = true;
  return j;
}

// POST /api/rollouts/NAME/answer {"answer": "resume"|"abort", "why": "..."}: a human's answer
// to a rollout paused on an inconclusive gate.
HttpReply PostRolloutAnswer(LiveTwin& live, const HttpRequest& r, const std::string& rollout) {
  auto body_r = ParseBody(r);
  if (!body_r.ok()) return ErrorReply(400, body_r.status().message());
  if (Status s = CheckKeys(*body_r, {"answer", "why"}); !s.ok())
    return ErrorReply(400, s.message());
  BODY_FIELD(answer, *body_r, "answer", std::string());
  BODY_FIELD(why, *body_r, "why", std::string("from the dashboard"));
  if (answer != "resume" && answer != "abort")
    return ErrorReply(400, "answer: required, resume or abort");
  const auto& answer_rollout = live.options().answer_rollout;
  if (!answer_rollout) return ErrorReply(404, "no rollout named '" + rollout + "'");
  const Status s = live.Control(
      [&](twin::Twin& t) -> Status { return answer_rollout(t, rollout, answer == "resume", why); });
  return Reply(s, {{"rollout", rollout}, {"answer", answer}, {"why", why}});
}

// GET /api/rollouts: the rollouts the engine runs in the twin (gated faults.driver_rollouts
// entries, from their start), each in the shape of `steward rollout status --json`.
json RolloutsJson(const Snapshot& s) {
  return {{"sim_hours", s.overview.sim_seconds / 3600},
          {"rollouts", s.rollouts ? *s.rollouts : json::array()}};
}

// Splits "/api/a/b" into {"a", "b"}.
std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    const size_t j = path.find('/', i);
    out.emplace_back(path.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
    i = j == std::string_view::npos ? path.size() : j;
  }
  return out;
}

HttpReply MethodNotAllowed(const HttpRequest& r, std::string_view allowed) {
  return ErrorReply(405,
                    fmt::format("{} {}: method not allowed (use {})", r.method, r.path, allowed));
}

HttpReply HandleApi(LiveTwin& live, const HttpRequest& r, const std::vector<std::string>& seg) {
  const std::shared_ptr<const Snapshot> snap = live.snapshot();
  const Snapshot& s = *snap;
  const Params p(r);
  const bool get = r.method == "GET" || r.method == "HEAD";
  const bool post = r.method == "POST";
  const std::string& what = seg.size() > 1 ? seg[1] : std::string();
  if (seg.size() == 2) {
    if (what == "overview") {
      if (!get) return MethodNotAllowed(r, "GET");
      API_CHECK_PARAMS(p);
      // Dashboards poll it every second: one rendering per snapshot, shared by every client.
      if (!s.overview_json) return JsonReply(OverviewJson(s));
      HttpReply reply;
      reply.shared_body = s.overview_json->Get([&s] { return JsonText(OverviewJson(s)); });
      return reply;
    }
    if (what == "nodes") return get ? GetNodes(s, p) : MethodNotAllowed(r, "GET");
    if (what == "racks") return get ? GetRacks(s, p) : MethodNotAllowed(r, "GET");
    if (what == "queues") {
      if (!get) return MethodNotAllowed(r, "GET");
      API_CHECK_PARAMS(p);
      json q = json::array();
      for (const QueueView& v : s.queues) q.push_back(QueueJson(s, v));
      return JsonReply(
          {{"queues", q}, {"cluster_queues", twin::ToJson(s.scheduler)["cluster_queues"]}});
    }
    if (what == "workloads") {
      if (post) return PostWorkload(live, r);
      return get ? GetWorkloads(s, p) : MethodNotAllowed(r, "GET, POST");
    }
    if (what == "incidents") {
      if (!get) return MethodNotAllowed(r, "GET");
      API_CHECK_PARAMS(p);
      return JsonReply(IncidentsJson(s));
    }
    if (what == "cost") return get ? GetCost(s, p) : MethodNotAllowed(r, "GET");
    if (what == "tenancy") {
      if (!get) return MethodNotAllowed(r, "GET");
      API_CHECK_PARAMS(p);
      return JsonReply(TenancyJson(live.tenancy()));
    }
    if (what == "timeseries") return get ? GetTimeseries(s, p) : MethodNotAllowed(r, "GET");
    if (what == "rollouts") {
      if (!get) return MethodNotAllowed(r, "GET");
      API_CHECK_PARAMS(p);
      return JsonReply(RolloutsJson(s));
    }
  }
  if (seg.size() == 3 && what == "nodes") {
    if (!get) return MethodNotAllowed(r, "GET");
    const NodeView* n = FindNode(s, seg[2]);
    if (!n) return ErrorReply(404, "no node named '" + seg[2] + "'");
    return JsonReply(NodeJson(s, *n, true));
  }
  if (seg.size() == 3 && what == "workloads") {
    if (!get) return MethodNotAllowed(r, "GET");
    for (const WorkloadView& w : s.workloads)
      if (w.name == seg[2]) return JsonReply(WorkloadJson(s, w));
    return ErrorReply(404, "no unfinished workload named '" + seg[2] + "'");
  }
  if (seg.size() == 4 && what == "nodes") {
    const std::string& action = seg[3];
    if (action == "cordon" || action == "uncordon") {
      if (!post) return MethodNotAllowed(r, "POST");
      return PostCordon(live, seg[2], action == "cordon");
    }
    if (action == "fault") {
      if (!post) return MethodNotAllowed(r, "POST");
      return PostNodeFault(live, r, seg[2]);
    }
  }
  if (seg.size() == 4 && what == "racks" && seg[3] == "fault") {
    if (!post) return MethodNotAllowed(r, "POST");
    return PostRackFault(live, r, seg[2]);
  }
  if (seg.size() == 4 && what == "rollouts" && seg[3] == "answer") {
    if (!post) return MethodNotAllowed(r, "POST");
    return PostRolloutAnswer(live, r, seg[2]);
  }
  if (seg.size() == 4 && what == "queues" && seg[3] == "quota") {
    if (!post) return MethodNotAllowed(r, "POST");
    return PostQuota(live, r, seg[2]);
  }
  return ErrorReply(404, "no such endpoint: " + r.path + " (see docs/api.md)");
}

}  // namespace

nlohmann::json OverviewJson(const Snapshot& s) {
  using nlohmann::json;
  const Overview& o = s.overview;
  json j;
  j["sim_time"] = o.sim_seconds;
  j["sim_hours"] = o.sim_seconds / 3600;
  j["horizon"] = o.horizon_seconds;
  j["finished"] = o.finished;
  j["speed"] = o.speed;
  j["version"] = s.version;
  j["scenario"] = o.scenario;
  j["admission_policy"] = o.admission_policy;
  j["placement_policy"] = o.placement_policy;
  j["gpus_total"] = o.gpus_total;
  j["gpus_in_use"] = o.gpus_in_use;
  j["gpus_idle"] = o.gpus_idle;
  j["gpus_faulty"] = o.gpus_faulty;
  j["gpus_cordoned"] = o.gpus_cordoned;
  j["gpus_allocated"] = o.gpus_allocated;
  j["nodes_total"] = o.nodes_total;
  j["nodes_cordoned"] = o.nodes_cordoned;
  j["nodes_faulty"] = o.nodes_faulty;
  j["racks_total"] = o.racks_total;
  j["workloads_submitted"] = o.workloads_submitted;
  j["workloads_running"] = o.workloads_running;
  j["workloads_starting"] = o.workloads_starting;
  j["workloads_pending"] = o.workloads_pending;
  j["workloads_completed"] = o.workloads_completed;
  j["allocation_rate"] = o.allocation_rate;
  j["busy_utilization"] = o.busy_utilization;
  j["sm_active_utilization"] = o.sm_active_utilization;
  j["allocation_rate_cumulative"] = o.allocation_rate_cumulative;
  j["busy_utilization_cumulative"] = o.busy_utilization_cumulative;
  j["sm_active_utilization_cumulative"] = o.sm_active_utilization_cumulative;
  j["stranded_free_gpus"] = o.stranded_free_gpus;
  j["whole_free_nodes"] = o.whole_free_nodes;
  j["largest_free_block"] = o.largest_free_block;
  j["pending_by_reason"] = o.pending_by_reason;
  j["incidents_open"] = o.incidents_open;
  j["remediation"] = o.remediation;
  j["nodes_by_remediation_state"] = o.nodes_by_remediation_state;
  j["tickets"] = o.tickets;
  j["events"] = o.events;
  return j;
}

nlohmann::json IncidentsJson(const Snapshot& s) {
  using nlohmann::json;
  json list = json::array();
  for (const IncidentView& i : s.incidents) {
    json j{{"id", i.id},
           {"scope", i.scope},
           {"subject", i.subject},
           {"category", i.category},
           {"nodes", i.nodes},
           {"faulty_gpus", i.faulty_gpus},
           {"first_fault_hours", i.first_fault_hours},
           {"last_fault_hours", i.last_fault_hours},
           {"ticket", i.ticket == 0 ? json(nullptr) : json(i.ticket)},
           {"suspected_cause", i.suspected_cause},
           {"state", "open"}};
    j["rack"] = i.rack >= 0 ? json(i.rack) : json(nullptr);
    j["leaf"] = i.leaf >= 0 ? json(i.leaf) : json(nullptr);
    list.push_back(std::move(j));
  }
  // How the incidents add up to the overview's counters: faulty GPUs and out-of-service nodes
  // on the nodes of open incidents, and the nodes outside every open incident.
  const IncidentCoverage& c = s.incident_coverage;
  json outside = json::array();
  int faulty_outside = 0;
  for (const UncoveredNode& n : c.uncovered) {
    faulty_outside += n.faulty_gpus;
    outside.push_back({{"node", n.name},
                       {"rack", n.rack},
                       {"faulty_gpus", n.faulty_gpus},
                       {"remediation", n.remediation},
                       {"cordoned", n.cordoned}});
  }
  json summary{{"incidents_open", s.incidents.size()},
               {"gpus_faulty", s.overview.gpus_faulty},
               {"gpus_faulty_in_incidents", c.gpus_faulty_in_incidents},
               {"gpus_faulty_outside_incidents", faulty_outside},
               {"nodes_in_incidents", c.nodes_in_incidents},
               {"nodes_out_of_service", c.nodes_out_of_service},
               {"nodes_quarantined", c.nodes_quarantined},
               {"nodes_quarantined_in_incidents", c.nodes_quarantined_in_incidents}};
  return {{"incidents", list},
          {"remediation", s.overview.remediation},
          {"summary", s.overview.remediation ? summary : json(nullptr)},
          {"outside_incidents", outside}};
}

HttpReply ErrorReply(int status, const std::string& message) {
  return JsonReply({{"error", {{"code", status}, {"message", message}}}}, status);
}

HttpReply HandleRequest(LiveTwin& live, const HttpRequest& r) {
  const std::vector<std::string> seg = Segments(r.path);
  if (!seg.empty() && seg[0] == "api") return HandleApi(live, r, seg);
  const bool get = r.method == "GET" || r.method == "HEAD";
  if (r.path == "/metrics") {
    if (!get) return MethodNotAllowed(r, "GET");
    HttpReply reply;
    reply.content_type = kPrometheusContentType;
    reply.body = RenderMetrics(*live.snapshot());
    return reply;
  }
  if (r.path == "/metrics/dcgm") {
    if (!get) return MethodNotAllowed(r, "GET");
    const std::shared_ptr<const Snapshot> snap = live.snapshot();
    if (!snap->dcgm_records || live.dcgm_writer() == nullptr)
      return ErrorReply(404, "the twin's dcgm-exporter series are off (serve --dcgm-interval)");
    HttpReply reply;
    reply.content_type = kPrometheusContentType;
    if (snap->dcgm_text) {
      // 54 MB at 10,240 GPUs: rendered once per exporter refresh, whoever scrapes.
      reply.shared_body = snap->dcgm_text->Get([&] {
        return telemetry::RenderDcgmExposition(*snap->dcgm_records, *live.dcgm_writer());
      });
      return reply;
    }
    // About 600 MB at 102,400 GPUs: written in pieces of 256 KB as it is rendered, from the
    // records of this snapshot (kept alive by the stream), so memory stays flat whatever the
    // size and the first bytes leave at once.
    reply.stream = [snap, writer = *live.dcgm_writer()](const http::StreamWriter& write) {
      telemetry::StreamDcgmExposition(*snap->dcgm_records, writer, size_t{256} << 10, write);
    };
    return reply;
  }
  if (r.path == "/healthz") {
    if (!get) return MethodNotAllowed(r, "GET");
    return HttpReply::Text(200, "ok\n");
  }
  if (const Asset* a = FindDashboardAsset(r.path == "/" ? "/index.html" : r.path)) {
    if (!get) return MethodNotAllowed(r, "GET");
    HttpReply reply;
    reply.content_type = std::string(a->content_type);
    reply.body = std::string(a->body);
    return reply;
  }
  return ErrorReply(404, "not found: " + r.path);
}

}  // namespace steward::server

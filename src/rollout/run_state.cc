#include "rollout/run_state.h"

#include <fmt/format.h>

#include <algorithm>

namespace steward::rollout {
namespace {

using nlohmann::json;

constexpr std::pair<NodeState, std::string_view> kNodeStates[] = {
    {NodeState::kUntouched, ""},
    {NodeState::kUpgradeRequired, "upgrade-required"},
    {NodeState::kCordonRequired, "cordon-required"},
    {NodeState::kWaitForJobsRequired, "wait-for-jobs-required"},
    {NodeState::kPodDeletionRequired, "pod-deletion-required"},
    {NodeState::kDrainRequired, "drain-required"},
    {NodeState::kPodRestartRequired, "pod-restart-required"},
    {NodeState::kValidationRequired, "validation-required"},
    {NodeState::kUncordonRequired, "uncordon-required"},
    {NodeState::kUpgradeDone, "upgrade-done"},
    {NodeState::kUpgradeFailed, "upgrade-failed"}};

constexpr std::pair<BatchState, std::string_view> kBatchStates[] = {
    {BatchState::kPending, "pending"},   {BatchState::kCanary, "canary"},
    {BatchState::kPromote, "promote"},   {BatchState::kSoak, "soak"},
    {BatchState::kGate, "gate"},         {BatchState::kDone, "done"},
    {BatchState::kPaused, "paused"},     {BatchState::kAbort, "abort"},
    {BatchState::kRollback, "rollback"}, {BatchState::kRolledBack, "rolled-back"}};

constexpr std::pair<RolloutState, std::string_view> kRolloutStates[] = {
    {RolloutState::kRunning, "running"},
    {RolloutState::kPaused, "paused"},
    {RolloutState::kSucceeded, "succeeded"},
    {RolloutState::kRolledBack, "rolled_back"},
    {RolloutState::kFailed, "failed"}};

template <typename E, size_t N>
std::string_view NameOf(const std::pair<E, std::string_view> (&table)[N], E e) {
  for (const auto& [k, name] : table)
    if (k == e) return name;
  return "?";
}
template <typename E, size_t N>
std::optional<E> Parse(const std::pair<E, std::string_view> (&table)[N], std::string_view name) {
  for (const auto& [k, n] : table)
    if (n == name) return k;
  return std::nullopt;
}

int64_t Micros(SimTime t) { return t.is_never() ? -1 : t.micros(); }
SimTime At(const json& j) {
  const int64_t us = j.get<int64_t>();
  return us < 0 ? SimTime::Never() : SimTime::FromMicros(us);
}

}  // namespace

std::string_view NodeStateName(NodeState s) { return NameOf(kNodeStates, s); }
std::optional<NodeState> ParseNodeState(std::string_view n) { return Parse(kNodeStates, n); }
bool InProgress(NodeState s) {
  return s != NodeState::kUntouched && s != NodeState::kUpgradeRequired &&
         s != NodeState::kUpgradeDone && s != NodeState::kUpgradeFailed;
}
std::string_view BatchStateName(BatchState s) { return NameOf(kBatchStates, s); }
std::optional<BatchState> ParseBatchState(std::string_view n) { return Parse(kBatchStates, n); }
std::string_view RolloutStateName(RolloutState s) { return NameOf(kRolloutStates, s); }
std::optional<RolloutState> ParseRolloutState(std::string_view n) {
  return Parse(kRolloutStates, n);
}

NodeRun* RolloutRun::FindNode(std::string_view name) {
  auto it = std::lower_bound(nodes.begin(), nodes.end(), name,
                             [](const NodeRun& n, std::string_view k) { return n.name < k; });
  return it != nodes.end() && it->name == name ? &*it : nullptr;
}

json ToJson(const RolloutRun& r) {
  json batches = json::array();
  for (const BatchRun& b : r.batches) {
    json gates = json::array();
    for (const GateRun& g : b.gates) {
      json ms = json::array();
      for (const Measurement& m : g.measurements)
        ms.push_back({{"at_us", Micros(m.at)},
                      {"value", m.value ? json(*m.value) : json(nullptr)},
                      {"verdict", VerdictName(m.verdict)},
                      {"why", m.why}});
      gates.push_back({{"name", g.name},
                       {"metric", g.metric},
                       {"success_condition", g.success_condition},
                       {"failure_condition", g.failure_condition},
                       {"verdict", VerdictName(g.verdict)},
                       {"value", g.measurements.empty() || !g.measurements.back().value
                                     ? json(nullptr)
                                     : json(*g.measurements.back().value)},
                       {"next_at_us", Micros(g.next_at)},
                       {"tally",
                        {{"measurements", g.tally.measurements},
                         {"successful", g.tally.successful},
                         {"failed", g.tally.failed},
                         {"inconclusive", g.tally.inconclusive},
                         {"errors", g.tally.errors},
                         {"consecutive_errors", g.tally.consecutive_errors}}},
                       {"measurements", ms}});
    }
    batches.push_back({{"name", b.name},
                       {"nodes", b.nodes},
                       {"state", BatchStateName(b.state)},
                       {"started_us", Micros(b.started)},
                       {"upgraded_us", Micros(b.upgraded)},
                       {"soak_until_us", Micros(b.soak_until)},
                       {"gates", gates}});
  }
  json nodes = json::array();
  for (const NodeRun& n : r.nodes)
    nodes.push_back({{"name", n.name},
                     {"batch", n.batch},
                     {"state", NodeStateName(n.state)},
                     {"since_us", Micros(n.since)},
                     {"from_version", n.from_version},
                     {"want_version", n.want_version},
                     {"was_unschedulable", n.was_unschedulable},
                     {"cordoned_by_us", n.cordoned_by_us},
                     {"on_target", n.on_target},
                     {"upgrades", n.upgrades},
                     {"rollbacks", n.rollbacks}});
  return {{"plan", r.plan_name},
          {"plan_file", r.plan_file},
          {"plan_commit", r.plan_commit},
          {"component", r.component},
          {"version", r.version},
          {"previous_version", r.previous_version},
          {"version_label", r.version_label},
          {"state_label", r.state_label},
          {"state", RolloutStateName(r.state)},
          {"reason", r.reason},
          {"rolling_back", r.rolling_back},
          {"current_batch", r.current_batch},
          {"batches", batches},
          {"nodes", nodes},
          {"nodes_upgraded", r.nodes_upgraded},
          {"nodes_rolled_back", r.nodes_rolled_back},
          {"max_unavailable", r.max_unavailable},
          {"max_unavailable_seen", r.max_unavailable_seen},
          {"decisions", r.decisions},
          {"updated_us", Micros(r.updated)}};
}

Result<RolloutRun> RunFromJson(const json& j) {
  try {
    RolloutRun r;
    r.plan_name = j.at("plan");
    r.plan_file = j.at("plan_file");
    r.plan_commit = j.at("plan_commit");
    r.component = j.at("component");
    r.version = j.at("version");
    r.previous_version = j.at("previous_version");
    r.version_label = j.at("version_label");
    r.state_label = j.at("state_label");
    r.state = ParseRolloutState(j.at("state").get<std::string>()).value();
    r.reason = j.at("reason");
    r.rolling_back = j.at("rolling_back");
    r.current_batch = j.at("current_batch");
    for (const json& b : j.at("batches")) {
      BatchRun br;
      br.name = b.at("name");
      br.nodes = b.at("nodes").get<std::vector<std::string>>();
      br.state = ParseBatchState(b.at("state").get<std::string>()).value();
      br.started = At(b.at("started_us"));
      br.upgraded = At(b.at("upgraded_us"));
      br.soak_until = At(b.at("soak_until_us"));
      for (const json& g : b.at("gates")) {
        GateRun gr;
        gr.name = g.at("name");
        gr.metric = g.at("metric");
        gr.success_condition = g.at("success_condition");
        gr.failure_condition = g.at("failure_condition");
        gr.verdict = ParseVerdict(g.at("verdict").get<std::string>()).value();
        gr.next_at = At(g.at("next_at_us"));
        const json& t = g.at("tally");
        gr.tally.measurements = t.at("measurements");
        gr.tally.successful = t.at("successful");
        gr.tally.failed = t.at("failed");
        gr.tally.inconclusive = t.at("inconclusive");
        gr.tally.errors = t.at("errors");
        gr.tally.consecutive_errors = t.at("consecutive_errors");
        for (const json& m : g.at("measurements")) {
          Measurement mm;
          mm.at = At(m.at("at_us"));
          if (!m.at("value").is_null()) mm.value = m.at("value").get<double>();
          mm.verdict = ParseVerdict(m.at("verdict").get<std::string>()).value();
          mm.why = m.at("why");
          gr.measurements.push_back(std::move(mm));
        }
        br.gates.push_back(std::move(gr));
      }
      r.batches.push_back(std::move(br));
    }
    for (const json& n : j.at("nodes")) {
      NodeRun nr;
      nr.name = n.at("name");
      nr.batch = n.at("batch");
      nr.state = ParseNodeState(n.at("state").get<std::string>()).value();
      nr.since = At(n.at("since_us"));
      nr.from_version = n.at("from_version");
      nr.want_version = n.at("want_version");
      nr.was_unschedulable = n.at("was_unschedulable");
      nr.cordoned_by_us = n.at("cordoned_by_us");
      nr.on_target = n.at("on_target");
      nr.upgrades = n.at("upgrades");
      nr.rollbacks = n.at("rollbacks");
      r.nodes.push_back(std::move(nr));
    }
    r.nodes_upgraded = j.at("nodes_upgraded");
    r.nodes_rolled_back = j.at("nodes_rolled_back");
    r.max_unavailable = j.at("max_unavailable");
    r.max_unavailable_seen = j.at("max_unavailable_seen");
    r.decisions = j.at("decisions");
    r.updated = At(j.at("updated_us"));
    return r;
  } catch (const std::exception& e) {
    return Status::Corrupt(fmt::format("rollout state: {}", e.what()));
  }
}

}  // namespace steward::rollout

#include "rollout/scenario_rollouts.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

namespace steward::rollout {
namespace {

// "result <= 0.5": the shortest form of the threshold, so the conditions read as written.
std::string Condition(std::string_view op, double threshold) {
  return fmt::format("result {} {}", op, threshold);
}

GateSpec Gate(std::string name, std::string metric, std::string success, std::string failure) {
  GateSpec g;
  g.name = std::move(name);
  g.metric = std::move(metric);
  g.success_condition = std::move(success);
  g.failure_condition = std::move(failure);
  return g;
}

// gated.plan: the plan file's batches, budgets and gates, on the entry's batch of nodes (the
// plan's selector narrows it further). The plan must roll out the entry's driver version: the
// twin's bad-version model (XIDs, missing GPUs) belongs to the entry.
Result<RolloutPlan> PlanFromFile(const twin::Scenario& scenario, const model::Cluster& cluster,
                                 size_t index, const std::vector<std::string>& batch) {
  const twin::DriverRolloutSpec& ro = scenario.faults.driver_rollouts[index];
  const std::string field = fmt::format("faults.driver_rollouts[{}].gated.plan", index);
  const auto error = [&](const std::string& why) {
    return MakeInputError(scenario.source, ro.gated.plan_line, 0, field, why);
  };
  Result<RolloutPlan> loaded = LoadPlan(ro.gated.plan.string());
  if (!loaded.ok()) return error(loaded.status().message());
  RolloutPlan plan = std::move(loaded).value();
  if (plan.component != Component::kDriver)
    return error(fmt::format("{} rolls out {}; a driver_rollouts entry takes a driver plan",
                             plan.file, ComponentName(plan.component)));
  if (plan.version != ro.driver_version)
    return error(fmt::format("{} rolls out driver {}; the entry's driver_version is {}", plan.file,
                             plan.version, ro.driver_version));
  bool any = false;
  for (const std::string& name : batch) {
    const model::Node& n = cluster.node(cluster.FindNode(name));
    bool match = true;
    for (const auto& [k, v] : plan.selector) {
      auto it = n.labels.find(k);
      match = match && it != n.labels.end() && it->second == v;
    }
    any = any || match;
  }
  if (!any)
    return error(fmt::format("no node of the entry's batch ({} .. {}) has {}'s selector labels",
                             batch.front(), batch.back(), plan.file));
  plan.nodes = batch;
  return plan;
}

}  // namespace

Result<RolloutPlan> PlanForDriverRollout(const twin::Scenario& scenario,
                                         const model::Cluster& cluster, size_t index) {
  const twin::DriverRolloutSpec& ro = scenario.faults.driver_rollouts.at(index);
  const twin::GatedRolloutSpec& g = ro.gated;
  const std::string field = fmt::format("faults.driver_rollouts[{}]", index);
  const int pool = cluster.FindPool(ro.pool);
  std::vector<std::string> members;
  for (const model::Node& n : cluster.nodes())
    if (pool >= 0 && n.pool == pool) members.push_back(n.name);
  const int count = ro.nodes < 0 ? static_cast<int>(members.size()) - ro.first_node : ro.nodes;
  if (pool < 0 || count < 1 || ro.first_node + count > static_cast<int>(members.size()))
    return MakeInputError(
        scenario.source, ro.line, 0, field,
        fmt::format("pool '{}' has {} nodes; the batch is nodes [{}, {})", ro.pool, members.size(),
                    ro.first_node, ro.first_node + count));
  const std::vector<std::string> batch(members.begin() + ro.first_node,
                                       members.begin() + ro.first_node + count);
  if (!g.plan.empty()) return PlanFromFile(scenario, cluster, index, batch);
  RolloutPlan plan;
  plan.file = fmt::format("{}: {}", scenario.source, field);
  plan.name = fmt::format("{}-driver-{}", ro.pool, ro.driver_version);
  // Two entries for one version stay apart by their index.
  for (size_t i = 0; i < index; ++i) {
    const twin::DriverRolloutSpec& other = scenario.faults.driver_rollouts[i];
    if (other.gated.enabled && other.pool == ro.pool && other.driver_version == ro.driver_version)
      plan.name += fmt::format("-{}", index);
  }
  plan.component = Component::kDriver;
  plan.version = ro.driver_version;
  plan.nodes = batch;
  plan.max_parallel = g.max_parallel;
  plan.soak = SecondsF(g.soak_hours * 3600);
  BatchSpec canary;
  canary.name = "canary";
  canary.nodes.assign(plan.nodes.begin(),
                      plan.nodes.begin() + std::min<size_t>(g.canary_nodes, plan.nodes.size()));
  plan.batches.push_back(std::move(canary));
  if (static_cast<size_t>(g.canary_nodes) < plan.nodes.size()) {
    BatchSpec rest;
    rest.name = "rest";
    rest.rest = true;
    plan.batches.push_back(std::move(rest));
  }
  // Complementary conditions: never inconclusive, since no human answers a pause in the twin.
  plan.gates.push_back(Gate("xids", "xid_rate_delta", Condition("<=", g.max_xid_rate_delta),
                            Condition(">", g.max_xid_rate_delta)));
  plan.gates.push_back(Gate("gpus", "schedulable_gpus", Condition(">=", g.min_schedulable_gpus),
                            Condition("<", g.min_schedulable_gpus)));
  plan.gates.push_back(Gate("jobs", "job_failure_rate", Condition("<=", g.max_job_failure_rate),
                            Condition(">", g.max_job_failure_rate)));
  return plan;
}

Result<std::vector<TwinRollout*>> AttachScenarioRollouts(twin::Twin& twin) {
  std::vector<TwinRollout*> out;
  const twin::Scenario& s = twin.scenario();
  for (size_t i = 0; i < s.faults.driver_rollouts.size(); ++i) {
    const twin::DriverRolloutSpec& ro = s.faults.driver_rollouts[i];
    if (!ro.gated.enabled) continue;
    STEWARD_ASSIGN_OR_RETURN(RolloutPlan plan, PlanForDriverRollout(s, twin.cluster(), i));
    // Decisions record the plan's commit: the scenario is not a plan file in Git.
    auto r = std::make_unique<TwinRollout>(std::move(plan), "none", nullptr);
    r->set_start(kSimStart + SecondsF(ro.at_hours * 3600));
    if (ro.gated.human)
      r->set_human(
          ro.gated.human->resume ? RolloutEngine::Answer::kResume : RolloutEngine::Answer::kAbort,
          SecondsF(ro.gated.human->after_hours * 3600));
    STEWARD_ASSIGN_OR_RETURN(twin::TwinController * c, twin.AddController(std::move(r)));
    out.push_back(static_cast<TwinRollout*>(c));
  }
  return out;
}

}  // namespace steward::rollout

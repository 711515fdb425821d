#include "rollout/plan.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "model/yaml_checked.h"
#include "rollout/gate.h"

namespace steward::rollout {
namespace {

constexpr std::pair<Component, std::string_view> kComponents[] = {
    {Component::kDriver, "driver"},
    {Component::kToolkit, "toolkit"},
    {Component::kDevicePlugin, "device-plugin"},
    {Component::kDcgmExporter, "dcgm-exporter"},
    {Component::kMigConfig, "mig-config"}};

constexpr std::string_view kMetrics[] = {"schedulable_gpus", "xid_rate_delta", "job_failure_rate",
                                         "validator_pass_rate"};

// Errors name the file, the line and the field.
struct Reader {
  const std::string& file;
  Status Error(const YAML::Node& n, std::string_view field, std::string_view why) const {
    const int line = n.IsDefined() && n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
    return MakeInputError(file, line, 0, field, why);
  }
  Status Keys(const YAML::Node& n, std::string_view path,
              std::initializer_list<std::string_view> allowed) const {
    if (!n.IsMap()) return Error(n, path, "must be a mapping");
    for (const auto& kv : n) {
      const std::string key = kv.first.as<std::string>();
      bool ok = false;
      for (std::string_view a : allowed) ok = ok || a == key;
      if (!ok)
        return Error(kv.first, path.empty() ? key : fmt::format("{}.{}", path, key),
                     "unknown field");
    }
    return Status::Ok();
  }
  template <typename T>
  Status Get(const YAML::Node& parent, const char* key, const std::string& path, T* out) const {
    const YAML::Node n = parent[key];
    if (!n) return Status::Ok();
    try {
      *out = n.as<T>();
    } catch (const YAML::Exception&) {
      return Error(n, path, "has the wrong type");
    }
    return Status::Ok();
  }
  Status Duration(const YAML::Node& parent, const char* key, const std::string& path,
                  SimDuration* out) const {
    const YAML::Node n = parent[key];
    if (!n) return Status::Ok();
    Result<SimDuration> d = ParsePlanDuration(n.as<std::string>());
    if (!d.ok()) return Error(n, path, d.status().message());
    *out = *d;
    return Status::Ok();
  }
};

Status ParseBatch(const Reader& r, const YAML::Node& n, const std::string& path, BatchSpec* b) {
  STEWARD_RETURN_IF_ERROR(
      r.Keys(n, path, {"name", "nodes", "size", "percent", "rack", "pool", "rest", "soak"}));
  b->line = n.Mark().line + 1;
  STEWARD_RETURN_IF_ERROR(r.Get(n, "name", path + ".name", &b->name));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "nodes", path + ".nodes", &b->nodes));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "size", path + ".size", &b->size));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "percent", path + ".percent", &b->percent));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "rack", path + ".rack", &b->rack));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "pool", path + ".pool", &b->pool));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "rest", path + ".rest", &b->rest));
  if (n["soak"]) {
    SimDuration soak;
    STEWARD_RETURN_IF_ERROR(r.Duration(n, "soak", path + ".soak", &soak));
    b->soak = soak;
  }
  const int ways = !b->nodes.empty() + (b->size != 0) + (b->percent != 0) + !b->rack.empty() +
                   !b->pool.empty() + b->rest;
  if (ways != 1)
    return r.Error(n, path, "needs exactly one of nodes, size, percent, rack, pool, rest");
  if (n["size"] && b->size < 1) return r.Error(n["size"], path + ".size", "must be >= 1");
  if (n["percent"] && !(b->percent > 0 && b->percent <= 100))
    return r.Error(n["percent"], path + ".percent", "must be in (0, 100]");
  if (b->name.empty()) b->name = path;
  return Status::Ok();
}

// Checked here so a typo fails validation, not a run.
Status CheckCondition(const Reader& r, const YAML::Node& n, const std::string& path,
                      const std::string& text) {
  Result<bool> probe = EvaluateCondition(text, 0.0);
  if (!probe.ok()) return r.Error(n, path, probe.status().message());
  return Status::Ok();
}

Status ParseGate(const Reader& r, const YAML::Node& n, const std::string& path, GateSpec* g) {
  STEWARD_RETURN_IF_ERROR(
      r.Keys(n, path,
             {"name", "metric", "successCondition", "failureCondition", "count", "interval",
              "failureLimit", "inconclusiveLimit", "consecutiveErrorLimit"}));
  g->line = n.Mark().line + 1;
  STEWARD_RETURN_IF_ERROR(r.Get(n, "name", path + ".name", &g->name));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "metric", path + ".metric", &g->metric));
  STEWARD_RETURN_IF_ERROR(
      r.Get(n, "successCondition", path + ".successCondition", &g->success_condition));
  STEWARD_RETURN_IF_ERROR(
      r.Get(n, "failureCondition", path + ".failureCondition", &g->failure_condition));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "count", path + ".count", &g->count));
  STEWARD_RETURN_IF_ERROR(r.Duration(n, "interval", path + ".interval", &g->interval));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "failureLimit", path + ".failureLimit", &g->failure_limit));
  STEWARD_RETURN_IF_ERROR(
      r.Get(n, "inconclusiveLimit", path + ".inconclusiveLimit", &g->inconclusive_limit));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "consecutiveErrorLimit", path + ".consecutiveErrorLimit",
                                &g->consecutive_error_limit));
  bool known = false;
  for (std::string_view m : kMetrics) known = known || m == g->metric;
  if (!known)
    return r.Error(n["metric"], path + ".metric",
                   fmt::format("'{}' is not one of schedulable_gpus, xid_rate_delta, "
                               "job_failure_rate, validator_pass_rate",
                               g->metric));
  if (g->success_condition.empty() && g->failure_condition.empty())
    return r.Error(n, path, "needs successCondition or failureCondition");
  if (!g->success_condition.empty())
    STEWARD_RETURN_IF_ERROR(
        CheckCondition(r, n["successCondition"], path + ".successCondition", g->success_condition));
  if (!g->failure_condition.empty())
    STEWARD_RETURN_IF_ERROR(
        CheckCondition(r, n["failureCondition"], path + ".failureCondition", g->failure_condition));
  if (g->count < 1) return r.Error(n["count"], path + ".count", "must be >= 1");
  if (g->failure_limit < 0 || g->inconclusive_limit < 0 || g->consecutive_error_limit < 0)
    return r.Error(n, path, "limits must be >= 0");
  if (g->interval.micros() <= 0)
    return r.Error(n["interval"], path + ".interval", "must be positive");
  if (g->name.empty()) g->name = g->metric;
  return Status::Ok();
}

}  // namespace

std::string_view ComponentName(Component c) {
  for (const auto& [k, name] : kComponents)
    if (k == c) return name;
  return "?";
}

std::string RolloutPlan::VersionLabel() const {
  switch (component) {
    case Component::kMigConfig:
      return kMigConfigLabel;
    case Component::kDriver:
      return "steward.io/gpu-driver-version";
    case Component::kToolkit:
      return "steward.io/container-toolkit-version";
    case Component::kDevicePlugin:
      return "steward.io/device-plugin-version";
    case Component::kDcgmExporter:
      return "steward.io/dcgm-exporter-version";
  }
  return "steward.io/version";
}

int RolloutPlan::MaxUnavailable(int target_nodes) const {
  if (max_unavailable > 0) return max_unavailable;
  return static_cast<int>(std::ceil(max_unavailable_percent * target_nodes / 100.0 - 1e-9));
}

Result<SimDuration> ParsePlanDuration(const std::string& text) {
  if (text.empty()) return Status::InvalidArgument("empty duration");
  double scale = 1;
  std::string number = text;
  switch (text.back()) {
    case 's':
      scale = 1;
      number.pop_back();
      break;
    case 'm':
      scale = 60;
      number.pop_back();
      break;
    case 'h':
      scale = 3600;
      number.pop_back();
      break;
    case 'd':
      scale = 86400;
      number.pop_back();
      break;
    default:
      break;
  }
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(number, &used);
  } catch (...) {
    used = 0;
  }
  if (used != number.size() || number.empty() || !(v >= 0))
    return Status::InvalidArgument(
        fmt::format("'{}' is not a duration (e.g. 90s, 15m, 2h, 1d)", text));
  return SecondsF(v * scale);
}

Result<RolloutPlan> ParsePlan(const std::string& yaml_text, const std::string& file) {
  STEWARD_ASSIGN_OR_RETURN(YAML::Node root, model::LoadYamlDocument(yaml_text, file, "yaml"));
  const Reader r{file};
  RolloutPlan p;
  p.file = file;
  STEWARD_RETURN_IF_ERROR(r.Keys(root, "",
                                 {"apiVersion",
                                  "kind",
                                  "name",
                                  "component",
                                  "version",
                                  "previousVersion",
                                  "scenario",
                                  "selector",
                                  "batches",
                                  "maxParallel",
                                  "maxUnavailable",
                                  "soak",
                                  "tick",
                                  "restartTime",
                                  "validationTimeout",
                                  "migPendingTimeout",
                                  "waitForJobsTimeout",
                                  "podDeletionTimeout",
                                  "drainTimeout",
                                  "checkpointGrace",
                                  "evictionGrace",
                                  "gates"}));
  if (root["kind"] && root["kind"].as<std::string>() != "Rollout")
    return r.Error(root["kind"], "kind", "must be Rollout");
  STEWARD_RETURN_IF_ERROR(r.Get(root, "name", "name", &p.name));
  std::string component;
  STEWARD_RETURN_IF_ERROR(r.Get(root, "component", "component", &component));
  bool found = false;
  for (const auto& [k, name] : kComponents)
    if (name == component) p.component = k, found = true;
  if (!found)
    return r.Error(root["component"], "component",
                   fmt::format("'{}' is not one of driver, toolkit, device-plugin, dcgm-exporter, "
                               "mig-config",
                               component));
  STEWARD_RETURN_IF_ERROR(r.Get(root, "version", "version", &p.version));
  if (p.version.empty()) return r.Error(root["version"], "version", "is required");
  STEWARD_RETURN_IF_ERROR(r.Get(root, "previousVersion", "previousVersion", &p.previous_version));
  if (p.previous_version == p.version)
    return r.Error(root["previousVersion"], "previousVersion", "equals version");
  STEWARD_RETURN_IF_ERROR(r.Get(root, "scenario", "scenario", &p.scenario));
  if (root["selector"]) {
    try {
      p.selector = root["selector"].as<std::map<std::string, std::string>>();
    } catch (const YAML::Exception&) {
      return r.Error(root["selector"], "selector", "must map label keys to values");
    }
  }
  STEWARD_RETURN_IF_ERROR(r.Get(root, "maxParallel", "maxParallel", &p.max_parallel));
  if (p.max_parallel < 0) return r.Error(root["maxParallel"], "maxParallel", "must be >= 0");
  if (const YAML::Node mu = root["maxUnavailable"]) {
    const std::string text = mu.as<std::string>();
    const bool percent = !text.empty() && text.back() == '%';
    size_t used = 0;
    double v = -1;
    try {
      v = std::stod(percent ? text.substr(0, text.size() - 1) : text, &used);
    } catch (...) {
    }
    if (v <= 0 || used + percent != text.size() || (percent && v > 100) ||
        (!percent && v != std::floor(v)))
      return r.Error(mu, "maxUnavailable", "must be a count >= 1 or a percentage in (0, 100]");
    if (percent)
      p.max_unavailable_percent = v;
    else
      p.max_unavailable = static_cast<int>(v);
  }
  STEWARD_RETURN_IF_ERROR(r.Duration(root, "soak", "soak", &p.soak));
  STEWARD_RETURN_IF_ERROR(r.Duration(root, "tick", "tick", &p.tick));
  if (p.tick.micros() <= 0) return r.Error(root["tick"], "tick", "must be positive");
  STEWARD_RETURN_IF_ERROR(r.Duration(root, "restartTime", "restartTime", &p.restart_time));
  STEWARD_RETURN_IF_ERROR(
      r.Duration(root, "validationTimeout", "validationTimeout", &p.validation_timeout));
  STEWARD_RETURN_IF_ERROR(
      r.Duration(root, "migPendingTimeout", "migPendingTimeout", &p.mig_pending_timeout));
  STEWARD_RETURN_IF_ERROR(
      r.Duration(root, "waitForJobsTimeout", "waitForJobsTimeout", &p.wait_for_jobs_timeout));
  STEWARD_RETURN_IF_ERROR(
      r.Duration(root, "podDeletionTimeout", "podDeletionTimeout", &p.pod_deletion_timeout));
  STEWARD_RETURN_IF_ERROR(r.Duration(root, "drainTimeout", "drainTimeout", &p.drain_timeout));
  STEWARD_RETURN_IF_ERROR(
      r.Duration(root, "checkpointGrace", "checkpointGrace", &p.checkpoint_grace));
  STEWARD_RETURN_IF_ERROR(r.Duration(root, "evictionGrace", "evictionGrace", &p.eviction_grace));

  const YAML::Node batches = root["batches"];
  if (!batches || !batches.IsSequence() || batches.size() == 0)
    return r.Error(batches ? batches : root, "batches", "must be a non-empty list");
  std::set<std::string> names;
  for (size_t i = 0; i < batches.size(); ++i) {
    BatchSpec b;
    STEWARD_RETURN_IF_ERROR(ParseBatch(r, batches[i], fmt::format("batches[{}]", i), &b));
    if (!names.insert(b.name).second)
      return r.Error(batches[i]["name"], fmt::format("batches[{}].name", i),
                     fmt::format("'{}' is used twice", b.name));
    p.batches.push_back(std::move(b));
  }
  if (const YAML::Node gates = root["gates"]) {
    if (!gates.IsSequence()) return r.Error(gates, "gates", "must be a list");
    for (size_t i = 0; i < gates.size(); ++i) {
      GateSpec g;
      STEWARD_RETURN_IF_ERROR(ParseGate(r, gates[i], fmt::format("gates[{}]", i), &g));
      p.gates.push_back(std::move(g));
    }
  }
  if (p.name.empty()) p.name = p.version;
  return p;
}

Result<RolloutPlan> LoadPlan(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(fmt::format("{}: cannot read the rollout plan", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParsePlan(ss.str(), path);
}

}  // namespace steward::rollout

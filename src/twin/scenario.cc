#include "twin/scenario.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "model/data_dir.h"
#include "model/text.h"
#include "model/yaml_checked.h"
#include "twin/scenario_reader.h"
#include "twin/scenario_sections.h"

namespace steward::twin {

using namespace scenario_yaml;  // NOLINT: the section readers of this one scenario format.

namespace {

Status ParseRoot(const Reader& r, const YAML::Node& root, Scenario* s) {
  STEWARD_RETURN_IF_ERROR(r.CheckKeys(
      root, "",
      {"name", "seed", "horizon_days", "sample_minutes", "cluster", "teams", "generators", "traces",
       "policies", "faults", "remediation", "reclaim", "tenancy", "tidal"}));
  STEWARD_RETURN_IF_ERROR(r.Get(root, "name", "", &s->name));
  STEWARD_RETURN_IF_ERROR(r.Get(root, "seed", "", &s->seed));
  STEWARD_RETURN_IF_ERROR(r.Get(root, "horizon_days", "", &s->horizon_days));
  STEWARD_RETURN_IF_ERROR(Positive(r, root["horizon_days"], "horizon_days", s->horizon_days));
  STEWARD_RETURN_IF_ERROR(r.Get(root, "sample_minutes", "", &s->sample_minutes));
  STEWARD_RETURN_IF_ERROR(Positive(r, root["sample_minutes"], "sample_minutes", s->sample_minutes));

  const YAML::Node cluster = root["cluster"];
  if (!cluster) return r.Error(root, "cluster", "is required");
  STEWARD_RETURN_IF_ERROR(ParseCluster(r, cluster, s));
  STEWARD_RETURN_IF_ERROR(ParseList(
      r, root, "teams", true, &s->teams,
      [](const Reader& r, const YAML::Node& n, const std::string& path, TeamSpec* t) {
        STEWARD_RETURN_IF_ERROR(r.CheckKeys(n, path, {"name", "namespace", "quota_gpus"}));
        STEWARD_RETURN_IF_ERROR(r.Get(n, "name", path, &t->name, true));
        STEWARD_RETURN_IF_ERROR(r.Get(n, "namespace", path, &t->namespace_name));
        STEWARD_RETURN_IF_ERROR(r.Get(n, "quota_gpus", path, &t->quota_gpus, true));
        STEWARD_RETURN_IF_ERROR(
            Positive(r, n["quota_gpus"], path + ".quota_gpus", t->quota_gpus, true));
        if (t->namespace_name.empty()) t->namespace_name = t->name;
        return Status::Ok();
      }));
  STEWARD_RETURN_IF_ERROR(ParseList(r, root, "generators", false, &s->generators, ParseGenerator));
  STEWARD_RETURN_IF_ERROR(
      ParseList(r, root, "traces", false, &s->traces,
                [](const Reader& r, const YAML::Node& n, const std::string& path, TraceSpec* t) {
                  STEWARD_RETURN_IF_ERROR(
                      r.CheckKeys(n, path, {"format", "path", "team", "queue", "time_scale"}));
                  std::string format = "steward", file;
                  STEWARD_RETURN_IF_ERROR(r.Get(n, "format", path, &format));
                  if (format == "steward")
                    t->format = TraceSpec::Format::kSteward;
                  else if (format == "alibaba")
                    t->format = TraceSpec::Format::kAlibaba;
                  else
                    return r.Error(n["format"], path + ".format", "must be 'steward' or 'alibaba'");
                  STEWARD_RETURN_IF_ERROR(r.Get(n, "path", path, &file, true));
                  t->path = model::ExpandDataPath(file);
                  STEWARD_RETURN_IF_ERROR(r.Get(n, "team", path, &t->team));
                  STEWARD_RETURN_IF_ERROR(r.Get(n, "queue", path, &t->queue));
                  STEWARD_RETURN_IF_ERROR(r.Get(n, "time_scale", path, &t->time_scale));
                  return Positive(r, n["time_scale"], path + ".time_scale", t->time_scale);
                }));
  if (YAML::Node p = root["policies"]) STEWARD_RETURN_IF_ERROR(ParsePolicies(r, p, &s->policies));
  if (YAML::Node f = root["faults"]) STEWARD_RETURN_IF_ERROR(ParseFaults(r, f, &s->faults));
  if (YAML::Node m = root["remediation"])
    STEWARD_RETURN_IF_ERROR(ParseRemediation(r, m, &s->remediation));
  if (YAML::Node m = root["reclaim"]) STEWARD_RETURN_IF_ERROR(ParseReclaim(r, m, &s->reclaim));
  if (YAML::Node t = root["tidal"]) STEWARD_RETURN_IF_ERROR(ParseTidal(r, t, &s->tidal));
  if (YAML::Node t = root["tenancy"]) {
    STEWARD_RETURN_IF_ERROR(r.CheckKeys(t, "tenancy", {"files", "tenant_label"}));
    s->tenancy.line = t.Mark().line + 1;
    const YAML::Node f = t["files"];
    if (!f || !f.IsSequence() || f.size() == 0)
      return r.Error(f ? f : t, "tenancy.files",
                     "must be a non-empty list of files or directories");
    for (size_t i = 0; i < f.size(); ++i) {
      std::string file;
      STEWARD_RETURN_IF_ERROR(r.Scalar(f[i], fmt::format("tenancy.files[{}]", i), &file));
      s->tenancy.files.push_back(file);
    }
    STEWARD_RETURN_IF_ERROR(r.Get(t, "tenant_label", "tenancy", &s->tenancy.tenant_label));
    if (s->tenancy.tenant_label.empty())
      return r.Error(t["tenant_label"], "tenancy.tenant_label", "must not be empty");
  }
  return Status::Ok();
}

}  // namespace

int Scenario::FindTeam(std::string_view name) const {
  for (size_t i = 0; i < teams.size(); ++i)
    if (teams[i].name == name) return static_cast<int>(i);
  return -1;
}

Result<Scenario> ParseScenario(std::string_view yaml_text, std::string_view source) {
  Reader r(source);
  STEWARD_ASSIGN_OR_RETURN(YAML::Node root, model::LoadYamlDocument(yaml_text, source));
  if (!root || root.IsNull()) return MakeInputError(source, 0, 0, "", "empty scenario");
  STEWARD_RETURN_IF_ERROR(model::CheckYamlDuplicateKeys(root, source));
  Scenario s;
  s.source = std::string(source);
  try {
    STEWARD_RETURN_IF_ERROR(ParseRoot(r, root, &s));
    STEWARD_RETURN_IF_ERROR(Validate(r, root, s));
    STEWARD_RETURN_IF_ERROR(ValidateTidal(r, root, &s));
  } catch (const YAML::Exception& e) {
    // Reading a scalar as a map and similar shape errors.
    return MakeInputError(source, e.mark.line + 1, e.mark.column + 1, "", e.msg);
  }
  // Relative trace paths are relative to the scenario file ($STEWARD_DATA/... paths were
  // expanded when read).
  const std::filesystem::path base = std::filesystem::path(source).parent_path();
  for (auto& t : s.traces)
    if (t.path.is_relative() && source != "<default>") t.path = base / t.path;
  for (auto& g : s.policies.governance)
    if (g.is_relative() && source != "<default>") g = base / g;
  for (auto& f : s.tenancy.files)
    if (f.is_relative() && source != "<default>") f = base / f;
  if (!s.alibaba_nodes.empty() && s.alibaba_nodes.is_relative() && source != "<default>")
    s.alibaba_nodes = base / s.alibaba_nodes;
  for (auto& ro : s.faults.driver_rollouts)
    if (!ro.gated.plan.empty() && ro.gated.plan.is_relative() && source != "<default>")
      ro.gated.plan = base / ro.gated.plan;
  for (auto& g : s.generators) {
    std::filesystem::path& csv = g.serving.traffic.csv;
    if (!csv.empty() && csv.is_relative() && source != "<default>") csv = base / csv;
  }
  STEWARD_RETURN_IF_ERROR(LoadTrafficCsvs(&s));
  return s;
}

Result<Scenario> LoadScenario(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(fmt::format("{}: cannot open scenario file", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseScenario(ss.str(), path.string());
}

Scenario DefaultScenario() {
  Result<Scenario> s = ParseScenario(DefaultScenarioYaml(), "<default>");
  STEWARD_CHECK(s.ok());
  return std::move(s).value();
}

}  // namespace steward::twin

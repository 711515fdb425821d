#include "operate/tidal_config.h"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>

#include "model/text.h"
#include "model/yaml_checked.h"
#include "tidal/twin_tidal.h"
#include "twin/tidal_yaml.h"

namespace steward::operate {
namespace {

using twin::scenario_yaml::Reader;

Status ParseService(const Reader& r, const YAML::Node& n, const std::string& path, LiveService* s) {
  STEWARD_RETURN_IF_ERROR(
      r.CheckKeys(n, path,
                  {"name", "query", "replicas_query", "capacity_per_replica", "gpus_per_replica",
                   "min_replicas", "max_replicas", "autoscaler"}));
  s->line = n.Mark().line + 1;
  STEWARD_RETURN_IF_ERROR(r.Get(n, "name", path, &s->name, true));
  const size_t slash = s->name.find('/');
  if (slash == 0 || slash == std::string::npos || slash + 1 == s->name.size() ||
      s->name.find('/', slash + 1) != std::string::npos)
    return r.Error(n["name"], path + ".name", "must be NAMESPACE/NAME (the HPA's Deployment)");
  STEWARD_RETURN_IF_ERROR(r.Get(n, "query", path, &s->query, true));
  if (s->query.empty()) return r.Error(n["query"], path + ".query", "must not be empty");
  STEWARD_RETURN_IF_ERROR(r.Get(n, "replicas_query", path, &s->replicas_query));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "capacity_per_replica", path, &s->capacity_per_replica, true));
  STEWARD_RETURN_IF_ERROR(twin::scenario_yaml::Positive(
      r, n["capacity_per_replica"], path + ".capacity_per_replica", s->capacity_per_replica));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "gpus_per_replica", path, &s->gpus_per_replica));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "min_replicas", path, &s->min_replicas));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "max_replicas", path, &s->max_replicas, true));
  if (s->gpus_per_replica < 1)
    return r.Error(n["gpus_per_replica"], path + ".gpus_per_replica", "must be >= 1");
  if (s->min_replicas < 0)
    return r.Error(n["min_replicas"], path + ".min_replicas", "must be >= 0");
  if (s->max_replicas < std::max(1, s->min_replicas))
    return r.Error(n["max_replicas"], path + ".max_replicas", "must be >= 1 and >= min_replicas");
  if (YAML::Node a = n["autoscaler"])
    STEWARD_RETURN_IF_ERROR(
        twin::scenario_yaml::ParseAutoscaler(r, a, path + ".autoscaler", &s->autoscaler));
  return Status::Ok();
}

Status ParseRoot(const Reader& r, const YAML::Node& root, LiveTidalConfig* c) {
  STEWARD_RETURN_IF_ERROR(r.CheckKeys(
      root, "",
      {"tidal", "static_split", "services", "prime_from_history", "reclaim_after_hold_minutes"}));
  const YAML::Node t = root["tidal"];
  if (!t) return r.Error(root, "tidal", "is required");
  twin::TidalSpec spec;
  STEWARD_RETURN_IF_ERROR(twin::scenario_yaml::ParseTidal(r, t, &spec));
  // A live cluster has no traffic generators to name the serving queue.
  if (spec.lend_from.empty()) return r.Error(t, "tidal.lend_from", "is required");
  if (spec.lend_from == spec.lend_to)
    return r.Error(t["lend_to"], "tidal.lend_to", "must differ from lend_from");
  c->enabled = spec.enabled;
  c->options = tidal::OptionsFrom(spec, /*default_restart_seconds=*/90);
  if (c->options.borrower_namespace.empty()) c->options.borrower_namespace = spec.lend_to;

  const YAML::Node split = root["static_split"];
  if (!split)
    return r.Error(root, "static_split",
                   "is required: the GPU quotas of lend_from and lend_to without lending, what "
                   "the controller returns to");
  STEWARD_RETURN_IF_ERROR(r.CheckKeys(split, "static_split", {"lend_from_gpus", "lend_to_gpus"}));
  int from = 0, to = 0;
  STEWARD_RETURN_IF_ERROR(r.Get(split, "lend_from_gpus", "static_split", &from, true));
  STEWARD_RETURN_IF_ERROR(r.Get(split, "lend_to_gpus", "static_split", &to, true));
  if (from < 0)
    return r.Error(split["lend_from_gpus"], "static_split.lend_from_gpus", "must be >= 0");
  if (to < 0) return r.Error(split["lend_to_gpus"], "static_split.lend_to_gpus", "must be >= 0");
  c->options.serving_quota = from;
  c->options.borrower_quota = to;
  STEWARD_RETURN_IF_ERROR(r.Get(root, "prime_from_history", "", &c->prime_from_history));
  double hold_minutes = 0;
  STEWARD_RETURN_IF_ERROR(r.Get(root, "reclaim_after_hold_minutes", "", &hold_minutes));
  if (!(hold_minutes >= 0) || hold_minutes > 7 * 24 * 60)
    return r.Error(root["reclaim_after_hold_minutes"], "reclaim_after_hold_minutes",
                   "must lie in [0, 10080] (0: a hold keeps the loan)");
  c->reclaim_after_hold = SecondsF(hold_minutes * 60);

  const YAML::Node services = root["services"];
  if (!services || !services.IsSequence() || services.size() == 0)
    return r.Error(services ? services : root, "services",
                   "is required: a list of the serving queue's autoscaled services");
  std::set<std::string> names;
  for (size_t i = 0; i < services.size(); ++i) {
    const std::string path = fmt::format("services[{}]", i);
    LiveService s;
    STEWARD_RETURN_IF_ERROR(ParseService(r, services[i], path, &s));
    if (!names.insert(s.name).second)
      return r.Error(services[i]["name"], path + ".name", fmt::format("'{}' twice", s.name));
    c->services.push_back(std::move(s));
  }
  return Status::Ok();
}

}  // namespace

Result<LiveTidalConfig> ParseTidalConfig(std::string_view yaml_text, std::string_view source) {
  Reader r(source);
  STEWARD_ASSIGN_OR_RETURN(YAML::Node root, model::LoadYamlDocument(yaml_text, source));
  if (!root || !root.IsMap())
    return MakeInputError(source, 0, 0, "", "expected a map with tidal, static_split, services");
  STEWARD_RETURN_IF_ERROR(model::CheckYamlDuplicateKeys(root, source));
  LiveTidalConfig c;
  c.source = std::string(source);
  try {
    STEWARD_RETURN_IF_ERROR(ParseRoot(r, root, &c));
  } catch (const YAML::Exception& e) {
    return MakeInputError(source, e.mark.line + 1, e.mark.column + 1, "", e.msg);
  }
  return c;
}

Result<LiveTidalConfig> LoadTidalConfig(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::IoError(fmt::format("{}: cannot open the tidal configuration", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseTidalConfig(ss.str(), path.string());
}

}  // namespace steward::operate

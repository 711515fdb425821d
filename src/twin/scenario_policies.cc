// A scenario's policies section: admission, placement, placement pools, defragmentation.
#include <fmt/format.h>

#include <algorithm>

#include "place/policy_registry.h"
#include "twin/scenario_sections.h"

namespace steward::twin::scenario_yaml {
namespace {

Status CheckPlacementName(const Reader& r, const YAML::Node& at, const std::string& field,
                          const std::string& name) {
  Result<std::unique_ptr<place::PlacementPolicy>> p = place::NewPolicy(name);
  return p.ok() ? Status::Ok() : r.Error(at, field, p.status().message());
}

Status ParsePlacementPool(const Reader& r, const YAML::Node& n, const std::string& path,
                          PlacementPoolSpec* p) {
  STEWARD_RETURN_IF_ERROR(
      r.CheckKeys(n, path, {"name", "hardware_pool", "nodes", "placement", "accepts"}));
  p->line = n.Mark().line + 1;
  p->column = n.Mark().column + 1;
  STEWARD_RETURN_IF_ERROR(r.Get(n, "name", path, &p->name, true));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "hardware_pool", path, &p->hardware_pool));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "nodes", path, &p->nodes));
  if (n["nodes"]) STEWARD_RETURN_IF_ERROR(Positive(r, n["nodes"], path + ".nodes", p->nodes));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "placement", path, &p->placement));
  if (n["placement"])
    STEWARD_RETURN_IF_ERROR(
        CheckPlacementName(r, n["placement"], path + ".placement", p->placement));
  if (YAML::Node a = n["accepts"]) {
    const std::string ap = path + ".accepts";
    STEWARD_RETURN_IF_ERROR(r.CheckKeys(
        a, ap, {"kinds", "min_gpus_per_pod", "max_gpus_per_pod", "shared", "min_pods"}));
    if (YAML::Node k = a["kinds"])
      STEWARD_RETURN_IF_ERROR(ParseKinds(r, k, ap + ".kinds", &p->kinds));
    STEWARD_RETURN_IF_ERROR(r.Get(a, "min_gpus_per_pod", ap, &p->min_gpus_per_pod));
    STEWARD_RETURN_IF_ERROR(r.Get(a, "max_gpus_per_pod", ap, &p->max_gpus_per_pod));
    STEWARD_RETURN_IF_ERROR(r.Get(a, "shared", ap, &p->shared));
    STEWARD_RETURN_IF_ERROR(r.Get(a, "min_pods", ap, &p->min_pods));
    if (p->min_gpus_per_pod < 1 || p->max_gpus_per_pod < p->min_gpus_per_pod)
      return r.Error(a, ap, "needs 1 <= min_gpus_per_pod <= max_gpus_per_pod");
    if (p->min_pods < 1) return r.Error(a["min_pods"], ap + ".min_pods", "must be >= 1");
  }
  return Status::Ok();
}

Status ParseDefrag(const Reader& r, const YAML::Node& n, const std::string& path, DefragSpec* d) {
  STEWARD_RETURN_IF_ERROR(r.CheckKeys(n, path,
                                      {"enabled", "max_victims_per_cycle", "max_victims_per_hour",
                                       "victim_tiers", "checkpointed_training"}));
  d->enabled = true;  // Writing the section turns it on unless it says otherwise.
  STEWARD_RETURN_IF_ERROR(r.Get(n, "enabled", path, &d->enabled));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "max_victims_per_cycle", path, &d->max_victims_per_cycle));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "max_victims_per_hour", path, &d->max_victims_per_hour));
  STEWARD_RETURN_IF_ERROR(Positive(r, n["max_victims_per_cycle"], path + ".max_victims_per_cycle",
                                   d->max_victims_per_cycle));
  STEWARD_RETURN_IF_ERROR(Positive(r, n["max_victims_per_hour"], path + ".max_victims_per_hour",
                                   d->max_victims_per_hour));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "checkpointed_training", path, &d->checkpointed_training));
  if (YAML::Node t = n["victim_tiers"]) {
    if (!t.IsSequence()) return r.Error(t, path + ".victim_tiers", "must be a list of tiers");
    d->victim_tiers.clear();
    for (size_t i = 0; i < t.size(); ++i) {
      const std::string field = fmt::format("{}.victim_tiers[{}]", path, i);
      std::string text;
      STEWARD_RETURN_IF_ERROR(r.Scalar(t[i], field, &text));
      model::Tier tier;
      if (!model::ParseTier(text, &tier) || tier == model::Tier::kProduction)
        return r.Error(t[i], field,
                       fmt::format("'{}' cannot be a defrag victim tier (training, dev)", text));
      d->victim_tiers.push_back(tier);
    }
  }
  return Status::Ok();
}

}  // namespace

Status ParsePolicies(const Reader& r, const YAML::Node& p, PolicySpec* out) {
  STEWARD_RETURN_IF_ERROR(
      r.CheckKeys(p, "policies",
                  {"admission", "placement", "startup_seconds", "governance", "victim_ordering",
                   "alert_tenant_share", "pools", "defrag", "serving_admission"}));
  if (YAML::Node sa = p["serving_admission"]) {
    std::string v;
    STEWARD_RETURN_IF_ERROR(r.Scalar(sa, "policies.serving_admission", &v));
    if (v != "peak" && v != "per-replica")
      return r.Error(sa, "policies.serving_admission", "must be 'peak' or 'per-replica'");
    out->serving_per_replica = v == "per-replica";
  }
  STEWARD_RETURN_IF_ERROR(r.Get(p, "alert_tenant_share", "policies", &out->alert_tenant_share));
  if (out->alert_tenant_share <= 0 || out->alert_tenant_share > 1)
    return r.Error(p["alert_tenant_share"], "policies.alert_tenant_share", "must lie in (0, 1]");
  STEWARD_RETURN_IF_ERROR(r.Get(p, "victim_ordering", "policies", &out->victim_ordering));
  if (YAML::Node g = p["governance"]) {
    if (!g.IsSequence()) return r.Error(g, "policies.governance", "must be a list of files");
    for (size_t i = 0; i < g.size(); ++i) {
      std::string f;
      STEWARD_RETURN_IF_ERROR(r.Scalar(g[i], fmt::format("policies.governance[{}]", i), &f));
      out->governance.push_back(f);
    }
    out->admission = "kueue";
  }
  STEWARD_RETURN_IF_ERROR(r.Get(p, "admission", "policies", &out->admission));
  STEWARD_RETURN_IF_ERROR(r.Get(p, "placement", "policies", &out->placement));
  STEWARD_RETURN_IF_ERROR(
      CheckPlacementName(r, p["placement"], "policies.placement", out->placement));
  STEWARD_RETURN_IF_ERROR(ParseList(
      r, p, "pools", false, &out->pools,
      [](const Reader& r, const YAML::Node& n, const std::string& path, PlacementPoolSpec* pool) {
        return ParsePlacementPool(r, n, "policies." + path, pool);
      }));
  if (YAML::Node d = p["defrag"])
    STEWARD_RETURN_IF_ERROR(ParseDefrag(r, d, "policies.defrag", &out->defrag));
  STEWARD_RETURN_IF_ERROR(r.Get(p, "startup_seconds", "policies", &out->startup_seconds));
  return Status::Ok();
}

}  // namespace steward::twin::scenario_yaml

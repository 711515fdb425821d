#include "twin/scenario.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "model/data_dir.h"
#include "model/text.h"
#include "model/xid_catalog.h"
#include "model/yaml_checked.h"
#include "place/mig.h"
#include "place/node_state.h"
#include "place/policy_registry.h"
#include "twin/csv.h"
#include "twin/scenario_reader.h"

namespace steward::twin {
namespace {

// Bounds of the counts a generator may draw (far above any real pod or job, far below int).
constexpr double kMaxGpusPerPod = 4096;
constexpr double kMaxPodsPerWorkload = 1'000'000;

using scenario_internal::Positive;
using scenario_internal::Reader;

// A map of string labels (`key: value`), as Kubernetes labels.
// A distribution of counts (pods, GPUs per pod) is sampled, rounded and stored as an
// int: every value it may take must be a whole number no larger than `limit`, or a count like
// 4294967304 would wrap around to 8. Unbounded shapes (exponential, lognormal) are capped at
// `limit` so no sample overflows.
Status CheckCountDist(const Reader& r, const YAML::Node& map, const char* key,
                      const std::string& path, double limit, Distribution* d) {
  const YAML::Node n = map[key];
  if (!n) return Status::Ok();
  const std::string field = Reader::Join(path, key);
  auto bad = [&](std::string_view what, double v, std::string_view why) {
    return r.Error(
        n, field,
        fmt::format("{}{} {} (a count: a whole number from 0 to {})", what, v, why, limit));
  };
  auto check = [&](double v) -> Status {
    if (v < 0 || v > limit) return bad("", v, "is out of range");
    if (v != std::floor(v)) return bad("", v, "is not a whole number");
    return Status::Ok();
  };
  using Kind = Distribution::Kind;
  if (d->kind == Kind::kConstant) STEWARD_RETURN_IF_ERROR(check(d->value));
  if (d->kind == Kind::kChoice) {
    for (double v : d->values) STEWARD_RETURN_IF_ERROR(check(v));
  }
  if (n.IsMap() && n["max"] && d->max > limit) return bad("max ", d->max, "is out of range");
  if (d->kind != Kind::kUniform) d->max = std::min(d->max, limit);
  return Status::Ok();
}

Status ParseLabels(const Reader& r, const YAML::Node& map, const char* key, const std::string& path,
                   std::map<std::string, std::string>* out) {
  const YAML::Node l = map[key];
  if (!l) return Status::Ok();
  const std::string field = Reader::Join(path, key);
  if (!l.IsMap()) return r.Error(l, field, "must be a mapping");
  for (const auto& kv : l) {
    std::string v;
    STEWARD_RETURN_IF_ERROR(r.Scalar(kv.second, field + "." + kv.first.Scalar(), &v));
    (*out)[kv.first.Scalar()] = v;
  }
  return Status::Ok();
}

// A non-empty list of distinct workload kinds, in the order given.
Status ParseKinds(const Reader& r, const YAML::Node& k, const std::string& path,
                  std::vector<model::WorkloadKind>* out) {
  if (!k.IsSequence() || k.size() == 0)
    return r.Error(k, path, "must be a non-empty list of workload kinds");
  for (size_t i = 0; i < k.size(); ++i) {
    const std::string field = fmt::format("{}[{}]", path, i);
    std::string text;
    STEWARD_RETURN_IF_ERROR(r.Scalar(k[i], field, &text));
    model::WorkloadKind kind;
    if (!model::ParseKind(text, &kind))
      return r.Error(k[i], field,
                     fmt::format("unknown kind '{}' (inference, training, notebook, batch)", text));
    if (std::find(out->begin(), out->end(), kind) != out->end())
      return r.Error(k[i], field, fmt::format("kind '{}' is listed twice", text));
    out->push_back(kind);
  }
  return Status::Ok();
}

Status ParseUsage(const Reader& r, const YAML::Node& n, const std::string& path, UsageSpec* u) {
  STEWARD_RETURN_IF_ERROR(
      r.CheckKeys(n, path,
                  {"used_gpu_fraction", "busy", "sm_active", "stall_period_minutes",
                   "stall_fraction", "active_hours", "idle_busy"}));
  STEWARD_RETURN_IF_ERROR(r.Dist(n, "used_gpu_fraction", path, &u->used_gpu_fraction));
  STEWARD_RETURN_IF_ERROR(r.Dist(n, "busy", path, &u->busy));
  STEWARD_RETURN_IF_ERROR(r.Dist(n, "sm_active", path, &u->sm_active));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "stall_period_minutes", path, &u->stall_period_minutes));
  STEWARD_RETURN_IF_ERROR(r.Dist(n, "stall_fraction", path, &u->stall_fraction));
  STEWARD_RETURN_IF_ERROR(r.Dist(n, "active_hours", path, &u->active_hours));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "idle_busy", path, &u->idle_busy));
  // Fractions are clamped when drawn, but a constant outside [0, 1] is a mistake.
  for (auto [key, d] :
       {std::pair{"used_gpu_fraction", &u->used_gpu_fraction}, std::pair{"busy", &u->busy},
        std::pair{"sm_active", &u->sm_active}, std::pair{"stall_fraction", &u->stall_fraction}}) {
    const double m = d->Mean();
    if (m < 0 || m > 1) return r.Error(n[key], Reader::Join(path, key), "must lie in [0, 1]");
    d->min = std::max(d->min, 0.0);
    d->max = std::min(d->max, 1.0);
  }
  return Status::Ok();
}

// gpu_milli / mig_profile: a pod that takes part of one GPU.
Status ParseSharing(const Reader& r, const YAML::Node& n, const std::string& path,
                    GeneratorSpec* g) {
  STEWARD_RETURN_IF_ERROR(r.Dist(n, "gpu_milli", path, &g->gpu_milli));
  const double milli = g->gpu_milli.Mean();
  if (milli < 1 || milli > 1000)
    return r.Error(n["gpu_milli"], path + ".gpu_milli", "must lie in [1, 1000]");
  g->gpu_milli.min = std::max(g->gpu_milli.min, 1.0);
  g->gpu_milli.max = std::min(g->gpu_milli.max, 1000.0);
  STEWARD_RETURN_IF_ERROR(r.Get(n, "mig_profile", path, &g->mig_profile));
  if (!g->mig_profile.empty() && place::ParseMigProfile(g->mig_profile) == place::kNoMig)
    return r.Error(
        n["mig_profile"], path + ".mig_profile",
        fmt::format("unknown MIG profile '{}' ({})", g->mig_profile, place::MigProfileNames()));
  const bool fractional = n["gpu_milli"] && !(g->gpu_milli.kind == Distribution::Kind::kConstant &&
                                              g->gpu_milli.value == 1000);
  if (fractional && !g->mig_profile.empty())
    return r.Error(n["mig_profile"], path + ".mig_profile", "is exclusive with gpu_milli");
  const bool one_gpu =
      g->gpus_per_pod.kind == Distribution::Kind::kConstant && g->gpus_per_pod.value == 1;
  if ((fractional || !g->mig_profile.empty()) && !one_gpu)
    return r.Error(n["gpus_per_pod"] ? n["gpus_per_pod"] : n, path + ".gpus_per_pod",
                   "must be 1 for a pod that shares a GPU (gpu_milli or mig_profile)");
  return Status::Ok();
}

Status ParseGenerator(const Reader& r, const YAML::Node& n, const std::string& path,
                      GeneratorSpec* g) {
  STEWARD_RETURN_IF_ERROR(r.CheckKeys(n, path,
                                      {"name",
                                       "team",
                                       "queue",
                                       "kind",
                                       "priority_class",
                                       "tier",
                                       "arrival",
                                       "pods",
                                       "gpus_per_pod",
                                       "duration_hours",
                                       "checkpoint_interval_minutes",
                                       "restore_minutes",
                                       "gpu_model",
                                       "topology",
                                       "gpu_milli",
                                       "mig_profile",
                                       "usage",
                                       "min_replicas",
                                       "max_replicas",
                                       "peak_hour",
                                       "labels",
                                       "pod_group",
                                       "pod_creation_seconds",
                                       "startup_jitter_seconds",
                                       "traffic",
                                       "capacity_per_replica",
                                       "latency",
                                       "slo",
                                       "autoscaler"}));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "name", path, &g->name, true));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "team", path, &g->team, true));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "queue", path, &g->queue));
  std::string kind;
  STEWARD_RETURN_IF_ERROR(r.Get(n, "kind", path, &kind, true));
  if (!model::ParseKind(kind, &g->kind))
    return r.Error(n["kind"], path + ".kind",
                   fmt::format("unknown kind '{}' (inference, training, notebook, batch)", kind));
  // The guide's tiers by kind, unless the scenario says otherwise.
  g->tier = g->kind == model::WorkloadKind::kInference  ? model::Tier::kProduction
            : g->kind == model::WorkloadKind::kTraining ? model::Tier::kTraining
                                                        : model::Tier::kDev;
  std::string tier;
  STEWARD_RETURN_IF_ERROR(r.Get(n, "tier", path, &tier));
  if (!tier.empty() && !model::ParseTier(tier, &g->tier))
    return r.Error(n["tier"], path + ".tier",
                   fmt::format("unknown tier '{}' (production, training, dev)", tier));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "priority_class", path, &g->priority_class));
  if (g->priority_class.empty()) g->priority_class = std::string(model::TierName(g->tier));

  if (YAML::Node a = n["arrival"]) {
    const std::string ap = path + ".arrival";
    STEWARD_RETURN_IF_ERROR(r.CheckKeys(
        a, ap,
        {"process", "rate_per_hour", "diurnal_amplitude", "peak_hour", "start_hours", "count"}));
    std::string process = "poisson";
    STEWARD_RETURN_IF_ERROR(r.Get(a, "process", ap, &process));
    if (process == "poisson")
      g->arrival.process = ArrivalSpec::Process::kPoisson;
    else if (process == "once")
      g->arrival.process = ArrivalSpec::Process::kOnce;
    else
      return r.Error(a["process"], ap + ".process",
                     fmt::format("unknown process '{}' (poisson, once)", process));
    STEWARD_RETURN_IF_ERROR(r.Get(a, "rate_per_hour", ap, &g->arrival.rate_per_hour));
    STEWARD_RETURN_IF_ERROR(r.Get(a, "diurnal_amplitude", ap, &g->arrival.diurnal_amplitude));
    STEWARD_RETURN_IF_ERROR(r.Get(a, "peak_hour", ap, &g->arrival.peak_hour));
    STEWARD_RETURN_IF_ERROR(r.Get(a, "start_hours", ap, &g->arrival.start_hours));
    STEWARD_RETURN_IF_ERROR(r.Get(a, "count", ap, &g->arrival.count));
    if (g->arrival.process == ArrivalSpec::Process::kPoisson)
      STEWARD_RETURN_IF_ERROR(Positive(r, a, ap + ".rate_per_hour", g->arrival.rate_per_hour));
    if (g->arrival.diurnal_amplitude < 0 || g->arrival.diurnal_amplitude > 1)
      return r.Error(a["diurnal_amplitude"], ap + ".diurnal_amplitude", "must lie in [0, 1]");
    if (g->arrival.count < 0) return r.Error(a["count"], ap + ".count", "must be >= 0");
  } else {
    return r.Error(n, path + ".arrival", "is required");
  }
  STEWARD_RETURN_IF_ERROR(r.Dist(n, "pods", path, &g->pods));
  STEWARD_RETURN_IF_ERROR(r.Dist(n, "gpus_per_pod", path, &g->gpus_per_pod));
  STEWARD_RETURN_IF_ERROR(CheckCountDist(r, n, "pods", path, kMaxPodsPerWorkload, &g->pods));
  STEWARD_RETURN_IF_ERROR(
      CheckCountDist(r, n, "gpus_per_pod", path, kMaxGpusPerPod, &g->gpus_per_pod));
  STEWARD_RETURN_IF_ERROR(r.Dist(n, "duration_hours", path, &g->duration_hours));
  g->pods.min = std::max(g->pods.min, 1.0);
  g->gpus_per_pod.min = std::max(g->gpus_per_pod.min, 1.0);
  g->duration_hours.min = std::max(g->duration_hours.min, 1.0 / 60);
  STEWARD_RETURN_IF_ERROR(
      r.Get(n, "checkpoint_interval_minutes", path, &g->checkpoint_interval_minutes));
  STEWARD_RETURN_IF_ERROR(
      Positive(r, n, path + ".checkpoint_interval_minutes", g->checkpoint_interval_minutes, true));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "restore_minutes", path, &g->restore_minutes));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "gpu_model", path, &g->gpu_model));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "pod_group", path, &g->pod_group));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "pod_creation_seconds", path, &g->pod_creation_seconds));
  STEWARD_RETURN_IF_ERROR(
      Positive(r, n, path + ".pod_creation_seconds", g->pod_creation_seconds, true));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "startup_jitter_seconds", path, &g->startup_jitter_seconds));
  STEWARD_RETURN_IF_ERROR(
      Positive(r, n, path + ".startup_jitter_seconds", g->startup_jitter_seconds, true));
  std::string topology = "none";
  STEWARD_RETURN_IF_ERROR(r.Get(n, "topology", path, &topology));
  if (!model::ParseTopology(topology, &g->topology))
    return r.Error(n["topology"], path + ".topology",
                   fmt::format("unknown topology '{}' (none, nvlink, leaf)", topology));
  STEWARD_RETURN_IF_ERROR(ParseSharing(r, n, path, g));
  if (YAML::Node u = n["usage"])
    STEWARD_RETURN_IF_ERROR(ParseUsage(r, u, path + ".usage", &g->usage));
  STEWARD_RETURN_IF_ERROR(ParseLabels(r, n, "labels", path, &g->labels));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "min_replicas", path, &g->min_replicas));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "max_replicas", path, &g->max_replicas));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "peak_hour", path, &g->peak_hour));
  if (g->kind == model::WorkloadKind::kInference &&
      (g->min_replicas < 1 || g->max_replicas < g->min_replicas))
    return r.Error(n, path, "inference needs 1 <= min_replicas <= max_replicas");
  return scenario_internal::ParseServing(r, n, path, g);
}

Status ParsePool(const Reader& r, const YAML::Node& n, const std::string& path, PoolSpec* p) {
  STEWARD_RETURN_IF_ERROR(
      r.CheckKeys(n, path,
                  {"name", "nodes", "gpus_per_node", "gpu_model", "nodes_per_rack",
                   "nodes_per_leaf", "nvlink_domain", "cpu_milli", "memory_mib", "driver_version",
                   "toolkit_version", "device_plugin_version", "labels", "taints"}));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "name", path, &p->name, true));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "nodes", path, &p->nodes, true));
  STEWARD_RETURN_IF_ERROR(Positive(r, n["nodes"], path + ".nodes", p->nodes));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "gpus_per_node", path, &p->gpus_per_node));
  if (p->gpus_per_node < 1 || p->gpus_per_node > place::kMaxGpusPerNode)
    return r.Error(n["gpus_per_node"], path + ".gpus_per_node",
                   fmt::format("must lie in [1, {}] (the placement layer's largest node; an "
                               "NVL72 rack is 18 nodes of 4 GPUs with nvlink_domain: rack)",
                               place::kMaxGpusPerNode));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "gpu_model", path, &p->gpu_model, true));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "nodes_per_rack", path, &p->nodes_per_rack));
  STEWARD_RETURN_IF_ERROR(
      Positive(r, n["nodes_per_rack"], path + ".nodes_per_rack", p->nodes_per_rack));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "nodes_per_leaf", path, &p->nodes_per_leaf));
  STEWARD_RETURN_IF_ERROR(
      Positive(r, n["nodes_per_leaf"], path + ".nodes_per_leaf", p->nodes_per_leaf));
  std::string nvlink = "node";
  STEWARD_RETURN_IF_ERROR(r.Get(n, "nvlink_domain", path, &nvlink));
  if (nvlink != "node" && nvlink != "rack")
    return r.Error(n["nvlink_domain"], path + ".nvlink_domain", "must be 'node' or 'rack'");
  p->nvlink_per_rack = nvlink == "rack";
  STEWARD_RETURN_IF_ERROR(r.Get(n, "cpu_milli", path, &p->cpu_milli));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "memory_mib", path, &p->memory_mib));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "driver_version", path, &p->driver_version));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "toolkit_version", path, &p->toolkit_version));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "device_plugin_version", path, &p->device_plugin_version));
  STEWARD_RETURN_IF_ERROR(ParseLabels(r, n, "labels", path, &p->labels));
  if (YAML::Node t = n["taints"]) {
    if (!t.IsSequence()) return r.Error(t, path + ".taints", "must be a list");
    for (size_t i = 0; i < t.size(); ++i) {
      const std::string tp = fmt::format("{}.taints[{}]", path, i);
      STEWARD_RETURN_IF_ERROR(r.CheckKeys(t[i], tp, {"key", "value", "effect"}));
      model::Taint taint;
      STEWARD_RETURN_IF_ERROR(r.Get(t[i], "key", tp, &taint.key, true));
      STEWARD_RETURN_IF_ERROR(r.Get(t[i], "value", tp, &taint.value));
      taint.effect = "NoSchedule";
      STEWARD_RETURN_IF_ERROR(r.Get(t[i], "effect", tp, &taint.effect));
      p->taints.push_back(taint);
    }
  }
  return Status::Ok();
}

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

template <typename T, typename F>
Status ParseList(const Reader& r, const YAML::Node& root, const char* key, bool required,
                 std::vector<T>* out, F parse) {
  const YAML::Node n = root[key];
  if (!n) return required ? r.Error(root, key, "is required") : Status::Ok();
  if (!n.IsSequence()) return r.Error(n, key, "must be a list");
  for (size_t i = 0; i < n.size(); ++i) {
    T item;
    STEWARD_RETURN_IF_ERROR(parse(r, n[i], fmt::format("{}[{}]", key, i), &item));
    out->push_back(std::move(item));
  }
  return Status::Ok();
}

Status ParseXid(const Reader& r, const YAML::Node& n, const std::string& field, int* xid) {
  STEWARD_RETURN_IF_ERROR(r.Scalar(n, field, xid));
  if (model::XidCatalog::Builtin().Find(*xid) == nullptr)
    return r.Error(n, field,
                   fmt::format("XID {} is not in the catalog (steward health xid)", *xid));
  return Status::Ok();
}

Status ParseFaults(const Reader& r, const YAML::Node& f, FaultSpec* out) {
  STEWARD_RETURN_IF_ERROR(r.CheckKeys(f, "faults",
                                      {"enabled", "other_interruptions_per_gpu_hour", "xids",
                                       "rack_events", "driver_rollouts", "versions", "scheduled"}));
  STEWARD_RETURN_IF_ERROR(r.Get(f, "enabled", "faults", &out->enabled));
  STEWARD_RETURN_IF_ERROR(r.Get(f, "other_interruptions_per_gpu_hour", "faults",
                                &out->other_interruptions_per_gpu_hour));
  STEWARD_RETURN_IF_ERROR(Positive(r, f["other_interruptions_per_gpu_hour"],
                                   "faults.other_interruptions_per_gpu_hour",
                                   out->other_interruptions_per_gpu_hour, true));
  if (YAML::Node x = f["xids"]) {
    if (!x.IsSequence()) return r.Error(x, "faults.xids", "must be a list");
    out->xids.clear();  // A list replaces the default mix.
    for (size_t i = 0; i < x.size(); ++i) {
      const std::string path = fmt::format("faults.xids[{}]", i);
      STEWARD_RETURN_IF_ERROR(r.CheckKeys(x[i], path, {"xid", "per_gpu_hour"}));
      XidRateSpec rate;
      if (!x[i]["xid"]) return r.Error(x[i], path + ".xid", "is required");
      STEWARD_RETURN_IF_ERROR(ParseXid(r, x[i]["xid"], path + ".xid", &rate.xid));
      STEWARD_RETURN_IF_ERROR(r.Get(x[i], "per_gpu_hour", path, &rate.per_gpu_hour, true));
      STEWARD_RETURN_IF_ERROR(
          Positive(r, x[i]["per_gpu_hour"], path + ".per_gpu_hour", rate.per_gpu_hour, true));
      out->xids.push_back(rate);
    }
  }
  if (YAML::Node k = f["rack_events"]) {
    const std::string path = "faults.rack_events";
    STEWARD_RETURN_IF_ERROR(r.CheckKeys(k, path, {"per_rack_day", "xid"}));
    STEWARD_RETURN_IF_ERROR(r.Get(k, "per_rack_day", path, &out->rack_events.per_rack_day));
    STEWARD_RETURN_IF_ERROR(Positive(r, k["per_rack_day"], path + ".per_rack_day",
                                     out->rack_events.per_rack_day, true));
    if (k["xid"])
      STEWARD_RETURN_IF_ERROR(ParseXid(r, k["xid"], path + ".xid", &out->rack_events.xid));
  }
  if (YAML::Node d = f["driver_rollouts"]) {
    if (!d.IsSequence()) return r.Error(d, "faults.driver_rollouts", "must be a list");
    for (size_t i = 0; i < d.size(); ++i) {
      const std::string path = fmt::format("faults.driver_rollouts[{}]", i);
      const YAML::Node n = d[i];
      STEWARD_RETURN_IF_ERROR(
          r.CheckKeys(n, path,
                      {"pool", "at_hours", "first_node", "nodes", "driver_version",
                       "xid_rate_multiplier", "advertises_gpus"}));
      DriverRolloutSpec ro;
      ro.line = n.Mark().line + 1;
      STEWARD_RETURN_IF_ERROR(r.Get(n, "pool", path, &ro.pool, true));
      STEWARD_RETURN_IF_ERROR(r.Get(n, "at_hours", path, &ro.at_hours, true));
      STEWARD_RETURN_IF_ERROR(Positive(r, n["at_hours"], path + ".at_hours", ro.at_hours, true));
      STEWARD_RETURN_IF_ERROR(r.Get(n, "first_node", path, &ro.first_node));
      if (ro.first_node < 0) return r.Error(n["first_node"], path + ".first_node", "must be >= 0");
      STEWARD_RETURN_IF_ERROR(r.Get(n, "nodes", path, &ro.nodes));
      if (n["nodes"] && ro.nodes < 1) return r.Error(n["nodes"], path + ".nodes", "must be >= 1");
      STEWARD_RETURN_IF_ERROR(r.Get(n, "driver_version", path, &ro.driver_version, true));
      if (ro.driver_version.empty())
        return r.Error(n["driver_version"], path + ".driver_version", "must not be empty");
      STEWARD_RETURN_IF_ERROR(r.Get(n, "xid_rate_multiplier", path, &ro.xid_rate_multiplier));
      if (ro.xid_rate_multiplier < 1)
        return r.Error(n["xid_rate_multiplier"], path + ".xid_rate_multiplier", "must be >= 1");
      STEWARD_RETURN_IF_ERROR(r.Get(n, "advertises_gpus", path, &ro.advertises_gpus));
      out->driver_rollouts.push_back(std::move(ro));
    }
  }
  if (YAML::Node d = f["versions"]) {
    if (!d.IsSequence()) return r.Error(d, "faults.versions", "must be a list");
    for (size_t i = 0; i < d.size(); ++i) {
      const std::string path = fmt::format("faults.versions[{}]", i);
      const YAML::Node n = d[i];
      STEWARD_RETURN_IF_ERROR(r.CheckKeys(
          n, path, {"version", "extra_xids_per_gpu_hour", "xid", "advertises_gpus", "mig_state"}));
      VersionSpec v;
      v.line = n.Mark().line + 1;
      STEWARD_RETURN_IF_ERROR(r.Get(n, "version", path, &v.version, true));
      if (v.version.empty()) return r.Error(n["version"], path + ".version", "must not be empty");
      STEWARD_RETURN_IF_ERROR(
          r.Get(n, "extra_xids_per_gpu_hour", path, &v.extra_xids_per_gpu_hour));
      STEWARD_RETURN_IF_ERROR(Positive(r, n["extra_xids_per_gpu_hour"],
                                       path + ".extra_xids_per_gpu_hour", v.extra_xids_per_gpu_hour,
                                       true));
      if (n["xid"]) STEWARD_RETURN_IF_ERROR(ParseXid(r, n["xid"], path + ".xid", &v.xid));
      STEWARD_RETURN_IF_ERROR(r.Get(n, "advertises_gpus", path, &v.advertises_gpus));
      STEWARD_RETURN_IF_ERROR(r.Get(n, "mig_state", path, &v.mig_state));
      if (v.mig_state != "success" && v.mig_state != "pending" && v.mig_state != "failed")
        return r.Error(n["mig_state"], path + ".mig_state", "must be success, pending or failed");
      out->versions.push_back(std::move(v));
    }
  }
  if (YAML::Node d = f["scheduled"]) {
    if (!d.IsSequence()) return r.Error(d, "faults.scheduled", "must be a list");
    for (size_t i = 0; i < d.size(); ++i) {
      const std::string path = fmt::format("faults.scheduled[{}]", i);
      const YAML::Node n = d[i];
      STEWARD_RETURN_IF_ERROR(r.CheckKeys(n, path, {"at_hours", "node", "gpu", "rack", "xid"}));
      ScheduledFaultSpec sf;
      sf.line = n.Mark().line + 1;
      STEWARD_RETURN_IF_ERROR(r.Get(n, "at_hours", path, &sf.at_hours, true));
      STEWARD_RETURN_IF_ERROR(Positive(r, n["at_hours"], path + ".at_hours", sf.at_hours, true));
      STEWARD_RETURN_IF_ERROR(r.Get(n, "node", path, &sf.node));
      STEWARD_RETURN_IF_ERROR(r.Get(n, "gpu", path, &sf.gpu));
      STEWARD_RETURN_IF_ERROR(r.Get(n, "rack", path, &sf.rack));
      if (sf.node.empty() == !n["rack"])
        return r.Error(n, path, "needs exactly one of node or rack");
      if (n["rack"] && sf.rack < 0) return r.Error(n["rack"], path + ".rack", "must be >= 0");
      if (n["rack"] && n["gpu"])
        return r.Error(n["gpu"], path + ".gpu", "a rack event hits every GPU");
      if (sf.gpu < -1 || sf.gpu >= 64)
        return r.Error(n["gpu"], path + ".gpu", "must be a GPU index, or -1 for every GPU");
      if (!n["xid"]) return r.Error(n, path + ".xid", "is required");
      STEWARD_RETURN_IF_ERROR(ParseXid(r, n["xid"], path + ".xid", &sf.xid));
      out->scheduled.push_back(std::move(sf));
    }
  }
  return Status::Ok();
}

Status ParseRemediation(const Reader& r, const YAML::Node& m, RemediationSpec* out) {
  const std::string path = "remediation";
  STEWARD_RETURN_IF_ERROR(r.CheckKeys(
      m, path,
      {"enabled", "max_out_fraction", "reset_gpu_hours", "reboot_hours", "investigate_hours",
       "rma_hours", "human_release_hours", "diagnostic_minutes", "repair_failure_probability"}));
  STEWARD_RETURN_IF_ERROR(r.Get(m, "enabled", path, &out->enabled));
  STEWARD_RETURN_IF_ERROR(r.Get(m, "max_out_fraction", path, &out->max_out_fraction));
  if (!(out->max_out_fraction > 0 && out->max_out_fraction <= 1))
    return r.Error(m["max_out_fraction"], path + ".max_out_fraction", "must lie in (0, 1]");
  for (auto [key, v] : {std::pair{"reset_gpu_hours", &out->reset_gpu_hours},
                        std::pair{"reboot_hours", &out->reboot_hours},
                        std::pair{"investigate_hours", &out->investigate_hours},
                        std::pair{"rma_hours", &out->rma_hours},
                        std::pair{"human_release_hours", &out->human_release_hours},
                        std::pair{"diagnostic_minutes", &out->diagnostic_minutes}}) {
    STEWARD_RETURN_IF_ERROR(r.Get(m, key, path, v));
    STEWARD_RETURN_IF_ERROR(Positive(r, m[key], Reader::Join(path, key), *v, true));
  }
  STEWARD_RETURN_IF_ERROR(
      r.Get(m, "repair_failure_probability", path, &out->repair_failure_probability));
  if (out->repair_failure_probability < 0 || out->repair_failure_probability > 1)
    return r.Error(m["repair_failure_probability"], path + ".repair_failure_probability",
                   "must lie in [0, 1]");
  return Status::Ok();
}

Status ParseReclaim(const Reader& r, const YAML::Node& m, ReclaimSpec* out) {
  const std::string path = "reclaim";
  STEWARD_RETURN_IF_ERROR(
      r.CheckKeys(m, path,
                  {"enabled", "dry_run", "notify_after_minutes", "reclaim_after_minutes",
                   "idle_sm_active_below", "kinds", "exempt_labels"}));
  STEWARD_RETURN_IF_ERROR(r.Get(m, "enabled", path, &out->enabled));
  STEWARD_RETURN_IF_ERROR(r.Get(m, "dry_run", path, &out->dry_run));
  STEWARD_RETURN_IF_ERROR(r.Get(m, "notify_after_minutes", path, &out->notify_after_minutes));
  STEWARD_RETURN_IF_ERROR(Positive(r, m["notify_after_minutes"], path + ".notify_after_minutes",
                                   out->notify_after_minutes, true));
  STEWARD_RETURN_IF_ERROR(r.Get(m, "reclaim_after_minutes", path, &out->reclaim_after_minutes));
  if (!(out->reclaim_after_minutes > out->notify_after_minutes))
    return r.Error(m["reclaim_after_minutes"] ? m["reclaim_after_minutes"] : m,
                   path + ".reclaim_after_minutes",
                   fmt::format("must be greater than notify_after_minutes ({}): the notice comes "
                               "before the reclaim",
                               out->notify_after_minutes));
  STEWARD_RETURN_IF_ERROR(r.Get(m, "idle_sm_active_below", path, &out->idle_sm_active_below));
  if (!(out->idle_sm_active_below > 0 && out->idle_sm_active_below <= 1))
    return r.Error(m["idle_sm_active_below"], path + ".idle_sm_active_below", "must lie in (0, 1]");
  if (YAML::Node k = m["kinds"]) {
    out->kinds.clear();  // The scenario's list replaces the default.
    STEWARD_RETURN_IF_ERROR(ParseKinds(r, k, path + ".kinds", &out->kinds));
  }
  if (m["exempt_labels"]) {
    out->exempt_labels.clear();  // The scenario's list replaces the default.
    STEWARD_RETURN_IF_ERROR(ParseLabels(r, m, "exempt_labels", path, &out->exempt_labels));
  }
  return Status::Ok();
}

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
  STEWARD_RETURN_IF_ERROR(
      r.CheckKeys(cluster, "cluster", {"gpu_models", "pools", "alibaba_nodes"}));
  std::string alibaba;
  STEWARD_RETURN_IF_ERROR(r.Get(cluster, "alibaba_nodes", "cluster", &alibaba));
  s->alibaba_nodes = model::ExpandDataPath(alibaba);
  const bool need_pools = alibaba.empty();
  STEWARD_RETURN_IF_ERROR(ParseList(
      r, cluster, "gpu_models", need_pools, &s->gpu_models,
      [](const Reader& r, const YAML::Node& n, const std::string& path, GpuModelSpec* m) {
        STEWARD_RETURN_IF_ERROR(r.CheckKeys(
            n, "cluster." + path, {"name", "product_label", "memory_mib", "mig_capable"}));
        STEWARD_RETURN_IF_ERROR(r.Get(n, "name", "cluster." + path, &m->name, true));
        STEWARD_RETURN_IF_ERROR(r.Get(n, "product_label", "cluster." + path, &m->product_label));
        STEWARD_RETURN_IF_ERROR(r.Get(n, "memory_mib", "cluster." + path, &m->memory_mib));
        STEWARD_RETURN_IF_ERROR(r.Get(n, "mig_capable", "cluster." + path, &m->mig_capable));
        if (m->product_label.empty()) m->product_label = "NVIDIA-" + m->name;
        return Status::Ok();
      }));
  STEWARD_RETURN_IF_ERROR(
      ParseList(r, cluster, "pools", need_pools, &s->pools,
                [](const Reader& r, const YAML::Node& n, const std::string& path, PoolSpec* p) {
                  return ParsePool(r, n, "cluster." + path, p);
                }));
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
  if (YAML::Node p = root["policies"]) {
    STEWARD_RETURN_IF_ERROR(
        r.CheckKeys(p, "policies",
                    {"admission", "placement", "startup_seconds", "governance", "victim_ordering",
                     "alert_tenant_share", "pools", "defrag"}));
    STEWARD_RETURN_IF_ERROR(
        r.Get(p, "alert_tenant_share", "policies", &s->policies.alert_tenant_share));
    if (s->policies.alert_tenant_share <= 0 || s->policies.alert_tenant_share > 1)
      return r.Error(p["alert_tenant_share"], "policies.alert_tenant_share", "must lie in (0, 1]");
    STEWARD_RETURN_IF_ERROR(r.Get(p, "victim_ordering", "policies", &s->policies.victim_ordering));
    if (YAML::Node g = p["governance"]) {
      if (!g.IsSequence()) return r.Error(g, "policies.governance", "must be a list of files");
      for (size_t i = 0; i < g.size(); ++i) {
        std::string f;
        STEWARD_RETURN_IF_ERROR(r.Scalar(g[i], fmt::format("policies.governance[{}]", i), &f));
        s->policies.governance.push_back(f);
      }
      s->policies.admission = "kueue";
    }
    STEWARD_RETURN_IF_ERROR(r.Get(p, "admission", "policies", &s->policies.admission));
    STEWARD_RETURN_IF_ERROR(r.Get(p, "placement", "policies", &s->policies.placement));
    STEWARD_RETURN_IF_ERROR(
        CheckPlacementName(r, p["placement"], "policies.placement", s->policies.placement));
    STEWARD_RETURN_IF_ERROR(ParseList(
        r, p, "pools", false, &s->policies.pools,
        [](const Reader& r, const YAML::Node& n, const std::string& path, PlacementPoolSpec* pool) {
          return ParsePlacementPool(r, n, "policies." + path, pool);
        }));
    if (YAML::Node d = p["defrag"])
      STEWARD_RETURN_IF_ERROR(ParseDefrag(r, d, "policies.defrag", &s->policies.defrag));
    STEWARD_RETURN_IF_ERROR(r.Get(p, "startup_seconds", "policies", &s->policies.startup_seconds));
  }
  if (YAML::Node f = root["faults"]) STEWARD_RETURN_IF_ERROR(ParseFaults(r, f, &s->faults));
  if (YAML::Node m = root["remediation"])
    STEWARD_RETURN_IF_ERROR(ParseRemediation(r, m, &s->remediation));
  if (YAML::Node m = root["reclaim"]) STEWARD_RETURN_IF_ERROR(ParseReclaim(r, m, &s->reclaim));
  if (YAML::Node t = root["tidal"])
    STEWARD_RETURN_IF_ERROR(scenario_internal::ParseTidal(r, t, &s->tidal));
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

// Cross-references: names that must resolve, duplicates that must not exist.
Status Validate(const Reader& r, const YAML::Node& root, const Scenario& s) {
  std::set<std::string> names;
  for (size_t i = 0; i < s.gpu_models.size(); ++i)
    if (!names.insert(s.gpu_models[i].name).second)
      return r.Error(root["cluster"]["gpu_models"][i],
                     fmt::format("cluster.gpu_models[{}].name", i),
                     fmt::format("duplicate GPU model '{}'", s.gpu_models[i].name));
  std::set<std::string> pools;
  for (size_t i = 0; i < s.pools.size(); ++i) {
    const YAML::Node n = root["cluster"]["pools"][i];
    if (!names.count(s.pools[i].gpu_model))
      return r.Error(n["gpu_model"], fmt::format("cluster.pools[{}].gpu_model", i),
                     fmt::format("unknown GPU model '{}'", s.pools[i].gpu_model));
    if (!pools.insert(s.pools[i].name).second)
      return r.Error(n["name"], fmt::format("cluster.pools[{}].name", i),
                     fmt::format("duplicate pool '{}'", s.pools[i].name));
  }
  std::set<std::string> teams;
  for (size_t i = 0; i < s.teams.size(); ++i)
    if (!teams.insert(s.teams[i].name).second)
      return r.Error(root["teams"][i], fmt::format("teams[{}].name", i),
                     fmt::format("duplicate team '{}'", s.teams[i].name));
  for (size_t i = 0; i < s.generators.size(); ++i) {
    const GeneratorSpec& g = s.generators[i];
    const YAML::Node n = root["generators"][i];
    if (!teams.count(g.team))
      return r.Error(n["team"], fmt::format("generators[{}].team", i),
                     fmt::format("unknown team '{}'", g.team));
    if (!g.gpu_model.empty() && !names.count(g.gpu_model))
      return r.Error(n["gpu_model"], fmt::format("generators[{}].gpu_model", i),
                     fmt::format("unknown GPU model '{}'", g.gpu_model));
    if (!g.mig_profile.empty()) {
      // MIG needs a MIG-capable model: the one it asks for, or any if it asks for none.
      bool capable = false;
      for (const auto& m : s.gpu_models)
        capable = capable || (m.mig_capable && (g.gpu_model.empty() || m.name == g.gpu_model));
      if (!capable && s.alibaba_nodes.empty())
        return r.Error(n["mig_profile"], fmt::format("generators[{}].mig_profile", i),
                       g.gpu_model.empty()
                           ? "no GPU model of the cluster is mig_capable"
                           : fmt::format("GPU model '{}' is not mig_capable", g.gpu_model));
    }
  }
  std::set<std::string> placement_pools;
  for (size_t i = 0; i < s.policies.pools.size(); ++i) {
    const PlacementPoolSpec& p = s.policies.pools[i];
    const YAML::Node n = root["policies"]["pools"][i];
    if (!placement_pools.insert(p.name).second)
      return r.Error(n["name"], fmt::format("policies.pools[{}].name", i),
                     fmt::format("duplicate placement pool '{}'", p.name));
    if (!p.hardware_pool.empty() && !pools.count(p.hardware_pool) && s.alibaba_nodes.empty())
      return r.Error(n["hardware_pool"], fmt::format("policies.pools[{}].hardware_pool", i),
                     fmt::format("unknown cluster pool '{}'", p.hardware_pool));
  }
  for (size_t i = 0; i < s.faults.driver_rollouts.size(); ++i) {
    const DriverRolloutSpec& ro = s.faults.driver_rollouts[i];
    if (!pools.count(ro.pool))
      return r.Error(root["faults"]["driver_rollouts"][i]["pool"],
                     fmt::format("faults.driver_rollouts[{}].pool", i),
                     fmt::format("unknown pool '{}'", ro.pool));
  }
  for (size_t i = 0; i < s.traces.size(); ++i) {
    const TraceSpec& t = s.traces[i];
    if (!t.team.empty() && !teams.count(t.team))
      return r.Error(root["traces"][i]["team"], fmt::format("traces[{}].team", i),
                     fmt::format("unknown team '{}'", t.team));
    if (t.format == TraceSpec::Format::kAlibaba && t.team.empty())
      return r.Error(root["traces"][i], fmt::format("traces[{}].team", i),
                     "an alibaba trace needs a team for its pods");
  }
  return Status::Ok();
}

}  // namespace

std::vector<XidRateSpec> FaultSpec::DefaultXidRates() {
  // GPU-related causes are 58.7% of the 419; the four GPU causes the report lists (faulty GPU
  // incl. NVLink 148, HBM3 72, SRAM 19, GPU system processor 17) share it in proportion, and
  // each cause is split over the XIDs it shows up as (a modelling assumption, see
  // docs/calibration.md).
  const double gpu = kLlama3InterruptionsPerGpuHour * 0.587;
  const double listed = 148 + 72 + 19 + 17;
  const double faulty = gpu * 148 / listed, hbm = gpu * 72 / listed, sram = gpu * 19 / listed,
               gsp = gpu * 17 / listed;
  return {
      {79, faulty * 0.6},  // GPU fell off the bus: reboot.
      {74, faulty * 0.4},  // NVLink error: reset.
      {48, hbm * 0.5},     // Double-bit ECC: reset.
      {94, hbm * 0.3},     // Contained ECC: only the application restarts.
      {64, hbm * 0.2},     // Row remap failure: RMA.
      {95, sram},          // Uncontained error: reset.
      {119, gsp},          // GSP RPC timeout: reset.
  };
}

int Scenario::FindTeam(std::string_view name) const {
  for (size_t i = 0; i < teams.size(); ++i)
    if (teams[i].name == name) return static_cast<int>(i);
  return -1;
}

Result<Scenario> ParseScenario(std::string_view yaml_text, std::string_view source) {
  Reader r(source);
  YAML::Node root;
  try {
    root = YAML::Load(model::NormalizeLineEndings(yaml_text));
  } catch (const YAML::ParserException& e) {
    return MakeInputError(source, e.mark.line + 1, e.mark.column + 1, "", e.msg);
  } catch (const YAML::Exception& e) {
    return MakeInputError(source, 0, 0, "", e.what());
  }
  if (!root || root.IsNull()) return MakeInputError(source, 0, 0, "", "empty scenario");
  STEWARD_RETURN_IF_ERROR(model::CheckYamlDuplicateKeys(root, source));
  Scenario s;
  s.source = std::string(source);
  try {
    STEWARD_RETURN_IF_ERROR(ParseRoot(r, root, &s));
    STEWARD_RETURN_IF_ERROR(Validate(r, root, s));
    STEWARD_RETURN_IF_ERROR(scenario_internal::ValidateTidal(r, root, &s));
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
  for (auto& g : s.generators) {
    std::filesystem::path& csv = g.serving.traffic.csv;
    if (!csv.empty() && csv.is_relative() && source != "<default>") csv = base / csv;
  }
  STEWARD_RETURN_IF_ERROR(scenario_internal::LoadTrafficCsvs(&s));
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

namespace {

// Appends the GPU nodes of an Alibaba v2023 node list; models not declared are added.
Status AddAlibabaNodes(const std::filesystem::path& path, model::Cluster* c) {
  STEWARD_ASSIGN_OR_RETURN(CsvReader csv, CsvReader::Open(path));
  const int c_sn = csv.Column("sn"), c_cpu = csv.Column("cpu_milli"),
            c_mem = csv.Column("memory_mib"), c_gpu = csv.Column("gpu"),
            c_model = csv.Column("model");
  for (auto [col, name] :
       {std::pair{c_sn, "sn"}, std::pair{c_cpu, "cpu_milli"}, std::pair{c_mem, "memory_mib"},
        std::pair{c_gpu, "gpu"}, std::pair{c_model, "model"}})
    if (col < 0) return MakeInputError(csv.file(), 1, 0, name, "required column is missing");
  int index = 0;
  const int rack_base = c->num_racks(), leaf_base = c->num_leaves();
  while (csv.Next()) {
    const int64_t gpus = csv.Integer(c_gpu);
    const int64_t cpu = csv.Integer(c_cpu);
    const int64_t mem = csv.Integer(c_mem);
    if (!csv.status().ok()) return csv.status();
    if (gpus < 0 || gpus > place::kMaxGpusPerNode)
      return csv.Error(c_gpu, fmt::format("must lie in [0, {}]", place::kMaxGpusPerNode));
    if (gpus == 0) continue;  // CPU-only node: not part of the GPU twin.
    const std::string model_name(csv.Field(c_model));
    int model = c->FindGpuModel(model_name);
    if (model < 0) model = c->AddGpuModel({model_name, "NVIDIA-" + model_name, 0, false});
    int pool = c->FindPool("alibaba-" + model_name);
    if (pool < 0) pool = c->AddPool("alibaba-" + model_name, model);
    model::Node n;
    n.name = std::string(csv.Field(c_sn));
    n.pool = pool;
    n.model = model;
    n.rack = rack_base + index / 4;
    n.leaf = leaf_base + index / 32;
    n.nvlink_domain = static_cast<int>(c->nodes().size());
    n.gpu_capacity = n.gpu_allocatable = static_cast<int>(gpus);
    n.cpu_milli = cpu;
    n.memory_mib = mem;
    n.labels["nvidia.com/gpu.product"] = c->gpu_models()[model].product_label;
    n.labels["nvidia.com/gpu.count"] = std::to_string(gpus);
    if (c->FindNode(n.name) != model::kNoNode)
      return csv.Error(c_sn, fmt::format("duplicate node '{}'", n.name));
    c->AddNode(std::move(n));
    ++index;
  }
  return csv.status();
}

// Hands the nodes to the placement pools in listed order, each taking the next `nodes`
// unassigned nodes (of its hardware pool, if it names one) in node order; the nodes then carry
// the pool's index and a steward.io/placement-pool label. Every node must end in a pool.
Status AssignPlacementPools(const Scenario& s, model::Cluster* c) {
  const auto& pools = s.policies.pools;
  if (pools.empty()) return Status::Ok();
  const model::NodeId n = static_cast<model::NodeId>(c->nodes().size());
  std::vector<bool> taken(n, false);
  for (size_t i = 0; i < pools.size(); ++i) {
    const PlacementPoolSpec& p = pools[i];
    auto error = [&](std::string_view field, std::string what) {
      return MakeInputError(s.source, p.line, p.column,
                            fmt::format("policies.pools[{}]{}", i, field), what);
    };
    const int hw = p.hardware_pool.empty() ? -1 : c->FindPool(p.hardware_pool);
    if (!p.hardware_pool.empty() && hw < 0)
      return error(".hardware_pool", fmt::format("unknown cluster pool '{}'", p.hardware_pool));
    int got = 0;
    for (model::NodeId id = 0; id < n && (p.nodes < 0 || got < p.nodes); ++id) {
      model::Node& node = c->mutable_node(id);
      if (taken[id] || (hw >= 0 && node.pool != hw)) continue;
      taken[id] = true;
      node.placement_pool = static_cast<int>(i);
      node.labels["steward.io/placement-pool"] = p.name;
      ++got;
    }
    if (p.nodes >= 0 && got < p.nodes)
      return error(".nodes", fmt::format("asks for {} nodes but only {} left", p.nodes, got));
    if (got == 0) return error("", fmt::format("placement pool '{}' gets no nodes", p.name));
  }
  const int left = static_cast<int>(std::count(taken.begin(), taken.end(), false));
  if (left > 0)
    return MakeInputError(s.source, pools.back().line, pools.back().column, "policies.pools",
                          fmt::format("{} {} in no placement pool (leave out 'nodes' on the "
                                      "last pool to give it the rest)",
                                      left, left == 1 ? "node is" : "nodes are"));
  return Status::Ok();
}

}  // namespace

Result<model::Cluster> BuildCluster(const Scenario& scenario) {
  model::Cluster c;
  for (const auto& m : scenario.gpu_models)
    c.AddGpuModel({m.name, m.product_label, m.memory_mib, m.mig_capable});
  int rack_base = 0, leaf_base = 0;
  for (const auto& p : scenario.pools) {
    const int model = c.FindGpuModel(p.gpu_model);
    const int pool = c.AddPool(p.name, model);
    const auto& gm = scenario.gpu_models[model];
    for (int i = 0; i < p.nodes; ++i) {
      model::Node n;
      n.name = fmt::format("{}-{:04d}", p.name, i);
      n.pool = pool;
      n.model = model;
      n.rack = rack_base + i / p.nodes_per_rack;
      n.leaf = leaf_base + i / p.nodes_per_leaf;
      n.nvlink_domain = p.nvlink_per_rack ? n.rack : static_cast<int>(c.nodes().size());
      n.gpu_capacity = n.gpu_allocatable = p.gpus_per_node;
      n.cpu_milli = p.cpu_milli;
      n.memory_mib = p.memory_mib;
      n.driver_version = p.driver_version;
      n.toolkit_version = p.toolkit_version;
      n.device_plugin_version = p.device_plugin_version;
      n.taints = p.taints;
      n.labels = p.labels;
      // Labels in GPU feature discovery / NFD style, as a GPU Operator node carries them.
      n.labels["nvidia.com/gpu.present"] = "true";
      n.labels["nvidia.com/gpu.product"] = gm.product_label;
      n.labels["nvidia.com/gpu.count"] = std::to_string(p.gpus_per_node);
      n.labels["nvidia.com/gpu.memory"] = std::to_string(gm.memory_mib);
      n.labels["nvidia.com/mig.capable"] = gm.mig_capable ? "true" : "false";
      n.labels["nvidia.com/cuda.driver-version.full"] = p.driver_version;
      n.labels["steward.io/pool"] = p.name;
      n.labels["topology.kubernetes.io/zone"] = fmt::format("leaf-{}", n.leaf);
      n.labels["steward.io/rack"] = fmt::format("rack-{}", n.rack);
      c.AddNode(std::move(n));
    }
    rack_base += (p.nodes + p.nodes_per_rack - 1) / p.nodes_per_rack;
    leaf_base += (p.nodes + p.nodes_per_leaf - 1) / p.nodes_per_leaf;
  }
  if (!scenario.alibaba_nodes.empty())
    STEWARD_RETURN_IF_ERROR(AddAlibabaNodes(scenario.alibaba_nodes, &c));
  if (c.total_gpus() == 0)
    return Status::InvalidArgument(scenario.source + ": the cluster has no GPUs");
  STEWARD_RETURN_IF_ERROR(AssignPlacementPools(scenario, &c));
  return c;
}

}  // namespace steward::twin

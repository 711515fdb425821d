// A scenario's generators: arrivals, pod counts and sizes (checked counts), GPU sharing, usage.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "place/mig.h"
#include "twin/scenario_sections.h"

namespace steward::twin::scenario_yaml {
namespace {

// Bounds of the counts a generator may draw (far above any real pod or job, far below int).
constexpr double kMaxGpusPerPod = 4096;
constexpr double kMaxPodsPerWorkload = 1'000'000;

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
// pod_sets: [{name, count, gpus_per_pod, min_count}], the long form of pods x gpus_per_pod.
Status ParsePodSets(const Reader& r, const YAML::Node& n, const std::string& path,
                    GeneratorSpec* g) {
  const YAML::Node list = n["pod_sets"];
  const std::string field = path + ".pod_sets";
  if (n["pods"] || n["gpus_per_pod"])
    return r.Error(list, field, "give either pod_sets or pods and gpus_per_pod, not both");
  if (g->kind == model::WorkloadKind::kInference)
    return r.Error(list, field,
                   "an inference service's replicas are one pod set: use gpus_per_pod and "
                   "min_replicas/max_replicas");
  if (!list.IsSequence() || list.size() == 0)
    return r.Error(list, field, "must be a non-empty list");
  if (list.size() > model::kMaxPodSets)
    return r.Error(
        list, field,
        fmt::format("{} pod sets: Kueue allows at most {}", list.size(), model::kMaxPodSets));
  std::vector<double> sizes, counts;
  double total = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node ps = list[i];
    const std::string at = fmt::format("{}[{}]", field, i);
    STEWARD_RETURN_IF_ERROR(r.CheckKeys(ps, at, {"name", "count", "gpus_per_pod", "min_count"}));
    PodSetSpec s;
    STEWARD_RETURN_IF_ERROR(r.Get(ps, "name", at, &s.name, true));
    STEWARD_RETURN_IF_ERROR(r.Get(ps, "count", at, &s.count));
    STEWARD_RETURN_IF_ERROR(r.Get(ps, "gpus_per_pod", at, &s.gpus_per_pod));
    STEWARD_RETURN_IF_ERROR(r.Get(ps, "min_count", at, &s.min_count));
    if (s.name.empty() || s.name.size() > 63 ||
        !std::all_of(s.name.begin(), s.name.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
        }))
      return r.Error(ps["name"], at + ".name",
                     "must be a DNS label (lower-case letters, digits and '-', at most 63)");
    for (const PodSetSpec& other : g->pod_sets)
      if (other.name == s.name)
        return r.Error(ps["name"], at + ".name", fmt::format("pod set '{}' twice", s.name));
    if (s.count < 1 || s.count > kMaxPodsPerWorkload)
      return r.Error(ps["count"], at + ".count",
                     fmt::format("must lie in [1, {:g}]", kMaxPodsPerWorkload));
    if (s.gpus_per_pod < 1 || s.gpus_per_pod > kMaxGpusPerPod)
      return r.Error(ps["gpus_per_pod"], at + ".gpus_per_pod",
                     fmt::format("must lie in [1, {:g}]", kMaxGpusPerPod));
    if (ps["min_count"] && (s.min_count < 1 || s.min_count > s.count))
      return r.Error(ps["min_count"], at + ".min_count",
                     fmt::format("must lie in [1, count = {}]", s.count));
    total += s.count;
    if (total > kMaxPodsPerWorkload)
      return r.Error(ps["count"], at + ".count",
                     fmt::format("the pod sets hold more than {:g} pods", kMaxPodsPerWorkload));
    sizes.push_back(s.gpus_per_pod);
    counts.push_back(s.count);
    g->pod_sets.push_back(std::move(s));
  }
  g->pods = Distribution::Constant(total);
  if (std::all_of(sizes.begin(), sizes.end(), [&](double v) { return v == sizes[0]; })) {
    g->gpus_per_pod = Distribution::Constant(sizes[0]);
  } else {
    g->gpus_per_pod = Distribution{};
    g->gpus_per_pod.kind = Distribution::Kind::kChoice;
    g->gpus_per_pod.values = sizes;
    g->gpus_per_pod.weights = counts;
    g->gpus_per_pod.min = *std::min_element(sizes.begin(), sizes.end());
    g->gpus_per_pod.max = *std::max_element(sizes.begin(), sizes.end());
  }
  return Status::Ok();
}

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

// right_size: the diagnose's right-sizing, applied per workload once everything is drawn.
Status ParseRightSize(const Reader& r, const YAML::Node& n, const std::string& path,
                      GeneratorSpec* g) {
  STEWARD_RETURN_IF_ERROR(r.CheckKeys(n, path, {"to_used_gpus", "mig_profile"}));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "to_used_gpus", path, &g->right_size.to_used_gpus));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "mig_profile", path, &g->right_size.mig_profile));
  const std::string& mig = g->right_size.mig_profile;
  if (!mig.empty() && place::ParseMigProfile(mig) == place::kNoMig)
    return r.Error(n["mig_profile"], path + ".mig_profile",
                   fmt::format("unknown MIG profile '{}' ({})", mig, place::MigProfileNames()));
  if (!mig.empty() && !g->mig_profile.empty())
    return r.Error(n["mig_profile"], path + ".mig_profile",
                   "is exclusive with the generator's own mig_profile");
  return Status::Ok();
}

}  // namespace

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
                                       "pod_sets",
                                       "duration_hours",
                                       "checkpoint_interval_minutes",
                                       "restore_minutes",
                                       "gpu_model",
                                       "topology",
                                       "gpu_milli",
                                       "mig_profile",
                                       "cpu_milli",
                                       "memory_mib",
                                       "extended_resources",
                                       "usage",
                                       "right_size",
                                       "min_replicas",
                                       "max_replicas",
                                       "peak_hour",
                                       "labels",
                                       "pod_group",
                                       "pod_creation_seconds",
                                       "startup_jitter_seconds",
                                       "elastic",
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
  if (n["pod_sets"]) STEWARD_RETURN_IF_ERROR(ParsePodSets(r, n, path, g));
  g->duration_hours.min = std::max(g->duration_hours.min, 1.0 / 60);
  STEWARD_RETURN_IF_ERROR(
      r.Get(n, "checkpoint_interval_minutes", path, &g->checkpoint_interval_minutes));
  STEWARD_RETURN_IF_ERROR(
      Positive(r, n, path + ".checkpoint_interval_minutes", g->checkpoint_interval_minutes, true));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "restore_minutes", path, &g->restore_minutes));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "gpu_model", path, &g->gpu_model));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "cpu_milli", path, &g->cpu_milli));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "memory_mib", path, &g->memory_mib));
  constexpr int64_t kMaxPerPod = std::numeric_limits<int32_t>::max();  // PodAllocation's width.
  if (g->cpu_milli < 0 || g->cpu_milli > kMaxPerPod)
    return r.Error(n["cpu_milli"], path + ".cpu_milli",
                   fmt::format("must lie in [0, {}]", kMaxPerPod));
  if (g->memory_mib < 0 || g->memory_mib > kMaxPerPod)
    return r.Error(n["memory_mib"], path + ".memory_mib",
                   fmt::format("must lie in [0, {}]", kMaxPerPod));
  STEWARD_RETURN_IF_ERROR(ParseExtendedResources(r, n, path, 1, &g->extended_resources));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "pod_group", path, &g->pod_group));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "pod_creation_seconds", path, &g->pod_creation_seconds));
  STEWARD_RETURN_IF_ERROR(
      Positive(r, n, path + ".pod_creation_seconds", g->pod_creation_seconds, true));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "startup_jitter_seconds", path, &g->startup_jitter_seconds));
  STEWARD_RETURN_IF_ERROR(
      Positive(r, n, path + ".startup_jitter_seconds", g->startup_jitter_seconds, true));
  // Elastic training: resizable down to its pod set's min_count while it runs.
  STEWARD_RETURN_IF_ERROR(r.Get(n, "elastic", path, &g->elastic));
  if (g->elastic) {
    if (g->kind != model::WorkloadKind::kTraining)
      return r.Error(n["elastic"], path + ".elastic",
                     "only training is elastic (an inference service scales by replicas)");
    // The pod set that resizes is the first with a min_count (model::Workload::ElasticPodSet).
    auto set = std::find_if(g->pod_sets.begin(), g->pod_sets.end(),
                            [](const PodSetSpec& ps) { return ps.min_count > 0; });
    if (set == g->pod_sets.end() || set->min_count >= set->count)
      return r.Error(n["elastic"], path + ".elastic",
                     "needs pod_sets whose first min_count is below its count (the fewest "
                     "workers the job may shrink to)");
  }
  std::string topology = "none";
  STEWARD_RETURN_IF_ERROR(r.Get(n, "topology", path, &topology));
  if (!model::ParseTopology(topology, &g->topology))
    return r.Error(n["topology"], path + ".topology",
                   fmt::format("unknown topology '{}' (none, nvlink, leaf)", topology));
  STEWARD_RETURN_IF_ERROR(ParseSharing(r, n, path, g));
  if (YAML::Node u = n["usage"])
    STEWARD_RETURN_IF_ERROR(ParseUsage(r, u, path + ".usage", &g->usage));
  if (YAML::Node rs = n["right_size"])
    STEWARD_RETURN_IF_ERROR(ParseRightSize(r, rs, path + ".right_size", g));
  STEWARD_RETURN_IF_ERROR(ParseLabels(r, n, "labels", path, &g->labels));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "min_replicas", path, &g->min_replicas));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "max_replicas", path, &g->max_replicas));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "peak_hour", path, &g->peak_hour));
  if (g->kind == model::WorkloadKind::kInference &&
      (g->min_replicas < 1 || g->max_replicas < g->min_replicas))
    return r.Error(n, path, "inference needs 1 <= min_replicas <= max_replicas");
  return ParseServing(r, n, path, g);
}

}  // namespace steward::twin::scenario_yaml

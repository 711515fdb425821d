#include "snapshot/usage_profiles.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace steward::snapshot {
namespace {

std::string LabelOf(const telemetry::PromLabels& m, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (auto it = m.find(k); it != m.end() && !it->second.empty()) return it->second;
  return "";
}

using Key = std::tuple<std::string, std::string, std::string>;  // namespace, pod, GPU.

}  // namespace

Result<std::vector<GpuReading>> ReadGpuUsage(const telemetry::PrometheusClient& prometheus,
                                             const UsageReadOptions& options) {
  std::map<Key, GpuReading> by_gpu;
  struct Query {
    const char* metric;
    const std::string* window;
    std::optional<double> GpuReading::*field;
  };
  const Query queries[] = {
      {"DCGM_FI_DEV_GPU_UTIL", &options.window, &GpuReading::util_mean},
      {"DCGM_FI_DEV_GPU_UTIL", &options.recent, &GpuReading::util_recent},
      {"DCGM_FI_PROF_SM_ACTIVE", &options.window, &GpuReading::sm_mean},
      {"DCGM_FI_PROF_SM_ACTIVE", &options.recent, &GpuReading::sm_recent},
  };
  for (const Query& q : queries) {
    // Only GPUs held by a pod: dcgm-exporter leaves pod empty on free GPUs.
    const std::string promql =
        fmt::format("avg_over_time({}{{pod!=\"\"}}[{}])", q.metric, *q.window);
    STEWARD_ASSIGN_OR_RETURN(telemetry::PromQueryResult r, prometheus.Query(promql));
    if (r.vector.empty() && q.field == &GpuReading::util_mean)
      return Status::NotFound(fmt::format(
          "{} at {} matched nothing: no DCGM_FI_DEV_GPU_UTIL series with a pod label in the "
          "last {} (is dcgm-exporter scraped, with pod labels on?)",
          promql, prometheus.url(), *q.window));
    for (const telemetry::PromSample& s : r.vector) {
      if (!std::isfinite(s.point.value)) continue;
      const std::string ns = LabelOf(s.metric, {"namespace", "exported_namespace"});
      const std::string pod = LabelOf(s.metric, {"pod", "exported_pod"});
      std::string gpu = LabelOf(s.metric, {"UUID", "uuid"});
      if (gpu.empty())
        gpu = LabelOf(s.metric, {"Hostname", "hostname", "kubernetes_node"}) + "/" +
              LabelOf(s.metric, {"gpu"});
      if (ns.empty() || pod.empty()) continue;
      GpuReading& g = by_gpu[{ns, pod, gpu}];
      g.namespace_name = ns;
      g.pod = pod;
      g.gpu = gpu;
      g.*(q.field) = s.point.value;
    }
  }
  std::vector<GpuReading> out;
  out.reserve(by_gpu.size());
  for (auto& [key, g] : by_gpu) out.push_back(std::move(g));
  return out;
}

UsageFit FitUsageProfiles(const std::vector<GpuReading>& readings, SnapshotWorkloads* workloads,
                          const UsageFitOptions& options) {
  std::map<std::pair<std::string, std::string>, std::vector<const GpuReading*>> by_pod;
  bool any_sm = false;
  for (const GpuReading& g : readings) {
    if (g.util_mean) by_pod[{g.namespace_name, g.pod}].push_back(&g);
    any_sm = any_sm || g.sm_mean.has_value();
  }
  UsageFit fit;
  fit.sm_active_missing = !readings.empty() && !any_sm;
  for (SnapshotWorkload& w : workloads->workloads) {
    if (!w.running || w.pod_names.empty()) continue;
    std::vector<const GpuReading*> gpus;
    bool complete = true;
    for (const std::string& pod : w.pod_names) {
      auto it = by_pod.find({w.namespace_name, pod});
      if (it == by_pod.end()) {
        complete = false;
        break;
      }
      gpus.insert(gpus.end(), it->second.begin(), it->second.end());
    }
    if (!complete) {
      ++fit.without_data;
      continue;
    }
    model::UsageProfile u;
    double util_used = 0, sm_used = 0, recent_util = 0, recent_sm = 0;
    int used = 0, sm_n = 0, recent_util_n = 0, recent_sm_n = 0;
    for (const GpuReading* g : gpus) {
      if (*g->util_mean > options.used_util_percent) {
        ++used;
        util_used += *g->util_mean;
        if (g->sm_mean) sm_used += *g->sm_mean, ++sm_n;
      }
      if (g->util_recent) recent_util += *g->util_recent, ++recent_util_n;
      if (g->sm_recent) recent_sm += *g->sm_recent, ++recent_sm_n;
    }
    const double n = static_cast<double>(gpus.size());
    u.used_gpu_fraction = used / n;
    u.busy = used > 0 ? std::clamp(util_used / used / 100, 0.0, 1.0) : 0;
    u.sm_active = sm_n > 0 ? std::clamp(sm_used / sm_n, 0.0, 1.0) : std::min(0.5, u.busy);
    u.sm_active = std::min(u.sm_active, u.busy);
    const double util_now = recent_util_n > 0 ? recent_util / recent_util_n : *gpus[0]->util_mean;
    const bool idle_now =
        (recent_sm_n > 0 ? recent_sm / recent_sm_n < options.idle_sm_below : used == 0) &&
        util_now < options.idle_util_percent;
    if (idle_now || used == 0) {
      u.active_duration = SimDuration();
      u.idle_busy = std::clamp(util_now / 100, 0.0, 1.0);
      ++fit.idle_now;
    }
    w.usage = u;
    ++fit.profiled;
  }
  if (fit.without_data > 0)
    fit.notes.push_back(
        fmt::format("{} running workload(s) with a pod DCGM shows nothing for: trace defaults used",
                    fit.without_data));
  if (fit.sm_active_missing)
    fit.notes.push_back(
        "no DCGM_FI_PROF_SM_ACTIVE (profiling metrics off?): SM-active left at the default, "
        "capped at the measured utilization");
  if (fit.profiled > 0)
    fit.notes.push_back(
        fmt::format("usage profiles from DCGM history for {} workload(s), {} idle at the snapshot",
                    fit.profiled, fit.idle_now));
  return fit;
}

}  // namespace steward::snapshot

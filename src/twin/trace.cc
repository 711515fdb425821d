#include "twin/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "twin/csv.h"

namespace steward::twin {
namespace {

Result<int> RequireColumn(const CsvReader& csv, std::string_view name) {
  const int c = csv.Column(name);
  if (c < 0) return MakeInputError(csv.file(), 1, 0, name, "required column is missing");
  return c;
}

// The next non-empty entry of a CSV field that holds several, separated by ';' (`a=1;b=2`);
// false when none is left.
bool NextEntry(std::string_view* text, std::string_view* entry) {
  while (!text->empty()) {
    const size_t end = std::min(text->find(';'), text->size());
    *entry = text->substr(0, end);
    text->remove_prefix(std::min(end + 1, text->size()));
    if (!entry->empty()) return true;
  }
  return false;
}

// The labels column: `key=value` pairs separated by ';' (a CSV field holds no map).
Status ParseLabels(const CsvReader& csv, int column, std::map<std::string, std::string>* out) {
  std::string_view text = csv.Field(column), pair;
  while (NextEntry(&text, &pair)) {
    const size_t eq = pair.find('=');
    if (eq == 0 || eq == std::string_view::npos)
      return csv.Error(column, fmt::format("'{}' is not key=value (pairs separated by ';')", pair));
    (*out)[std::string(pair.substr(0, eq))] = std::string(pair.substr(eq + 1));
  }
  return Status::Ok();
}

constexpr int64_t kMaxGpusPerPod = 64;  // The trace's bound on gpus_per_pod.
constexpr int64_t kMaxPodsPerWorkload = 1'000'000;

// A DNS label, as Kueue's pod set names are.
bool IsDnsLabel(std::string_view s) {
  return !s.empty() && s.size() <= 63 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

// The pod_sets column: `name:count:gpus_per_pod[:min_count]` entries separated by ';' (the
// generators' `pod_sets: [{name, count, gpus_per_pod, min_count}]` in one CSV field), e.g.
// `launcher:1:1;worker:4:8:2`.
Status ParsePodSets(const CsvReader& csv, int column, std::vector<model::PodSet>* out) {
  std::string_view text = csv.Field(column), entry;
  int64_t total = 0;
  while (NextEntry(&text, &entry)) {
    const size_t a = entry.find(':');
    const size_t b = a == std::string_view::npos ? a : entry.find(':', a + 1);
    const size_t c = b == std::string_view::npos ? b : entry.find(':', b + 1);
    if (b == std::string_view::npos ||
        (c != std::string_view::npos && entry.find(':', c + 1) != std::string_view::npos))
      return csv.Error(column, fmt::format("'{}' is not name:count:gpus_per_pod[:min_count] (pod "
                                           "sets separated by ';', e.g. launcher:1:1;worker:4:8:2)",
                                           entry));
    const std::string_view name = entry.substr(0, a);
    if (!IsDnsLabel(name))
      return csv.Error(column, fmt::format("pod set name '{}' must be a DNS label (lower-case "
                                           "letters, digits and '-', at most 63)",
                                           name));
    for (const model::PodSet& other : *out)
      if (other.name == name) return csv.Error(column, fmt::format("pod set '{}' twice", name));
    if (out->size() == model::kMaxPodSets)
      return csv.Error(column,
                       fmt::format("more than {} pod sets (Kueue's limit)", model::kMaxPodSets));
    auto integer = [&](std::string_view v, const char* what, int64_t lo, int64_t hi,
                       int64_t* value) -> Status {
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), *value);
      if (ec != std::errc() || p != v.data() + v.size() || v.empty())
        return csv.Error(column,
                         fmt::format("pod set '{}': {} '{}' is not an integer", name, what, v));
      if (*value < lo || *value > hi)
        return csv.Error(column, fmt::format("pod set '{}': {} {} must lie in [{}, {}]", name, what,
                                             *value, lo, hi));
      return Status::Ok();
    };
    int64_t count = 0, gpus = 0;
    STEWARD_RETURN_IF_ERROR(
        integer(entry.substr(a + 1, b - a - 1), "count", 1, kMaxPodsPerWorkload, &count));
    STEWARD_RETURN_IF_ERROR(
        integer(entry.substr(b + 1, c == std::string_view::npos ? c : c - b - 1), "gpus_per_pod", 1,
                kMaxGpusPerPod, &gpus));
    int64_t min_count = 0;
    if (c != std::string_view::npos)
      STEWARD_RETURN_IF_ERROR(integer(entry.substr(c + 1), "min_count", 1, count, &min_count));
    total += count;
    if (total > kMaxPodsPerWorkload)
      return csv.Error(column,
                       fmt::format("the pod sets hold more than {} pods", kMaxPodsPerWorkload));
    out->push_back({std::string(name), static_cast<int>(count), static_cast<int>(gpus)});
    out->back().min_count = static_cast<int>(min_count);
  }
  if (out->empty()) return csv.Error(column, "no pod set (name:count:gpus_per_pod;...)");
  return Status::Ok();
}

// The extended_resources column: `name=count` entries separated by ';' (the generators'
// `extended_resources` map in one CSV field), e.g. `example.com/fpga=1;rdma/ib=2`. Each name
// must be one the cluster's nodes have, and the count at most `node_max` of it.
Status ParseExtendedColumn(const CsvReader& csv, int column, const model::Cluster& cluster,
                           const model::ExtendedAmounts& node_max,
                           std::map<std::string, int64_t>* out) {
  std::string_view text = csv.Field(column), entry;
  while (NextEntry(&text, &entry)) {
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos)
      return csv.Error(column,
                       fmt::format("'{}' is not name=count (e.g. example.com/fpga=1)", entry));
    const std::string name(entry.substr(0, eq));
    const std::string_view count_text = entry.substr(eq + 1);
    int64_t count = 0;
    auto [p, ec] = std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
    if (ec != std::errc() || p != count_text.data() + count_text.size() || count < 1 ||
        count > std::numeric_limits<int32_t>::max())
      return csv.Error(column, fmt::format("{}: '{}' is not a whole count >= 1", name, count_text));
    const int slot = cluster.ExtendedSlot(name);
    if (slot < 0)
      return csv.Error(column, fmt::format("no node has extended resource '{}' "
                                           "(cluster.pools[].extended_resources)",
                                           name));
    if (count > node_max[slot])
      return csv.Error(column, fmt::format("a pod of {} {} is larger than any node: the largest "
                                           "has {}",
                                           count, name, node_max[slot]));
    if (!out->emplace(name, count).second)
      return csv.Error(column, fmt::format("'{}' given twice", name));
  }
  return Status::Ok();
}

Status LoadSteward(CsvReader& csv, const TraceSpec& spec, const Scenario& scenario,
                   const model::Cluster& cluster, TraceLoad* out) {
  STEWARD_ASSIGN_OR_RETURN(const int c_submit, RequireColumn(csv, "submit_seconds"));
  STEWARD_ASSIGN_OR_RETURN(const int c_name, RequireColumn(csv, "name"));
  STEWARD_ASSIGN_OR_RETURN(const int c_team, RequireColumn(csv, "team"));
  STEWARD_ASSIGN_OR_RETURN(const int c_kind, RequireColumn(csv, "kind"));
  // With a pod_sets column, gpus_per_pod may be left out (every row then gives pod_sets).
  const int c_pod_sets = csv.Column("pod_sets");
  int c_gpus = csv.Column("gpus_per_pod");
  if (c_pod_sets < 0) {
    STEWARD_ASSIGN_OR_RETURN(c_gpus, RequireColumn(csv, "gpus_per_pod"));
  }
  STEWARD_ASSIGN_OR_RETURN(const int c_duration, RequireColumn(csv, "duration_seconds"));
  const int c_pods = csv.Column("pods"), c_model = csv.Column("gpu_model"),
            c_tier = csv.Column("tier"), c_prio = csv.Column("priority_class"),
            c_ckpt = csv.Column("checkpoint_minutes"), c_restore = csv.Column("restore_minutes"),
            c_sm = csv.Column("sm_active"), c_busy = csv.Column("busy"),
            c_used = csv.Column("used_gpu_fraction"), c_active = csv.Column("active_hours"),
            c_min = csv.Column("min_replicas"), c_max = csv.Column("max_replicas"),
            c_queue = csv.Column("queue"), c_labels = csv.Column("labels"),
            c_idle_busy = csv.Column("idle_busy"), c_cpu = csv.Column("cpu_milli"),
            c_memory = csv.Column("memory_mib"), c_extended = csv.Column("extended_resources"),
            c_elastic = csv.Column("elastic");
  auto fraction = [&](int c, double def, double* out_value) -> Status {
    if (c < 0 || csv.Field(c).empty()) {
      *out_value = def;
      return Status::Ok();
    }
    *out_value = csv.Number(c);
    if (!csv.status().ok()) return csv.status();
    if (*out_value < 0 || *out_value > 1) return csv.Error(c, "must lie in [0, 1]");
    return Status::Ok();
  };
  // The largest node of each GPU model, and of any: a pod must fit on one node.
  std::vector<int> largest(cluster.gpu_models().size(), 0);
  int largest_any = 0;
  for (const model::Node& n : cluster.nodes()) {
    if (n.model >= 0 && n.model < static_cast<int>(largest.size()))
      largest[n.model] = std::max(largest[n.model], n.gpu_capacity);
    largest_any = std::max(largest_any, n.gpu_capacity);
  }
  // The most CPU and memory a node of each GPU model (and of any) has.
  std::vector<int64_t> cpu_of(largest.size(), 0), memory_of(largest.size(), 0);
  int64_t cpu_any = 0, memory_any = 0;
  // And the most of each extended resource.
  std::vector<model::ExtendedAmounts> extended_of(largest.size());
  model::ExtendedAmounts extended_any{};
  for (const model::Node& n : cluster.nodes()) {
    if (n.model >= 0 && n.model < static_cast<int>(cpu_of.size())) {
      cpu_of[n.model] = std::max(cpu_of[n.model], n.cpu_milli);
      memory_of[n.model] = std::max(memory_of[n.model], n.memory_mib);
      for (int i = 0; i < model::kMaxExtendedResources; ++i)
        extended_of[n.model][i] = std::max(extended_of[n.model][i], n.extended[i]);
    }
    cpu_any = std::max(cpu_any, n.cpu_milli);
    memory_any = std::max(memory_any, n.memory_mib);
    for (int i = 0; i < model::kMaxExtendedResources; ++i)
      extended_any[i] = std::max(extended_any[i], n.extended[i]);
  }
  while (csv.Next()) {
    model::Workload w;
    w.name = std::string(csv.Field(c_name));
    const std::string team(csv.Field(c_team));
    w.team = scenario.FindTeam(team);
    if (w.team < 0) return csv.Error(c_team, fmt::format("unknown team '{}'", team));
    w.namespace_name = scenario.teams[w.team].namespace_name;
    w.queue = c_queue >= 0 && !csv.Field(c_queue).empty() ? std::string(csv.Field(c_queue))
                                                          : scenario.teams[w.team].name;
    if (!model::ParseKind(csv.Field(c_kind), &w.kind))
      return csv.Error(c_kind, fmt::format("unknown kind '{}'", csv.Field(c_kind)));
    w.tier = w.kind == model::WorkloadKind::kInference  ? model::Tier::kProduction
             : w.kind == model::WorkloadKind::kTraining ? model::Tier::kTraining
                                                        : model::Tier::kDev;
    if (c_tier >= 0 && !csv.Field(c_tier).empty() && !model::ParseTier(csv.Field(c_tier), &w.tier))
      return csv.Error(c_tier, fmt::format("unknown tier '{}'", csv.Field(c_tier)));
    w.priority_class = c_prio >= 0 && !csv.Field(c_prio).empty() ? std::string(csv.Field(c_prio))
                                                                 : std::string(TierName(w.tier));
    const double submit = csv.Number(c_submit);
    const double duration = csv.Number(c_duration);
    const bool has_pods = c_pods >= 0 && !csv.Field(c_pods).empty();
    const int64_t pods = has_pods ? csv.Integer(c_pods) : 1;
    // The long form: several pod sets in the pod_sets column; the short form stays one pod
    // set of `pods` x `gpus_per_pod`.
    std::vector<model::PodSet> pod_sets;
    int64_t gpus = 0;
    if (c_pod_sets >= 0 && !csv.Field(c_pod_sets).empty()) {
      if (has_pods || (c_gpus >= 0 && !csv.Field(c_gpus).empty()))
        return csv.Error(c_pod_sets, "give either pod_sets or pods and gpus_per_pod, not both");
      if (w.kind == model::WorkloadKind::kInference)
        return csv.Error(c_pod_sets,
                         "an inference service's replicas are one pod set: use gpus_per_pod and "
                         "min_replicas/max_replicas");
      STEWARD_RETURN_IF_ERROR(ParsePodSets(csv, c_pod_sets, &pod_sets));
    } else if (c_gpus < 0) {
      return csv.Error(c_pod_sets, "empty: give the row's pod sets (or add a gpus_per_pod column)");
    } else {
      gpus = csv.Integer(c_gpus);
    }
    if (!csv.status().ok()) return csv.status();
    if (submit < 0) return csv.Error(c_submit, "must be >= 0");
    if (pod_sets.empty() && (gpus < 1 || gpus > kMaxGpusPerPod))
      return csv.Error(c_gpus, "must lie in [1, 64]");
    if (duration <= 0) return csv.Error(c_duration, "must be > 0");
    if (pods < 1) return csv.Error(c_pods, "must be >= 1");
    w.submit_time = kSimStart + SecondsF(submit * spec.time_scale);
    w.duration = SecondsF(duration * spec.time_scale);
    if (c_model >= 0 && !csv.Field(c_model).empty()) {
      w.gpu_model = cluster.FindGpuModel(csv.Field(c_model));
      if (w.gpu_model < 0)
        return csv.Error(c_model, fmt::format("unknown GPU model '{}'", csv.Field(c_model)));
    }
    if (w.gpu_model >= 0 && largest[w.gpu_model] == 0)
      return csv.Error(c_model, fmt::format("no node has GPU model '{}'", csv.Field(c_model)));
    const int fit = w.gpu_model >= 0 ? largest[w.gpu_model] : largest_any;
    auto too_large = [&](int column, int64_t pod_gpus, std::string_view which) {
      return csv.Error(
          column,
          fmt::format("a pod of {} GPUs{} is larger than any node: the largest {}has {} GPUs, "
                      "and a pod runs on one node",
                      pod_gpus, which,
                      w.gpu_model >= 0 ? fmt::format("node of GPU model '{}' ", csv.Field(c_model))
                                       : std::string(),
                      fit));
    };
    for (const model::PodSet& ps : pod_sets)
      if (ps.gpus_per_pod > fit)
        return too_large(c_pod_sets, ps.gpus_per_pod, fmt::format(" (pod set '{}')", ps.name));
    if (pod_sets.empty() && gpus > fit) return too_large(c_gpus, gpus, "");
    if (w.kind == model::WorkloadKind::kInference) {
      w.min_replicas = c_min >= 0 && !csv.Field(c_min).empty() ? csv.Integer(c_min) : pods;
      w.max_replicas =
          c_max >= 0 && !csv.Field(c_max).empty() ? csv.Integer(c_max) : w.min_replicas;
      if (!csv.status().ok()) return csv.status();
      if (w.min_replicas < 1 || w.max_replicas < w.min_replicas)
        return csv.Error(c_max >= 0 ? c_max : c_gpus, "needs 1 <= min_replicas <= max_replicas");
      w.pod_sets = {{"replica", w.min_replicas, static_cast<int>(gpus)}};
    } else if (!pod_sets.empty()) {
      w.pod_sets = std::move(pod_sets);
    } else {
      w.pod_sets = {{pods > 1 ? "worker" : "main", static_cast<int>(pods), static_cast<int>(gpus)}};
    }
    double ckpt = 0, restore = 0;
    if (c_ckpt >= 0 && !csv.Field(c_ckpt).empty()) ckpt = csv.Number(c_ckpt);
    if (c_restore >= 0 && !csv.Field(c_restore).empty()) restore = csv.Number(c_restore);
    if (!csv.status().ok()) return csv.status();
    if (ckpt < 0) return csv.Error(c_ckpt, "must be >= 0");
    if (restore < 0) return csv.Error(c_restore, "must be >= 0");
    w.checkpoint_interval = SecondsF(ckpt * 60);
    w.restore_time = SecondsF(restore * 60);
    if (c_elastic >= 0 && !csv.Field(c_elastic).empty()) {
      const std::string_view e = csv.Field(c_elastic);
      if (e != "true" && e != "false")
        return csv.Error(c_elastic, fmt::format("'{}' is not true or false", e));
      w.elastic = e == "true";
      const int set = w.ElasticPodSet();
      if (w.elastic && w.kind != model::WorkloadKind::kTraining)
        return csv.Error(c_elastic, "only training is elastic");
      if (w.elastic && (set < 0 || w.pod_sets[set].min_count >= w.pod_sets[set].count))
        return csv.Error(c_elastic,
                         "needs pod_sets whose first min_count is below its count (the fewest "
                         "workers the job may shrink to)");
    }
    STEWARD_RETURN_IF_ERROR(fraction(c_sm, 0.5, &w.usage.sm_active));
    STEWARD_RETURN_IF_ERROR(fraction(c_busy, 0.9, &w.usage.busy));
    STEWARD_RETURN_IF_ERROR(fraction(c_used, 1.0, &w.usage.used_gpu_fraction));
    STEWARD_RETURN_IF_ERROR(fraction(c_idle_busy, 0.0, &w.usage.idle_busy));
    w.usage.sm_active = std::min(w.usage.sm_active, w.usage.busy);
    if (c_active >= 0 && !csv.Field(c_active).empty()) {
      const double active = csv.Number(c_active);
      if (!csv.status().ok()) return csv.status();
      if (active < 0) return csv.Error(c_active, "must be >= 0");
      w.usage.active_duration = SecondsF(active * 3600 * spec.time_scale);
    }
    if (c_labels >= 0) {
      model::LabelMap::Map labels;
      STEWARD_RETURN_IF_ERROR(ParseLabels(csv, c_labels, &labels));
      w.labels = std::move(labels);
    }
    // CPU and memory per pod (every pod set's), as the generators' cpu_milli / memory_mib.
    for (const auto& [c, name, node_max] :
         {std::tuple{c_cpu, "milli-CPU", w.gpu_model >= 0 ? cpu_of[w.gpu_model] : cpu_any},
          std::tuple{c_memory, "MiB", w.gpu_model >= 0 ? memory_of[w.gpu_model] : memory_any}}) {
      if (c < 0 || csv.Field(c).empty()) continue;
      const int64_t v = csv.Integer(c);
      if (!csv.status().ok()) return csv.status();
      if (v < 0 || v > std::numeric_limits<int32_t>::max())
        return csv.Error(c,
                         fmt::format("must lie in [0, {}]", std::numeric_limits<int32_t>::max()));
      if (v > node_max)
        return csv.Error(
            c, fmt::format("a pod of {} {} is larger than any node: the largest has {}", v, name,
                           node_max));
      for (model::PodSet& ps : w.pod_sets) (c == c_cpu ? ps.cpu_milli : ps.memory_mib) = v;
    }
    if (c_extended >= 0 && !csv.Field(c_extended).empty()) {
      std::map<std::string, int64_t> extended;
      STEWARD_RETURN_IF_ERROR(ParseExtendedColumn(
          csv, c_extended, cluster, w.gpu_model >= 0 ? extended_of[w.gpu_model] : extended_any,
          &extended));
      for (model::PodSet& ps : w.pod_sets) ps.extended_resources = extended;
    }
    out->workloads.push_back(std::move(w));
  }
  return csv.status();
}

// The Alibaba v2023 pod list: name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,
// pod_phase,creation_time,deletion_time,scheduled_time (seconds).
Status LoadAlibaba(CsvReader& csv, const TraceSpec& spec, const Scenario& scenario,
                   const model::Cluster& cluster, TraceLoad* out) {
  int cols[7];
  const char* names[7] = {"name",          "num_gpu",       "gpu_milli",     "gpu_spec",
                          "creation_time", "deletion_time", "scheduled_time"};
  for (int i = 0; i < 7; ++i) {
    STEWARD_ASSIGN_OR_RETURN(cols[i], RequireColumn(csv, names[i]));
  }
  const int team = scenario.FindTeam(spec.team);
  while (csv.Next()) {
    const int64_t num_gpu = csv.Integer(cols[1]);
    const int64_t gpu_milli = csv.Field(cols[2]).empty() ? 0 : csv.Integer(cols[2]);
    const int64_t created = csv.Integer(cols[4]);
    const int64_t deleted = csv.Integer(cols[5]);
    const int64_t scheduled = csv.Field(cols[6]).empty() ? created : csv.Integer(cols[6]);
    if (!csv.status().ok()) return csv.status();
    if (num_gpu < 0 || num_gpu > 64) return csv.Error(cols[1], "must lie in [0, 64]");
    if (gpu_milli < 0 || gpu_milli > 1000) return csv.Error(cols[2], "must lie in [0, 1000]");
    if (deleted < created) return csv.Error(cols[5], "is before creation_time");
    if (num_gpu == 0) {
      ++out->skipped_cpu_only;
      continue;
    }
    model::Workload w;
    w.name = std::string(csv.Field(cols[0]));
    w.team = team;
    w.namespace_name = scenario.teams[team].namespace_name;
    w.queue = spec.queue.empty() ? scenario.teams[team].name : spec.queue;
    w.kind = model::WorkloadKind::kBatch;
    w.tier = model::Tier::kDev;
    w.priority_class = "dev";
    w.submit_time = kSimStart + SecondsF(static_cast<double>(created) * spec.time_scale);
    const int64_t run = std::max<int64_t>(1, deleted - std::max(created, scheduled));
    w.duration = SecondsF(static_cast<double>(run) * spec.time_scale);
    w.pod_sets = {{"main", 1, static_cast<int>(num_gpu)}};
    // The twin allocates whole GPUs; a shared-GPU pod (gpu_milli < 1000) holds one GPU and
    // drives only its share of it, which is what over-request looks like in the report.
    if (num_gpu == 1 && gpu_milli > 0 && gpu_milli < 1000)
      w.usage.used_gpu_fraction = static_cast<double>(gpu_milli) / 1000.0;
    // gpu_spec "V100M16|V100M32": the twin honours a single model; a list allows any of them,
    // so it keeps the first model the cluster has.
    const std::string_view gspec = csv.Field(cols[3]);
    if (!gspec.empty()) {
      size_t start = 0;
      while (start <= gspec.size()) {
        size_t bar = gspec.find('|', start);
        if (bar == std::string_view::npos) bar = gspec.size();
        const int m = cluster.FindGpuModel(gspec.substr(start, bar - start));
        if (m >= 0) {
          w.gpu_model = m;
          break;
        }
        start = bar + 1;
      }
    }
    out->workloads.push_back(std::move(w));
  }
  return csv.status();
}

}  // namespace

Result<TraceLoad> LoadTrace(const TraceSpec& spec, const Scenario& scenario,
                            const model::Cluster& cluster) {
  STEWARD_ASSIGN_OR_RETURN(CsvReader csv, CsvReader::Open(spec.path));
  TraceLoad out;
  if (spec.format == TraceSpec::Format::kSteward) {
    STEWARD_RETURN_IF_ERROR(LoadSteward(csv, spec, scenario, cluster, &out));
  } else {
    STEWARD_RETURN_IF_ERROR(LoadAlibaba(csv, spec, scenario, cluster, &out));
  }
  std::stable_sort(out.workloads.begin(), out.workloads.end(),
                   [](const auto& a, const auto& b) { return a.submit_time < b.submit_time; });
  return out;
}

}  // namespace steward::twin

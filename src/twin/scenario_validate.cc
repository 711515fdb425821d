// Checks across a whole scenario: names that must resolve, duplicates that must not exist, and
// pods that must fit on a node (issue 16).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "model/extended_resources.h"
#include "twin/scenario_sections.h"

namespace steward::twin::scenario_yaml {
namespace {

// The largest number of GPUs a pod of `d` may ask for, and the smallest (what a draw is
// clamped to; unbounded shapes are capped when read, so their largest draw is their cap).
double LargestDraw(const Distribution& d) {
  switch (d.kind) {
    case Distribution::Kind::kConstant:
      return d.value;
    case Distribution::Kind::kChoice: {
      double v = 0;  // A choice draws its values as they are (no clamp).
      for (size_t i = 0; i < d.values.size(); ++i)
        if (i >= d.weights.size() || d.weights[i] > 0) v = std::max(v, d.values[i]);
      return v;
    }
    default:
      return d.max;
  }
}
double SmallestDraw(const Distribution& d) {
  switch (d.kind) {
    case Distribution::Kind::kConstant:
      return d.value;
    case Distribution::Kind::kChoice: {
      double v = 1e300;
      for (size_t i = 0; i < d.values.size(); ++i)
        if (i >= d.weights.size() || d.weights[i] > 0) v = std::min(v, d.values[i]);
      return v;
    }
    default:
      return d.min;
  }
}

// A generator's pods must fit on one node of the GPU model it asks for (any model when it
// names none): the model must be on some node, and the pods it draws no larger than the
// largest such node. Bounded shapes (constant, choice, uniform) are checked at their largest
// draw; exponential and lognormal, whose tail is capped, at their smallest.
Status CheckPodFits(const Reader& r, const YAML::Node& n, const std::string& path,
                    const Scenario& s, const GeneratorSpec& g) {
  // Extended resources: some node of the model must have as many (an Alibaba node list has
  // none).
  for (const auto& [name, count] : g.extended_resources) {
    int64_t most = 0;
    for (const PoolSpec& p : s.pools)
      if (g.gpu_model.empty() || p.gpu_model == g.gpu_model)
        if (auto it = p.extended_resources.find(name); it != p.extended_resources.end())
          most = std::max(most, it->second);
    if (count > most)
      return r.Error(n["extended_resources"][name], path + ".extended_resources." + name,
                     fmt::format("a pod asks for {} {} but the most any {}node has is {} "
                                 "(cluster.pools[].extended_resources)",
                                 count, name,
                                 g.gpu_model.empty() ? std::string()
                                                     : fmt::format("GPU model '{}' ", g.gpu_model),
                                 most));
  }
  if (!s.alibaba_nodes.empty()) return Status::Ok();  // Node sizes known once the list is read.
  int largest = 0;
  for (const PoolSpec& p : s.pools)
    if (g.gpu_model.empty() || p.gpu_model == g.gpu_model)
      largest = std::max(largest, p.gpus_per_node);
  if (largest == 0)
    return r.Error(
        n["gpu_model"], path + ".gpu_model",
        fmt::format("no node has GPU model '{}' (no pool of cluster.pools is of it)", g.gpu_model));
  const Distribution& d = g.gpus_per_pod;
  const bool bounded = d.kind == Distribution::Kind::kConstant ||
                       d.kind == Distribution::Kind::kChoice ||
                       d.kind == Distribution::Kind::kUniform;
  const double pod = bounded ? LargestDraw(d) : SmallestDraw(d);
  // CPU and memory per pod: some node of the model must have as much allocatable.
  int64_t cpu = 0, memory = 0;
  for (const PoolSpec& p : s.pools)
    if (g.gpu_model.empty() || p.gpu_model == g.gpu_model) {
      cpu = std::max(cpu, p.cpu_milli);
      memory = std::max(memory, p.memory_mib);
    }
  const std::string of_model =
      g.gpu_model.empty() ? std::string() : fmt::format("node of GPU model '{}' ", g.gpu_model);
  if (g.cpu_milli > cpu)
    return r.Error(n["cpu_milli"], path + ".cpu_milli",
                   fmt::format("a pod of {} milli-CPU is larger than any node: the largest {}has "
                               "{} (cluster.pools[].cpu_milli)",
                               g.cpu_milli, of_model, cpu));
  if (g.memory_mib > memory)
    return r.Error(n["memory_mib"], path + ".memory_mib",
                   fmt::format("a pod of {} MiB is larger than any node: the largest {}has {} MiB "
                               "(cluster.pools[].memory_mib)",
                               g.memory_mib, of_model, memory));
  if (pod <= largest) return Status::Ok();
  const char* field = n["pod_sets"] ? "pod_sets" : "gpus_per_pod";
  return r.Error(
      n[field] ? n[field] : n, path + "." + field,
      fmt::format(
          "a pod of {:g} GPUs is larger than any node: the largest {}has {} "
          "GPUs, and a pod runs on one node",
          pod,
          g.gpu_model.empty() ? std::string() : fmt::format("node of GPU model '{}' ", g.gpu_model),
          largest));
}

}  // namespace

Status Validate(const Reader& r, const YAML::Node& root, const Scenario& s) {
  std::set<std::string> names;
  for (size_t i = 0; i < s.gpu_models.size(); ++i)
    if (!names.insert(s.gpu_models[i].name).second)
      return r.Error(root["cluster"]["gpu_models"][i],
                     fmt::format("cluster.gpu_models[{}].name", i),
                     fmt::format("duplicate GPU model '{}'", s.gpu_models[i].name));
  std::set<std::string> pools, extended;
  for (size_t i = 0; i < s.pools.size(); ++i) {
    const YAML::Node n = root["cluster"]["pools"][i];
    for (const auto& [name, count] : s.pools[i].extended_resources)
      if (extended.insert(name).second && extended.size() > model::kMaxExtendedResources)
        return r.Error(n["extended_resources"][name],
                       fmt::format("cluster.pools[{}].extended_resources.{}", i, name),
                       fmt::format("more than {} distinct extended resources in the cluster",
                                   model::kMaxExtendedResources));
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
    if (!g.mig_profile.empty() || !g.right_size.mig_profile.empty()) {
      // MIG needs a MIG-capable model: the one it asks for, or any if it asks for none.
      bool capable = false;
      for (const auto& m : s.gpu_models)
        capable = capable || (m.mig_capable && (g.gpu_model.empty() || m.name == g.gpu_model));
      const bool own = !g.mig_profile.empty();
      if (!capable && s.alibaba_nodes.empty())
        return r.Error(own ? n["mig_profile"] : n["right_size"]["mig_profile"],
                       own ? fmt::format("generators[{}].mig_profile", i)
                           : fmt::format("generators[{}].right_size.mig_profile", i),
                       g.gpu_model.empty()
                           ? "no GPU model of the cluster is mig_capable"
                           : fmt::format("GPU model '{}' is not mig_capable", g.gpu_model));
    }
    STEWARD_RETURN_IF_ERROR(CheckPodFits(r, n, fmt::format("generators[{}]", i), s, g));
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

}  // namespace steward::twin::scenario_yaml

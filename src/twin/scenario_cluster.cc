// The scenario's cluster section: GPU models, hardware pools, an Alibaba node list.
#include <fmt/format.h>

#include <algorithm>

#include "model/data_dir.h"
#include "place/node_state.h"
#include "twin/scenario_sections.h"

namespace steward::twin::scenario_yaml {
namespace {

Status ParsePool(const Reader& r, const YAML::Node& n, const std::string& path, PoolSpec* p) {
  STEWARD_RETURN_IF_ERROR(r.CheckKeys(
      n, path,
      {"name", "nodes", "gpus_per_node", "gpu_model", "nodes_per_rack", "nodes_per_leaf",
       "nvlink_domain", "cpu_milli", "memory_mib", "driver_version", "toolkit_version",
       "device_plugin_version", "labels", "taints", "extended_resources", "gpu_sharing"}));
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
  std::string sharing = "none";
  STEWARD_RETURN_IF_ERROR(r.Get(n, "gpu_sharing", path, &sharing));
  if (!ParseGpuSharingMode(sharing, &p->gpu_sharing))
    return r.Error(
        n["gpu_sharing"], path + ".gpu_sharing",
        "must be 'none', 'mps' or 'time-slicing' (MIG pods are isolated whatever it is)");
  if (auto it = p->labels.find(std::string(kSharingStrategyLabel));
      n["gpu_sharing"] && it != p->labels.end() && it->second != sharing)
    return r.Error(n["gpu_sharing"], path + ".gpu_sharing",
                   fmt::format("says '{}' but the pool's label {} says '{}'", sharing,
                               kSharingStrategyLabel, it->second));
  STEWARD_RETURN_IF_ERROR(ParseExtendedResources(r, n, path, 0, &p->extended_resources));
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

// cluster.interference: the sharing model's coefficients (twin/interference.h).
Status ParseInterference(const Reader& r, const YAML::Node& cluster, InterferenceSpec* spec) {
  const YAML::Node n = cluster["interference"];
  if (!n) return Status::Ok();
  const std::string path = "cluster.interference";
  if (!n.IsMap()) return r.Error(n, path, "must be a map");
  STEWARD_RETURN_IF_ERROR(
      r.CheckKeys(n, path, {"mps_slowdown_per_load", "mps_max_slowdown", "time_slice_ms"}));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "mps_slowdown_per_load", path, &spec->mps_slowdown_per_load));
  STEWARD_RETURN_IF_ERROR(Positive(r, n["mps_slowdown_per_load"], path + ".mps_slowdown_per_load",
                                   spec->mps_slowdown_per_load, true));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "mps_max_slowdown", path, &spec->mps_max_slowdown));
  if (spec->mps_max_slowdown < 1)
    return r.Error(n["mps_max_slowdown"], path + ".mps_max_slowdown",
                   "must be at least 1 (1 = MPS never slows a replica)");
  STEWARD_RETURN_IF_ERROR(r.Get(n, "time_slice_ms", path, &spec->time_slice_ms));
  return Positive(r, n["time_slice_ms"], path + ".time_slice_ms", spec->time_slice_ms, true);
}

}  // namespace

Status ParseCluster(const Reader& r, const YAML::Node& cluster, Scenario* s) {
  STEWARD_RETURN_IF_ERROR(
      r.CheckKeys(cluster, "cluster", {"gpu_models", "pools", "alibaba_nodes", "interference"}));
  STEWARD_RETURN_IF_ERROR(ParseInterference(r, cluster, &s->interference));
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
  return Status::Ok();
}

}  // namespace steward::twin::scenario_yaml

#include "twin/build_cluster.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "place/node_state.h"
#include "twin/csv.h"

namespace steward::twin {
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
  // Extended resource slots: the pools' names, sorted (validation allows at most four).
  std::set<std::string> extended;
  for (const auto& p : scenario.pools)
    for (const auto& [name, count] : p.extended_resources) extended.insert(name);
  if (extended.size() > model::kMaxExtendedResources)
    return Status::InvalidArgument(
        fmt::format("more than {} distinct extended resources", model::kMaxExtendedResources));
  c.SetExtendedResources({extended.begin(), extended.end()});
  int rack_base = 0, leaf_base = 0;
  for (const auto& p : scenario.pools) {
    model::ExtendedAmounts node_extended{};
    for (const auto& [name, count] : p.extended_resources)
      node_extended[c.ExtendedSlot(name)] = static_cast<int32_t>(count);
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
      n.extended = node_extended;
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
      if (p.gpu_sharing != GpuSharingMode::kNone)
        n.labels[std::string(kSharingStrategyLabel)] = GpuSharingModeName(p.gpu_sharing);
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

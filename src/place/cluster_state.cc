#include "place/cluster_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace steward::place {
namespace {

// Maps each node's group label to a dense group id, checking every group is one contiguous run
// of nodes (so a group is a node range the Placer can query). Label -1 = the node alone.
Status DenseGroups(const std::vector<NodeSpec>& specs, bool domain, std::vector<int>* of,
                   std::vector<NodeRange>* ranges) {
  std::set<int> seen;
  for (size_t i = 0; i < specs.size(); ++i) {
    const int label = domain ? specs[i].nvlink_domain : specs[i].leaf;
    const int prev = i == 0 ? -2 : (domain ? specs[i - 1].nvlink_domain : specs[i - 1].leaf);
    if (label < 0 || label != prev) {
      if (label >= 0 && !seen.insert(label).second)
        return Status::InvalidArgument(
            fmt::format("node {}: {} {} is not one contiguous run of nodes", specs[i].name,
                        domain ? "NVLink domain" : "leaf", label));
      ranges->push_back({static_cast<NodeId>(i), static_cast<NodeId>(i)});
    }
    ranges->back().end = static_cast<NodeId>(i + 1);
    of->push_back(static_cast<int>(ranges->size()) - 1);
  }
  return Status::Ok();
}

// Entries kept in the change log before the older half is dropped.
size_t LogLimit(size_t nodes) { return std::max<size_t>(size_t{1} << 16, 8 * nodes); }

}  // namespace

Result<ClusterState> ClusterState::Build(const std::vector<NodeSpec>& specs) {
  ClusterState c;
  std::set<std::string, std::less<>> seen;
  for (const NodeSpec& s : specs) {
    if (s.name.empty()) return Status::InvalidArgument("node with an empty name");
    if (!seen.insert(s.name).second)
      return Status::InvalidArgument(fmt::format("node {}: duplicate name", s.name));
    if (s.cpu_milli < 0 || s.memory_mib < 0 || s.gpus < 0)
      return Status::InvalidArgument(fmt::format("node {}: negative capacity", s.name));
    if (s.gpus > kMaxGpusPerNode)
      return Status::InvalidArgument(fmt::format("node {}: {} GPUs, at most {} per node supported",
                                                 s.name, s.gpus, kMaxGpusPerNode));
    if (s.max_pods <= 0)
      return Status::InvalidArgument(fmt::format("node {}: max_pods <= 0", s.name));
    if (s.pool < 0 || s.pool > 32767)
      return Status::InvalidArgument(fmt::format("node {}: pool {} out of range", s.name, s.pool));
    int model = c.FindModel(s.model);
    if (model < 0) {
      if (c.model_names_.size() >= 63)
        return Status::InvalidArgument("more than 63 distinct GPU models");
      model = static_cast<int>(c.model_names_.size());
      c.model_names_.push_back(s.model);
    }
    NodeState n;
    n.cpu_capacity = n.cpu_free = s.cpu_milli;
    n.memory_capacity = n.memory_free = s.memory_mib;
    n.model = model;
    n.num_gpus = s.gpus;
    n.max_pods = s.max_pods;
    n.pool = static_cast<int16_t>(s.pool);
    n.mig_capable = s.mig_capable;
    for (int i = 0; i < kMaxExtendedResources; ++i) {
      if (s.extended[i] < 0)
        return Status::InvalidArgument(fmt::format("node {}: negative capacity", s.name));
      n.extended_free[i] = s.extended[i];
    }
    for (int i = 0; i < s.gpus; ++i) n.gpu_free[i] = kMilliPerGpu;
    n.gpu_free_total = int64_t{s.gpus} * kMilliPerGpu;
    c.rank_.push_back(static_cast<int32_t>(c.nodes_.size()));
    c.nodes_.push_back(n);
    c.names_.push_back(s.name);
    c.total_gpus_ += s.gpus;
    c.num_pools_ = std::max(c.num_pools_, s.pool + 1);
  }
  STEWARD_RETURN_IF_ERROR(DenseGroups(specs, true, &c.domain_of_, &c.domain_ranges_));
  STEWARD_RETURN_IF_ERROR(DenseGroups(specs, false, &c.leaf_of_, &c.leaf_ranges_));
  c.occupancy_.assign(c.num_pools_ * c.model_names_.size(), Occupancy{});
  for (NodeId id = 0; id < c.size(); ++id) c.Count(id, +1);
  return c;
}

int ClusterState::FindModel(std::string_view name) const {
  for (size_t i = 0; i < model_names_.size(); ++i)
    if (model_names_[i] == name) return static_cast<int>(i);
  return -1;
}

ModelMask ClusterState::ParseModelList(std::string_view spec) const {
  if (spec.empty()) return kAnyModel;
  ModelMask mask = 0;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t bar = spec.find('|', start);
    if (bar == std::string_view::npos) bar = spec.size();
    int m = FindModel(spec.substr(start, bar - start));
    if (m >= 0) mask |= ModelMask{1} << m;
    start = bar + 1;
  }
  return mask == 0 ? kNoModel : mask;
}

void ClusterState::SetRanks(std::vector<int32_t> ranks) {
  STEWARD_CHECK(ranks.size() == nodes_.size());
  rank_ = std::move(ranks);
}

void ClusterState::Count(NodeId id, int sign) {
  const NodeState& n = nodes_[id];
  const int free = n.FullyFreeGpus();
  held_gpus_ += sign * n.HeldGpus();
  unavailable_gpus_ += sign * (n.WithheldGpus() + (n.schedulable ? 0 : free));
  if (!n.schedulable || n.num_gpus == 0) return;
  Occupancy& o = slot(id);
  o.nodes += sign;
  o.gpus += sign * n.num_gpus;
  o.free_gpus += sign * free;
  o.nodes_by_free[free] += sign;
  if (free == n.num_gpus) {
    o.whole_free_nodes += sign;
    o.whole_free_gpus += sign * free;
  }
}

void ClusterState::Log(NodeId id) {
  change_log_.push_back(id);
  if (change_log_.size() > LogLimit(nodes_.size())) {
    const size_t drop = change_log_.size() / 2;
    change_log_.erase(change_log_.begin(), change_log_.begin() + static_cast<ptrdiff_t>(drop));
    log_base_ += drop;
  }
}

void ClusterState::Apply(NodeId id, const PodRequest& pod, const GpuList& gpus) {
  Count(id, -1);
  const int64_t before = nodes_[id].gpu_free_total;
  ApplyPod(nodes_[id], pod, gpus);
  used_gpu_milli_ += before - nodes_[id].gpu_free_total;
  Count(id, +1);
  Log(id);
}

void ClusterState::Release(NodeId id, const PodRequest& pod, const GpuList& gpus) {
  Count(id, -1);
  const int64_t before = nodes_[id].gpu_free_total;
  ReleasePod(nodes_[id], pod, gpus);
  used_gpu_milli_ -= nodes_[id].gpu_free_total - before;
  Count(id, +1);
  Log(id);
}

void ClusterState::SetGpuBroken(NodeId id, int gpu, bool broken) {
  Count(id, -1);
  const int64_t before = nodes_[id].gpu_free_total;
  place::SetGpuBroken(nodes_[id], gpu, broken);
  used_gpu_milli_ += before - nodes_[id].gpu_free_total;
  Count(id, +1);
  Log(id);
}

void ClusterState::SetSchedulable(NodeId id, bool schedulable) {
  if (nodes_[id].schedulable == schedulable) return;
  Count(id, -1);
  nodes_[id].schedulable = schedulable;
  Count(id, +1);
  Log(id);
}

Occupancy ClusterState::occupancy(int pool, int model) const {
  Occupancy sum;
  const int models = static_cast<int>(model_names_.size());
  for (int p = 0; p < num_pools_; ++p) {
    if (pool >= 0 && p != pool) continue;
    for (int m = 0; m < models; ++m) {
      if (model >= 0 && m != model) continue;
      const Occupancy& o = occupancy_[p * models + m];
      sum.nodes += o.nodes;
      sum.gpus += o.gpus;
      sum.free_gpus += o.free_gpus;
      sum.whole_free_nodes += o.whole_free_nodes;
      sum.whole_free_gpus += o.whole_free_gpus;
      for (int k = 0; k <= kMaxGpusPerNode; ++k) sum.nodes_by_free[k] += o.nodes_by_free[k];
    }
  }
  return sum;
}

int ClusterState::largest_whole_node_gpus(int pool) const {
  int best = 0;
  const int models = static_cast<int>(model_names_.size());
  for (int p = 0; p < num_pools_; ++p)
    if (pool < 0 || p == pool)
      for (int m = 0; m < models; ++m)
        best = std::max(best, occupancy_[p * models + m].whole_free_gpus);
  return best;
}

}  // namespace steward::place

#include "place/cluster_state.h"

#include <fmt/format.h>

#include <set>

namespace steward::place {

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
    for (int i = 0; i < s.gpus; ++i) n.gpu_free[i] = kMilliPerGpu;
    n.gpu_free_total = int64_t{s.gpus} * kMilliPerGpu;
    c.rank_.push_back(static_cast<int32_t>(c.nodes_.size()));
    c.nodes_.push_back(n);
    c.names_.push_back(s.name);
    c.total_gpus_ += s.gpus;
  }
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

void ClusterState::Apply(NodeId id, const PodRequest& pod, const GpuList& gpus) {
  ApplyPod(nodes_[id], pod, gpus);
  used_gpu_milli_ += int64_t{gpus.count} * pod.gpu_milli;
  change_log_.push_back(id);
}

void ClusterState::Release(NodeId id, const PodRequest& pod, const GpuList& gpus) {
  ReleasePod(nodes_[id], pod, gpus);
  used_gpu_milli_ -= int64_t{gpus.count} * pod.gpu_milli;
  change_log_.push_back(id);
}

}  // namespace steward::place

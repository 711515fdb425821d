#include "twin/cluster_state.h"

#include <algorithm>
#include <bit>

namespace steward::twin {
namespace {

place::ClusterState BuildPlacement(const model::Cluster& cluster) {
  std::vector<place::NodeSpec> specs;
  specs.reserve(cluster.nodes().size());
  for (const model::Node& n : cluster.nodes()) {
    const model::GpuModel& m = cluster.gpu_models()[n.model];
    place::NodeSpec s;
    s.name = n.name;
    s.cpu_milli = n.cpu_milli;
    s.memory_mib = n.memory_mib;
    s.gpus = n.gpu_capacity;
    s.model = m.name;
    s.max_pods = kMaxPodsPerNode;
    s.pool = n.placement_pool;
    s.nvlink_domain = n.nvlink_domain;
    s.leaf = n.leaf;
    s.mig_capable = m.mig_capable;
    s.extended = n.extended;
    specs.push_back(std::move(s));
  }
  // Scenarios are validated before a cluster is built (<= kMaxGpusPerNode GPUs per node,
  // domains and leaves numbered in node order), so this cannot fail on user input.
  Result<place::ClusterState> state = place::ClusterState::Build(specs);
  STEWARD_CHECK(state.ok());
  return std::move(state).value();
}

place::GpuList WholeGpus(uint64_t mask) {
  place::GpuList g;
  for (; mask != 0; mask &= mask - 1) g.Add(std::countr_zero(mask));
  return g;
}

place::PodRequest WholeGpuPod(int gpus) {
  place::PodRequest p;
  p.num_gpu = gpus;
  p.gpu_milli = place::kMilliPerGpu;
  return p;
}

}  // namespace

ClusterState::ClusterState(const model::Cluster& cluster)
    : cluster_(cluster), placement_(BuildPlacement(cluster)) {
  for (const auto& m : cluster.gpu_models()) place_model_.push_back(placement_.FindModel(m.name));
  residents_.resize(cluster.nodes().size());
  pool_nodes_.resize(placement_.num_pools());
  for (model::NodeId i = 0; i < static_cast<model::NodeId>(cluster.nodes().size()); ++i) {
    const model::Node& n = cluster.node(i);
    max_gpus_ = std::max(max_gpus_, n.gpu_capacity);
    pool_nodes_[n.placement_pool].push_back(i);
    if (n.cordoned || n.gpu_allocatable <= 0) placement_.SetSchedulable(i, false);
  }
}

uint64_t ClusterState::free_mask(model::NodeId n) const {
  const place::NodeState& s = placement_.node(n);
  uint64_t mask = 0;
  for (int i = 0; i < s.num_gpus; ++i)
    if (s.gpu_free[i] == place::kMilliPerGpu) mask |= uint64_t{1} << i;
  return mask;
}

uint64_t ClusterState::Allocate(model::NodeId n, int gpus) {
  const place::PodRequest pod = WholeGpuPod(gpus);
  const place::GpuList g = place::TightestGpus(placement_.node(n), pod);
  STEWARD_CHECK(g.count == gpus);
  placement_.Apply(n, pod, g);
  uint64_t mask = 0;
  for (int i = 0; i < g.count; ++i) mask |= uint64_t{1} << g.index[i];
  return mask;
}

void ClusterState::Release(model::NodeId n, uint64_t mask) {
  placement_.Release(n, WholeGpuPod(std::popcount(mask)), WholeGpus(mask));
}

void ClusterState::ReleasePod(model::NodeId n, uint64_t mask, int gpu_milli, int mig_profile,
                              int mig_start, int64_t cpu_milli, int64_t memory_mib,
                              const model::ExtendedAmounts& extended) {
  place::PodRequest pod = WholeGpuPod(std::popcount(mask));
  pod.cpu_milli = cpu_milli;
  pod.memory_mib = memory_mib;
  pod.extended = extended;
  pod.gpu_milli = gpu_milli;
  pod.mig_profile = static_cast<int8_t>(mig_profile);
  place::GpuList g = WholeGpus(mask);
  g.mig_start = static_cast<int8_t>(mig_start);
  placement_.Release(n, pod, g);
}

model::ExtendedAmounts ClusterState::ExtendedRequest(const model::PodSet& ps) const {
  model::ExtendedAmounts out{};
  for (const auto& [name, amount] : ps.extended_resources)
    if (const int slot = cluster_.ExtendedSlot(name); slot >= 0)
      out[slot] = static_cast<int32_t>(amount);
  return out;
}

void ClusterState::SetSchedulable(model::NodeId n, bool schedulable) {
  placement_.SetSchedulable(n, schedulable);
}

void ClusterState::RemoveResident(model::NodeId n, model::WorkloadId w) {
  STEWARD_CHECK(residents_[n].Remove(w));
}

void ClusterState::Residents::Add(model::WorkloadId w) {
  if (size_ == cap_) {
    auto* grown = new model::WorkloadId[2 * static_cast<size_t>(cap_)];
    std::copy_n(heap_ ? heap_ : inline_.data(), size_, grown);
    delete[] heap_;
    heap_ = grown;
    cap_ *= 2;
  }
  (heap_ ? heap_ : inline_.data())[size_++] = w;
}

bool ClusterState::Residents::Remove(model::WorkloadId w) {
  model::WorkloadId* ids = heap_ ? heap_ : inline_.data();
  model::WorkloadId* end = ids + size_;
  model::WorkloadId* it = std::find(ids, end, w);
  if (it == end) return false;
  *it = end[-1];
  --size_;
  return true;
}

place::Occupancy ClusterState::Occupancy(int model, int pool) const {
  if (model >= 0 && place_model_[model] < 0) return {};
  return placement_.occupancy(pool, place_model(model));
}

int ClusterState::free_gpus(int model, int pool) const { return Occupancy(model, pool).free_gpus; }

int ClusterState::whole_free_nodes(int model, int pool) const {
  return Occupancy(model, pool).whole_free_nodes;
}

int ClusterState::stranded_free_gpus(int model, int pool) const {
  return Occupancy(model, pool).stranded_free_gpus();
}

int ClusterState::largest_free_block(int model, int pool) const {
  return Occupancy(model, pool).largest_free_block();
}

}  // namespace steward::twin

#include "twin/cluster_state.h"

#include <algorithm>
#include <bit>

namespace steward::twin {

ClusterState::ClusterState(const model::Cluster& cluster) : cluster_(cluster) {
  const auto& nodes = cluster.nodes();
  for (const auto& n : nodes) max_gpus_ = std::max(max_gpus_, n.gpu_capacity);
  buckets_.assign(cluster.gpu_models().size(), std::vector<std::set<model::NodeId>>(max_gpus_ + 1));
  whole_nodes_.assign(cluster.gpu_models().size(), 0);
  whole_gpus_.assign(cluster.gpu_models().size(), 0);
  free_.resize(nodes.size());
  mask_.resize(nodes.size());
  schedulable_.resize(nodes.size());
  broken_.assign(nodes.size(), 0);
  withheld_.assign(nodes.size(), 0);
  for (model::NodeId i = 0; i < static_cast<model::NodeId>(nodes.size()); ++i) {
    const int cap = nodes[i].gpu_capacity;
    free_[i] = static_cast<int8_t>(cap);
    mask_[i] = cap >= 64 ? ~0ULL : ((1ULL << cap) - 1);
    schedulable_[i] = !nodes[i].cordoned && nodes[i].gpu_allocatable > 0;
    if (schedulable_[i])
      Bucket(i);
    else
      unavailable_ += cap;
  }
}

void ClusterState::Unbucket(model::NodeId n) {
  const model::Node& node = cluster_.node(n);
  buckets_[node.model][free_[n]].erase(n);
  if (free_[n] == node.gpu_capacity) {
    --whole_nodes_[node.model];
    whole_gpus_[node.model] -= node.gpu_capacity;
  }
}

void ClusterState::Bucket(model::NodeId n) {
  const model::Node& node = cluster_.node(n);
  buckets_[node.model][free_[n]].insert(n);
  if (free_[n] == node.gpu_capacity) {
    ++whole_nodes_[node.model];
    whole_gpus_[node.model] += node.gpu_capacity;
  }
}

uint64_t ClusterState::Allocate(model::NodeId n, int gpus) {
  STEWARD_CHECK(free_[n] >= gpus);
  if (schedulable_[n]) Unbucket(n);
  uint64_t taken = 0, m = mask_[n];
  for (int i = 0; i < gpus; ++i) {
    const uint64_t low = m & (~m + 1);
    taken |= low;
    m &= ~low;
  }
  mask_[n] = m;
  free_[n] = static_cast<int8_t>(free_[n] - gpus);
  allocated_ += gpus;
  if (schedulable_[n])
    Bucket(n);
  else
    unavailable_ -= gpus;
  return taken;
}

void ClusterState::Release(model::NodeId n, uint64_t mask) {
  STEWARD_CHECK((mask_[n] & mask) == 0);
  if (schedulable_[n]) Unbucket(n);
  // Broken GPUs come back from the pod but stay out of the free mask.
  const uint64_t usable = mask & ~broken_[n];
  const int count = std::popcount(usable);
  const int withheld = std::popcount(mask) - count;
  mask_[n] |= usable;
  withheld_[n] |= mask & broken_[n];
  free_[n] = static_cast<int8_t>(free_[n] + count);
  allocated_ -= count + withheld;
  unavailable_ += withheld;
  if (schedulable_[n])
    Bucket(n);
  else
    unavailable_ += count;
}

void ClusterState::SetSchedulable(model::NodeId n, bool schedulable) {
  if (schedulable_[n] == schedulable) return;
  if (schedulable_[n]) Unbucket(n);
  schedulable_[n] = schedulable;
  if (schedulable_[n]) Bucket(n);
  unavailable_ += schedulable ? -free_[n] : free_[n];
}

void ClusterState::SetGpuBroken(model::NodeId n, int index, bool broken) {
  const uint64_t bit = 1ULL << index;
  if (((broken_[n] & bit) != 0) == broken) return;
  // A GPU no pod holds moves between the free mask and the withheld set; one a pod holds
  // only changes its flag (Release withholds it later).
  if (schedulable_[n]) Unbucket(n);
  if (broken) {
    broken_[n] |= bit;
    if (mask_[n] & bit) {
      mask_[n] &= ~bit;
      withheld_[n] |= bit;
      free_[n] = static_cast<int8_t>(free_[n] - 1);
      if (schedulable_[n]) ++unavailable_;  // Else it was already unavailable as a free GPU.
    }
  } else {
    broken_[n] &= ~bit;
    if (withheld_[n] & bit) {
      withheld_[n] &= ~bit;
      mask_[n] |= bit;
      free_[n] = static_cast<int8_t>(free_[n] + 1);
      if (schedulable_[n]) --unavailable_;  // Else it stays unavailable as a free GPU.
    }
  }
  if (schedulable_[n]) Bucket(n);
}

int ClusterState::free_gpus(int model) const {
  int total = 0;
  for (int m = 0; m < num_models(); ++m) {
    if (model >= 0 && m != model) continue;
    for (int k = 1; k <= max_gpus_; ++k) total += k * static_cast<int>(buckets_[m][k].size());
  }
  return total;
}

int ClusterState::whole_free_nodes(int model) const {
  int total = 0;
  for (int m = 0; m < num_models(); ++m)
    if (model < 0 || m == model) total += whole_nodes_[m];
  return total;
}

int ClusterState::stranded_free_gpus(int model) const {
  int whole = 0;
  for (int m = 0; m < num_models(); ++m)
    if (model < 0 || m == model) whole += whole_gpus_[m];
  return free_gpus(model) - whole;
}

int ClusterState::largest_free_block(int model) const {
  for (int k = max_gpus_; k >= 1; --k)
    for (int m = 0; m < num_models(); ++m)
      if ((model < 0 || m == model) && !buckets_[m][k].empty()) return k;
  return 0;
}

}  // namespace steward::twin

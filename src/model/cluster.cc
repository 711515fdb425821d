#include "model/cluster.h"

#include <fmt/format.h>

#include <algorithm>

namespace steward::model {

int Cluster::AddGpuModel(GpuModel model) {
  STEWARD_CHECK(FindGpuModel(model.name) < 0);
  models_.push_back(std::move(model));
  return static_cast<int>(models_.size()) - 1;
}

int Cluster::AddPool(std::string name, int model) {
  STEWARD_CHECK(FindPool(name) < 0);
  pools_.push_back(Pool{std::move(name), model, 0});
  return static_cast<int>(pools_.size()) - 1;
}

NodeId Cluster::AddNode(Node node) {
  STEWARD_CHECK(node.pool >= 0 && node.pool < static_cast<int>(pools_.size()));
  STEWARD_CHECK(node.model >= 0 && node.model < static_cast<int>(models_.size()));
  const NodeId id = static_cast<NodeId>(nodes_.size());
  node.first_gpu = static_cast<GpuId>(gpus_.size());
  for (int i = 0; i < node.gpu_capacity; ++i) {
    // A stable, UUID-shaped id derived from position, so reports and scrapes are reproducible.
    const uint64_t h = (static_cast<uint64_t>(id) << 8) | static_cast<uint64_t>(i);
    gpus_.push_back(Gpu{id, i, node.model,
                        fmt::format("GPU-{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
                                    static_cast<uint32_t>(h * 2654435761u), (h >> 16) & 0xffff,
                                    0x4000 | (h & 0x0fff), 0x8000 | ((h >> 4) & 0x3fff), h),
                        GpuHealth::kHealthy});
  }
  num_racks_ = std::max(num_racks_, node.rack + 1);
  num_leaves_ = std::max(num_leaves_, node.leaf + 1);
  pools_[node.pool].nodes++;
  node_by_name_.emplace(node.name, id);
  nodes_.push_back(std::move(node));
  return id;
}

int Cluster::FindGpuModel(std::string_view name) const {
  for (size_t i = 0; i < models_.size(); ++i)
    if (models_[i].name == name) return static_cast<int>(i);
  return -1;
}

int Cluster::FindPool(std::string_view name) const {
  for (size_t i = 0; i < pools_.size(); ++i)
    if (pools_[i].name == name) return static_cast<int>(i);
  return -1;
}

int Cluster::ExtendedSlot(std::string_view name) const {
  for (size_t i = 0; i < extended_.size(); ++i)
    if (extended_[i] == name) return static_cast<int>(i);
  return -1;
}

NodeId Cluster::FindNode(std::string_view name) const {
  auto it = node_by_name_.find(name);
  return it == node_by_name_.end() ? kNoNode : it->second;
}

}  // namespace steward::model

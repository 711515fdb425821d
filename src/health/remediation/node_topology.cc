#include "health/remediation/node_topology.h"

namespace steward::health {

Status NodeTopology::Add(std::string name, NodePlacement p) {
  if (name.empty()) return Status::InvalidArgument("node topology: empty node name");
  if (p.pool < 0 || p.rack < 0 || p.leaf < 0) {
    return Status::InvalidArgument("node topology: " + name + ": negative pool/rack/leaf id");
  }
  if (nodes_.count(name)) return Status::InvalidArgument("node topology: duplicate node " + name);
  if (p.pool >= static_cast<int>(pool_sizes_.size())) pool_sizes_.resize(p.pool + 1, 0);
  ++pool_sizes_[p.pool];
  nodes_.emplace(std::move(name), p);
  return Status::Ok();
}

NodeTopology NodeTopology::FromCluster(const model::Cluster& cluster) {
  NodeTopology t;
  for (const model::Node& n : cluster.nodes()) {
    // Cluster node names are unique and ids non-negative by construction.
    Status s = t.Add(n.name, {n.pool, n.rack, n.leaf});
    STEWARD_CHECK(s.ok());
  }
  return t;
}

const NodePlacement* NodeTopology::Find(std::string_view node) const {
  auto it = nodes_.find(node);
  return it == nodes_.end() ? nullptr : &it->second;
}

int NodeTopology::PoolSize(int pool) const {
  return pool >= 0 && pool < static_cast<int>(pool_sizes_.size()) ? pool_sizes_[pool] : 0;
}

}  // namespace steward::health

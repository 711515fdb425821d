// NodeTopology: node name -> pool, rack and leaf, which is all remediation needs to know about
// the cluster (the pool for the disruption budget, rack and leaf for incident grouping).
// Built from a model::Cluster (the twin) or filled by hand (a live cluster's node labels).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/cluster.h"
#include "model/status.h"

namespace steward::health {

struct NodePlacement {
  int pool = 0;
  int rack = 0;
  int leaf = 0;
};

class NodeTopology {
 public:
  // Adds a node; InvalidArgument if the name is empty, repeated, or an id is negative.
  Status Add(std::string name, NodePlacement placement);
  static NodeTopology FromCluster(const model::Cluster& cluster);

  const NodePlacement* Find(std::string_view node) const;
  int PoolSize(int pool) const;
  int num_pools() const { return static_cast<int>(pool_sizes_.size()); }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, NodePlacement, Hash, std::equal_to<>> nodes_;
  std::vector<int> pool_sizes_;
};

}  // namespace steward::health

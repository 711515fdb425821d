// How the twin picks a node for one pod. A Placer only chooses from the ClusterState's
// indexed buckets; it never mutates state (the twin allocates what it picks) and never scans
// every GPU. Chosen by name from NewPlacer(); the placement layer (src/place/) brings more.
#pragma once

#include <memory>
#include <string_view>

#include "model/cluster.h"
#include "model/status.h"
#include "model/workload.h"
#include "twin/cluster_state.h"

namespace steward::twin {

struct PodRequest {
  int gpus = 1;
  int gpu_model = -1;  // -1 = any model.
  // A node already holding a pod of the same gang (kNoNode for the first pod), and how close
  // the next one would like to be.
  model::NodeId near = model::kNoNode;
  model::TopologyPreference topology = model::TopologyPreference::kNone;
};

class Placer {
 public:
  virtual ~Placer() = default;
  Placer() = default;
  Placer(const Placer&) = delete;
  Placer& operator=(const Placer&) = delete;

  virtual std::string_view Name() const = 0;
  // A schedulable node with at least req.gpus free GPUs of the model, or kNoNode.
  virtual model::NodeId ChooseNode(const ClusterState& state, const PodRequest& req) const = 0;
};

// "first-fit" (lowest node id that fits: the naive default) or "binpack" (the fullest node
// that fits, lowest id among equals). Unknown names list the valid ones.
Result<std::unique_ptr<Placer>> NewPlacer(std::string_view name);

}  // namespace steward::twin

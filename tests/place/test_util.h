// Fluent helpers for hand-built clusters in the placement tests.
#pragma once

#include <string>
#include <vector>

#include "place/cluster_state.h"
#include "place/pod_request.h"

namespace steward::place::testing {

inline NodeSpec Node(std::string name, int64_t cpu_cores, int gpus, std::string model = "G2",
                     int64_t memory_gib = 256) {
  return NodeSpec{std::move(name), cpu_cores * 1000, memory_gib * 1024, gpus, std::move(model)};
}

inline PodRequest Pod(int64_t cpu_milli, int num_gpu, int gpu_milli, int64_t memory_mib = 1024) {
  PodRequest p;
  p.cpu_milli = cpu_milli;
  p.memory_mib = memory_mib;
  p.num_gpu = num_gpu;
  p.gpu_milli = num_gpu > 0 ? gpu_milli : 0;
  return p;
}

inline ClusterState MakeCluster(const std::vector<NodeSpec>& specs) {
  auto c = ClusterState::Build(specs);
  if (!c.ok()) std::abort();
  return std::move(c).value();
}

// Binds `pod` on node `id` at the given GPU indices.
inline void Bind(ClusterState& c, NodeId id, const PodRequest& pod, std::vector<int> gpus) {
  GpuList g;
  for (int i : gpus) g.Add(i);
  c.Apply(id, pod, g);
}

}  // namespace steward::place::testing

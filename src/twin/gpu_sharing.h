// GPU sharing in the twin (issue 19 item 3, docs/tidal.md "Sharing a GPU"): each node's sharing
// mode (its pool's `gpu_sharing`), an index of the pods that share a GPU, and what the
// neighbours of serving replicas got. The twin fills the index as it places and releases pods
// (twin.cc: PlacePods, ReleasePods) and reads it at each serving sync (twin_sharing.cc), so a
// sync costs O(ready replicas x pods on their GPUs), never a scan of the cluster.
//
//   GpuSharing s(modes_by_node, cluster.total_gpus(), scenario.interference);
//   s.Add(gpu, {workload, pod_id, 0.5, false});       // a pod of half a GPU placed on `gpu`
//   for (const GpuSharing::Resident& r : s.residents(gpu)) ...
//
// Only pods that share a GPU are indexed: one GPU, a fraction of it (gpu_milli < 1000) or a MIG
// instance. A whole-GPU pod never shares its GPU. Owned by the twin; not thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "model/cluster.h"
#include "model/time.h"
#include "model/workload.h"
#include "twin/interference.h"

namespace steward::twin {

class GpuSharing {
 public:
  struct Resident {
    model::WorkloadId workload = 0;
    int32_t pod_id = 0;
    double share = 0;  // Of the GPU: gpu_milli / 1000, or the MIG instance's compute share.
    bool mig = false;
  };

  GpuSharing(std::vector<GpuSharingMode> node_modes, size_t gpus, InterferenceSpec spec)
      : node_modes_(std::move(node_modes)), by_gpu_(gpus), spec_(spec) {}

  const InterferenceSpec& spec() const { return spec_; }
  GpuSharingMode mode(model::NodeId n) const { return node_modes_[n]; }

  void Add(model::GpuId g, const Resident& r) { by_gpu_[g].push_back(r); }
  void Remove(model::GpuId g, model::WorkloadId w, int32_t pod_id) {
    auto& v = by_gpu_[g];
    auto it = std::find_if(v.begin(), v.end(), [&](const Resident& r) {
      return r.workload == w && r.pod_id == pod_id;
    });
    if (it != v.end()) v.erase(it);  // Keeps placement order: a deterministic neighbour list.
  }
  std::span<const Resident> residents(model::GpuId g) const { return by_gpu_[g]; }

  // The serving replicas' load on GPUs at the current sync (for their neighbours' speed).
  struct ReplicaLoad {
    model::GpuId gpu = 0;
    GpuLoad load;
  };
  std::vector<ReplicaLoad>& replica_loads() { return replica_loads_; }

  // Training beside serving replicas: GPU-equivalents held now, and the same at the speed the
  // interference leaves them; integrated from one sync to the next (piecewise constant, as
  // the services' own accounting).
  void SetNeighbourRates(SimTime now, double held, double effective) {
    held_hours_ = held_hours(now);
    effective_hours_ = effective_hours(now);
    since_ = now;
    held_rate_ = held;
    effective_rate_ = effective;
  }
  // Up to `now`, the last rates held since the last sync.
  double held_hours(SimTime now) const { return held_hours_ + held_rate_ * Open(now); }
  double effective_hours(SimTime now) const {
    return effective_hours_ + effective_rate_ * Open(now);
  }

 private:
  double Open(SimTime now) const {
    return since_.is_never() || now <= since_ ? 0.0 : (now - since_).ToHours();
  }

  std::vector<GpuSharingMode> node_modes_;
  std::vector<std::vector<Resident>> by_gpu_;
  InterferenceSpec spec_;
  std::vector<ReplicaLoad> replica_loads_;
  SimTime since_ = SimTime::Never();
  double held_rate_ = 0, effective_rate_ = 0;
  double held_hours_ = 0, effective_hours_ = 0;
};

}  // namespace steward::twin

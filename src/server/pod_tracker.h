// PodTracker remembers, for every pod the twin has placed and not yet released, its name and
// when it was bound to its node, so the dashboard's node panel can say which pod holds each GPU
// and since when without the twin keeping per-pod times.
//
//   PodTracker pods;
//   twin.AddLifecycleListener([&](const twin::LifecycleRecord& r) { pods.OnLifecycle(r); });
//   twin.RunUntil(t);
//   pods.Update(twin);                      // After every step, before BuildSnapshot.
//   const PodTracker::Pod* p = pods.Find(workload_id, pod_id);
//
// Bind times are exact: the twin logs a kPlace record at the instant it binds pods, and a pod
// first seen by Update() takes the latest kPlace time of its workload since the previous Update
// (several placements of one workload between two updates, e.g. a service's replicas, all take
// the latest). Names come from twin/pod_names.h once per pod.
// Cost: Update() is O(runs + live pods); Find() one hash lookup.
// Thread-safety: owned by the simulation thread; not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "model/time.h"
#include "twin/lifecycle.h"
#include "twin/twin.h"

namespace steward::server {

class PodTracker {
 public:
  struct Pod {
    std::string name;
    SimTime since;
    uint64_t generation = 0;  // The Update() that last saw it.
  };

  // Takes the twin's lifecycle records (only kPlace matters).
  void OnLifecycle(const twin::LifecycleRecord& r);
  // Adds the pods placed since the last call and forgets the released ones.
  void Update(const twin::Twin& twin);
  // The pod `pod_id` of workload `w`, or nullptr when not placed at the last Update().
  const Pod* Find(model::WorkloadId w, int32_t pod_id) const;
  size_t size() const { return pods_.size(); }

 private:
  static uint64_t Key(model::WorkloadId w, int32_t pod_id) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(w)) << 32) | static_cast<uint32_t>(pod_id);
  }
  std::unordered_map<uint64_t, Pod> pods_;
  std::unordered_map<model::WorkloadId, SimTime> placed_;  // kPlace times since last Update().
  uint64_t generation_ = 0;
};

}  // namespace steward::server

// How the twin places pods: the guide's pool rules on top of the placement layer (src/place/).
//
// The cluster is split into placement pools (scenario policies.pools; one pool of every node
// without them). Each pool has a place::Placer running its own policy, chosen by name from
// the place/ registry (first-fit, binpack, bestfit, fgd, ...). A pod set is routed to the pools
// whose rule accepts it (kind, GPUs per pod, GPU sharing, gang size) and tried there in listed
// order; a gang goes all-or-nothing into one pool, whole-gang topology first (NVLink domain,
// then leaf; place::Placer::PlaceGang). The Placer binds what it picks on the ClusterState; the
// twin records the pods and releases them through the ClusterState.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "model/status.h"
#include "model/workload.h"
#include "place/placement_policy.h"
#include "place/placer.h"
#include "place/rng.h"
#include "twin/cluster_state.h"
#include "twin/scenario.h"

namespace steward::twin {

// Where one pod went.
struct PodPlacement {
  model::NodeId node = model::kNoNode;
  place::GpuList gpus;
  int pool = 0;
};

class Placer {
 public:
  // One pool per scenario placement pool (or one "default" pool), each with its policy;
  // `population` is the workload's expected pods, for policies that learn typical pods (FGD).
  static Result<std::unique_ptr<Placer>> Create(const Scenario& scenario, ClusterState* state,
                                                std::span<const place::PodRequest> population,
                                                uint64_t seed);
  ~Placer();

  // "first-fit" with one pool; "pools(whole-node=binpack, ...)" with several.
  std::string Name() const;
  int num_pools() const { return static_cast<int>(pools_.size()); }
  const std::string& pool_name(int p) const { return pools_[p].name; }
  std::string_view pool_policy(int p) const { return pools_[p].policy->Name(); }
  const place::PlacementPolicy& policy(int p) const { return *pools_[p].policy; }

  // A workload arrived: its pods count once toward the typical-pod distribution of policies
  // that learn online (fgd-cpu-online), whether or not they are ever placed.
  void Observe(const model::Workload& w);
  // The pools that accept pods of `ps`, in the order they are tried (empty: none does).
  std::vector<int> Route(const model::Workload& w, const model::PodSet& ps) const;
  // Whether pool `pool` accepts pods of `ps` (Route without building the list).
  bool Accepts(int pool, const model::Workload& w, const model::PodSet& ps) const;
  // The placement layer's request for one pod of `ps` in pool `pool`.
  place::PodRequest Request(const model::Workload& w, const model::PodSet& ps, int pool) const;
  // Places `count` pods of `ps` all-or-nothing in the first routed pool that holds them all
  // and binds them; `out` gets the pods. False (nothing bound) if no pool can.
  bool Place(const model::Workload& w, const model::PodSet& ps, int count,
             std::vector<PodPlacement>* out);

 private:
  struct Pool {
    std::string name;
    PlacementPoolSpec rule;
    std::unique_ptr<place::PlacementPolicy> policy;
    std::unique_ptr<place::Placer> placer;
  };
  Placer(ClusterState* state, uint64_t seed) : state_(state), rng_(seed) {}

  ClusterState* state_;
  place::Rng rng_;
  std::vector<Pool> pools_;
  std::vector<place::Decision> decisions_;  // Place's scratch, kept to reuse its capacity.
};

// The pods a scenario's generators are expected to submit, as placement requests weighted by
// expected count (1,000 in all), plus the pods of `traced`: what FGD learns typical pods from.
std::vector<place::PodRequest> ExpectedPods(const Scenario& scenario, const ClusterState& state,
                                            std::span<const model::Workload> traced);

}  // namespace steward::twin

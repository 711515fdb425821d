// VictimOrdering: the order in which preemption candidates are tried.
//
// The engine decides WHO may be a candidate (Kueue's withinClusterQueue / reclaimWithinCohort /
// borrowWithinCohort policies, the victim queue being above nominal, Steward's tiers); an
// ordering only decides WHICH candidates to try first. The engine then walks the ordered list,
// removing candidates until the preemptor fits, and fills back (Kueue
// pkg/scheduler/preemption/preemption.go), so a good order means fewer and cheaper victims.
//
// Implementations are chosen by name through NewVictimOrdering():
//   kueue-classic     Kueue's CandidatesOrdering (common/ordering.go): evicted first, other
//                     queues before own, lower priority first, most recently admitted first.
//   checkpoint-aware  Steward's default: evicted first, other queues first, then least lost
//                     work (GPU-hours since the last checkpoint plus restore time) first.
//   largest-first     Fewest victims: most GPUs first (then kueue-classic).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "model/status.h"
#include "model/time.h"
#include "model/workload.h"

namespace steward::govern {

// What an ordering may look at. Built by the engine for each candidate.
struct AdmittedWorkload;

struct VictimCandidate {
  int64_t workload_id = 0;
  const AdmittedWorkload* workload = nullptr;  // The engine's record (for the engine only).
  int cluster_queue = -1;                      // Engine's queue index.
  bool same_queue = false;                     // In the preemptor's own ClusterQueue.
  bool evicting = false;  // Already being evicted (its quota is as good as free).
  int32_t priority = 0;
  model::Tier tier = model::Tier::kDev;
  SimTime admit_time;  // QuotaReserved transition.
  int gpus = 0;
  // GPU-hours thrown away if preempted now: gpus * (now - last checkpoint, or admission when
  // it never checkpoints) + gpus * restore time.
  double lost_gpu_hours = 0;
};

class VictimOrdering {
 public:
  virtual ~VictimOrdering() = default;
  VictimOrdering() = default;
  VictimOrdering(const VictimOrdering&) = delete;
  VictimOrdering& operator=(const VictimOrdering&) = delete;

  virtual std::string_view Name() const = 0;
  // Strict weak order: true if `a` should be tried before `b`. Must be total (ties broken by
  // workload id) so runs are deterministic.
  virtual bool Before(const VictimCandidate& a, const VictimCandidate& b) const = 0;
};

// The names NewVictimOrdering accepts, in a stable order.
std::vector<std::string_view> VictimOrderingNames();
// Builds the ordering called `name`; unknown names give an error listing the valid ones.
Result<std::unique_ptr<VictimOrdering>> NewVictimOrdering(std::string_view name);

// Factories of the built-in orderings (each in src/govern/policies/).
std::unique_ptr<VictimOrdering> NewKueueClassicOrdering();
std::unique_ptr<VictimOrdering> NewCheckpointAwareOrdering();
std::unique_ptr<VictimOrdering> NewLargestFirstOrdering();

}  // namespace steward::govern

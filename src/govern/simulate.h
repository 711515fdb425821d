// Simulate: what Kueue's scheduler would do with a set of ClusterQueues and Workloads
// (`steward policy simulate`), cycle by cycle, on the governance engine.
//
//   auto input = govern::LoadSimulationFiles(files);          // workload_import.h
//   auto result = govern::Simulate(*input, {.max_cycles = 0});  // 0 = until nothing changes
//   std::cout << govern::SimulationToJson(*result);
//
// One cycle follows Kueue's scheduler (pkg/scheduler/scheduler.go; queue-semantics.md §9):
//   1. one head per ClusterQueue: its best pending workload by priority, then queue-ordering
//      timestamp (then namespace/name, so the outcome never depends on declaration order);
//      heads parked by BestEffortFIFO are skipped until quota is freed in their cohort;
//   2. every head is nominated against the same state (flavor assignment, preemption targets);
//   3. heads are processed in order: within nominal before borrowing (lower borrowing level
//      first), higher priority, older timestamp; with fair sharing, lowest dominant-resource
//      share after admission first (re-evaluated after every admission);
//   4. a fitting head is admitted if it still fits; a preempting head issues its preemptions
//      when its targets do not overlap those already issued and it fits without them, and its
//      usage is reserved for the rest of the cycle; a head that needs preemption but has no
//      candidates reserves its quota (up to nominal, or the borrowing limit when borrowing)
//      unless its queue can always reclaim (reclaimWithinCohort: Any);
//   5. victims are evicted at the end of the cycle and requeued (eviction timestamp).
// A failed head of a BestEffortFIFO queue is parked until quota is freed in its cohort; a
// StrictFIFO head keeps blocking its queue unless it fails only on the namespaceSelector.
// Partial admission: a workload with minCount that does not fit is retried with fewer pods
// (largest counts that fit, by binary search, as Kueue's PodSetReducer).
//
// The engine runs with Kueue's own rules (victim order kueue-classic, no Steward tiers).
// Cost: O(cycles x queues x TryAdmit). Not thread-safe (one engine per call).
#pragma once

#include <string>
#include <vector>

#include "govern/workload_import.h"
#include "model/status.h"

namespace steward::govern {

struct SimulateOptions {
  int max_cycles = 0;  // 0 = until a cycle changes nothing (capped at 10,000).
};

struct SimulatedWorkload {
  std::string name;
  std::string namespace_name;
  std::string state;  // "admitted" | "preempted" | "pending".
  std::string cluster_queue;
  struct PodSetFlavors {
    std::string pod_set;
    int32_t count = 0;
    std::map<std::string, std::string> flavors;  // resource -> flavor.
  };
  std::vector<PodSetFlavors> flavors;  // Admitted only.
  std::string preempted_by;            // "namespace/name", preempted only.
  std::string reason;          // Preemption reason (Kueue's) or pending reason (PendingReasonName).
  std::string message;         // Why, with the numbers.
  int admitted_in_cycle = -1;  // 0 = admitted before the simulation.
};

struct SimulatedQueue {
  std::string name;
  struct Usage {
    std::string flavor;
    std::string resource;
    Amount usage = 0;
    Amount nominal = 0;
    Amount borrowed = 0;
  };
  std::vector<Usage> usage;
  int64_t weighted_share = 0;  // Kueue's status.fairSharing.weightedShare (rounded up).
};

struct SimulationResult {
  int cycles = 0;  // Cycles run.
  bool fair_sharing = false;
  std::vector<SimulatedWorkload> workloads;    // Sorted by namespace, name.
  std::vector<SimulatedQueue> cluster_queues;  // Sorted by name.
};

Result<SimulationResult> Simulate(const SimulationInput& input, const SimulateOptions& options);

// JSON (indent 2): {cycles, fair_sharing, workloads[...], cluster_queues[...]}; amounts in
// canonical units (CPU cores, bytes, counts).
std::string SimulationToJson(const SimulationResult& result);
// Human-readable: one line per workload, then per queue usage.
std::string SimulationToText(const SimulationResult& result);

// Kueue's reported weightedShare: the share rounded up to an integer (111.11 -> 112).
int64_t ReportedWeightedShare(double share);

}  // namespace steward::govern

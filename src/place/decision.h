// Decision: where a pod goes, or why it goes nowhere.
//
// "Does not fit" is a decision, not an error (docs/style.md rule 5): kNoFit carries the counts
// of nodes that rejected the pod for each reason, so a why-pending report can print them.
#pragma once

#include <string>

#include "place/cluster_state.h"

namespace steward::place {

// Why nodes rejected a pod; each node is counted once, under the first rule it breaks in the
// order below (the order of the simulator's filters).
struct NoFitCounts {
  int nodes = 0;
  int elsewhere = 0;  // Cordoned, or outside the pod's placement pool (the twin's rules).
  int cpu = 0;
  int memory = 0;
  int pod_slots = 0;
  int extended = 0;         // Too little of an extended resource the pod asks for.
  int no_gpu_or_model = 0;  // Node has no GPUs, or its model is not in the pod's gpu_spec.
  int gpu = 0;              // Too few GPUs with gpu_milli free.
};

struct Decision {
  enum class Mode { kNoFit, kFit };
  Mode mode = Mode::kNoFit;
  NodeId node = kNoNode;
  GpuList gpus;
  NoFitCounts why;  // Filled when mode == kNoFit.

  bool fits() const { return mode == Mode::kFit; }
  std::string Reason(const PodRequest& pod) const;
};

}  // namespace steward::place

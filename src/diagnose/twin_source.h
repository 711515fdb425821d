// The twin as a diagnosis source: runs a scenario and, every step, snapshots what a cluster
// would show: the dcgm-exporter records of every GPU (telemetry::TwinExporter, with data-loader
// stalls as drops to 0), the pods (running, starting, or pending with the scheduler's or the
// queue's reason) and the nodes.
#pragma once

#include <cstdint>

#include "diagnose/frame.h"
#include "twin/twin.h"

namespace steward::diagnose {

struct TwinSourceOptions {
  int64_t step_ms = 300'000;
  // Simulated time 0 in Unix milliseconds (the ledger's epoch, cost::kDefaultScenarioEpoch).
  int64_t epoch_ms = 0;
};

// Drives `twin` (created by the caller with its controllers, not yet run) to its horizon and
// feeds snapshots at simulated 0, step, 2 step, ... (< horizon) into `builder`.
Status RunTwinSource(twin::Twin& twin, const TwinSourceOptions& options, FrameBuilder& builder);

// Pods of a pending twin workload wait on the node fit (scheduler: Unschedulable) for these
// twin/govern reasons, and on quota (Kueue admission gate) for every other.
bool IsNoFitReason(std::string_view twin_reason);

}  // namespace steward::diagnose

// Lifecycle records: what happened to one workload and when (arrive, admit, place, start,
// checkpoint, finish, fail, drain, preempt, stop, scale).
//
// Why records and not event kinds: the event loop runs admission and placement in one
// scheduling pass (EventKind::kSchedule), as Kueue's admission cycle is followed at once by
// kube-scheduler binding the admitted pods; quota is only reserved when the pods fit. The
// records name the steps an SRE reads in `kubectl describe` (admitted, scheduled, started), so
// a workload's story can be told without knowing how the loop batches them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/time.h"
#include "model/workload.h"

namespace steward::twin {

enum class LifecycleKind : uint8_t {
  kArrive,      // Submitted (the Workload object exists).
  kAdmit,       // The admitter reserved quota (Kueue: QuotaReserved + Admitted).
  kPlace,       // Its pods were bound to nodes; detail lists node:GPU-count pairs.
  kStart,       // Its pods run (after container startup).
  kCheckpoint,  // It saved a checkpoint.
  kFinish,      // It completed and released its GPUs.
  kFail,        // A fault or failure stopped it; it is pending again.
  kDrain,       // Remediation evicted it from a node; it is pending again.
  kPreempt,     // The admitter preempted it; it is pending again.
  kStop,        // A controller stopped it for good (idle reclaim).
  kScale,       // A service's desired replicas changed; gpus = desired replicas.
  kResize,      // An elastic job was resized while running; gpus = the GPUs it holds now.
};

std::string_view LifecycleKindName(LifecycleKind kind);

struct LifecycleRecord {
  SimTime at;
  LifecycleKind kind = LifecycleKind::kArrive;
  const model::Workload* spec = nullptr;  // Valid during the callback only.
  std::string_view team;
  int gpus = 0;               // GPUs placed, held or released (kScale: desired replicas).
  double lost_gpu_hours = 0;  // Work thrown away (fail, drain, preempt).
  std::string detail;         // Nodes for kPlace; the preemptor for kPreempt.
};

}  // namespace steward::twin

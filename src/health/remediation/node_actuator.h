// NodeActuator: the side effects of remediation, behind an interface so one controller drives
// both the digital twin (which implements it on its model) and a live cluster (a Kubernetes
// adapter: cordon = spec.unschedulable, evict = the Eviction API, tickets = the ticket system).
//
// Contract for implementations:
// - Every call may fail with a Status; the controller then leaves the node where it is and
//   retries on a later Tick(). So calls must be idempotent: cordoning a cordoned node, evicting
//   a workload already gone (return OK or NotFound), opening a ticket whose `id` was already
//   opened (return the same external reference) are all fine.
// - Calls are synchronous requests; their effects may complete later (an eviction finishes
//   within its grace, a diagnostic reports through RemediationController::OnDiagnosticResult,
//   a ticket through OnTicketResolved).
// - The controller calls from its own thread only; implementations need no locking for it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "health/remediation/ticket.h"
#include "model/status.h"
#include "model/time.h"
#include "model/workload.h"

namespace steward::health {

// A workload with pods on the node, as the drain needs to see it.
struct NodeWorkload {
  std::string id;  // Stable name (namespace/name in Kubernetes, the twin's workload id).
  model::Tier tier = model::Tier::kDev;
  bool can_checkpoint = false;  // Saves state on SIGTERM within its grace (training jobs).
};

class NodeActuator {
 public:
  NodeActuator() = default;
  NodeActuator(const NodeActuator&) = delete;
  NodeActuator& operator=(const NodeActuator&) = delete;
  virtual ~NodeActuator() = default;

  // Marks the node unschedulable (running pods stay).
  virtual Status Cordon(std::string_view node) = 0;
  virtual Status Uncordon(std::string_view node) = 0;
  // Workloads still holding pods on the node (DaemonSet/mirror pods excluded).
  virtual Result<std::vector<NodeWorkload>> ListWorkloads(std::string_view node) = 0;
  // Evicts the workload's pods on the node; they get `grace` to exit (a checkpointing job saves
  // in that time). grace == 0 means immediate (a forced eviction after the drain timeout).
  virtual Status Evict(std::string_view node, const NodeWorkload& workload, SimDuration grace) = 0;
  // Files the ticket; returns the ticket system's reference. Idempotent on ticket.id.
  virtual Result<std::string> OpenTicket(const Ticket& ticket) = 0;
  // Starts a validation diagnostic (e.g. DCGM diag level 3); the result comes back through
  // RemediationController::OnDiagnosticResult.
  virtual Status RunDiagnostic(std::string_view node) = 0;
};

}  // namespace steward::health

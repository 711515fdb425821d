// Ticket: a repair request, for one node or for a rack/leaf incident shared by many nodes.
#pragma once

#include <string>
#include <vector>

#include "health/incidents/incident.h"
#include "health/remediation/fault_signal.h"
#include "model/time.h"

namespace steward::health {

struct Ticket {
  TicketId id = 0;          // Steward's id: stable across restarts, the actuator's idempotency key.
  IncidentId incident = 0;  // Root incident it was opened for (0 for a failed re-validation).
  IncidentScope scope = IncidentScope::kNode;
  std::string subject;  // Node name, "rack-3" or "leaf-1".
  RepairKind kind = RepairKind::kNone;
  bool needs_human = false;  // Quarantine: automation will not close the loop by itself.
  std::string summary;
  std::vector<std::string> nodes;  // Nodes known to be affected when it was opened.
  SimTime opened_at;
  SimTime resolved_at = SimTime::Never();
  std::string external_ref;  // What the ticket system returned; empty until delivered.
  bool delivered = false;    // OpenTicket() succeeded (outbox flag: undelivered ones are resent).

  bool resolved() const { return !resolved_at.is_never(); }
};

}  // namespace steward::health

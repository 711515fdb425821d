// TwinActuator: the NodeActuator of the digital twin. Cordon, list and evict go to the twin's
// operations (twin::TwinOps); tickets and diagnostics go to a simulated repair shop, which
// finishes each job after the time the scenario gives (remediation section) and reports it
// back through TakeDue(). TwinRemediation (twin_remediation.h) drives both.
//
// Workloads are named "namespace/name" (unique in the twin); an eviction looks the name up on
// the node again, so the actuator keeps no workload state. Every call is idempotent, as the
// NodeActuator contract asks: evicting a workload that already left is OK.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "health/remediation/node_actuator.h"
#include "twin/controller.h"
#include "twin/scenario.h"

namespace steward::health {

class TwinActuator : public NodeActuator {
 public:
  // A finished job of the repair shop.
  struct Done {
    enum class Kind : uint8_t { kRepair, kDiagnostic };
    Kind kind = Kind::kRepair;
    SimTime at;
    TicketId ticket = 0;       // kRepair.
    bool needs_human = false;  // kRepair of a quarantine ticket.
    std::string node;          // kDiagnostic (and the subject of a quarantine ticket).
  };

  // `ops` must outlive the actuator.
  TwinActuator(twin::TwinOps& ops, const twin::RemediationSpec& spec);

  Status Cordon(std::string_view node) override;
  Status Uncordon(std::string_view node) override;
  Result<std::vector<NodeWorkload>> ListWorkloads(std::string_view node) override;
  Status Evict(std::string_view node, const NodeWorkload& workload, SimDuration grace) override;
  // Schedules the repair: done after the spec's hours for the ticket's kind (a quarantine
  // ticket waits for a human: human_release_hours).
  Result<std::string> OpenTicket(const Ticket& ticket) override;
  // Schedules the diagnostic's result after diagnostic_minutes.
  Status RunDiagnostic(std::string_view node) override;

  // Time of the shop's next finished job; Never() when idle.
  SimTime NextDeadline() const;
  // Jobs finished at or before `now`, in time order (then in the order they were started).
  std::vector<Done> TakeDue(SimTime now);
  // Hours a repair of `kind` takes.
  SimDuration RepairTime(RepairKind kind) const;

 private:
  Result<model::NodeId> Find(std::string_view node) const;

  twin::TwinOps& ops_;
  twin::RemediationSpec spec_;
  std::multimap<SimTime, Done> jobs_;  // By finish time; equal times keep insertion order.
  std::set<TicketId> opened_;          // OpenTicket is idempotent on the ticket id.
};

}  // namespace steward::health

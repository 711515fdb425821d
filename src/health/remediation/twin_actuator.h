// TwinActuator: the NodeActuator of the digital twin. Cordon, list and evict are
// ControlActuator's, over the twin's control::ClusterControl (twin/twin_cluster_control.h), the
// same code a live cluster runs; tickets and diagnostics go to a simulated repair shop, which
// finishes each job after the time the scenario gives (remediation section) and reports it
// back through TakeDue(). TwinRemediation (twin_remediation.h) drives both.
//
// Every call is idempotent, as the NodeActuator contract asks: evicting a workload that already
// left is OK.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "health/remediation/control_actuator.h"
#include "twin/controller.h"
#include "twin/scenario.h"
#include "twin/twin_cluster_control.h"

namespace steward::health {

namespace internal {
// Holds the twin's ClusterControl so it is constructed before ControlActuator, which uses it.
struct TwinControlHolder {
  explicit TwinControlHolder(twin::TwinOps& ops) : twin_control(ops) {}
  twin::TwinClusterControl twin_control;
};
}  // namespace internal

class TwinActuator : private internal::TwinControlHolder, public ControlActuator {
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
  twin::TwinOps& ops_;
  twin::RemediationSpec spec_;
  std::multimap<SimTime, Done> jobs_;  // By finish time; equal times keep insertion order.
  std::set<TicketId> opened_;          // OpenTicket is idempotent on the ticket id.
};

}  // namespace steward::health

// TwinRemediation: the remediation loop (RemediationController) running on the digital twin as
// a twin::TwinController.
//
//   twin signal (XID, GPUs missing)  -> RemediationController::OnXid / OnCondition
//   controller actions               -> TwinActuator -> twin::TwinOps (cordon, evict) and the
//                                       simulated repair shop (tickets, diagnostics)
//   a repair finishes                -> the shop's technician repairs the ticket's nodes
//                                       (TwinOps::Repair; with repair_failure_probability it
//                                       does not hold) -> OnTicketResolved
//   a quarantine ticket's human      -> repairs the node -> ReleaseQuarantine
//   a diagnostic finishes            -> OnDiagnosticResult(TwinOps::Healthy(node))
//   timers                           -> Tick at min(controller deadline, shop deadline)
//
// The XID's action comes from the XID catalog; NVLink XIDs share the "nvlink" family so a
// switch fault hitting a rack groups into one rack incident. Deterministic: repair outcomes
// draw from their own stream of the scenario seed.
#pragma once

#include <memory>
#include <string>

#include "health/remediation/remediation_controller.h"
#include "health/remediation/twin_actuator.h"
#include "twin/controller.h"
#include "twin/rng.h"
#include "twin/scenario.h"
#include "twin/twin.h"

namespace steward::health {

class TwinRemediation : public twin::TwinController {
 public:
  // `db_path`: the controller's SQLite store (":memory:" keeps it in memory). `options`
  // defaults come from RemediationOptions; spec.max_out_fraction overrides the budget.
  TwinRemediation(twin::RemediationSpec spec, std::string db_path, uint64_t seed,
                  RemediationOptions options = {}, IncidentOptions incident_options = {});

  std::string_view Name() const override { return "remediation"; }
  Status Attach(twin::TwinOps& ops) override;
  void OnSignal(const twin::TwinSignal& signal) override;
  void OnWake(SimTime now) override;
  SimTime NextDeadline() const override;
  void Contribute(twin::Report& report) const override;
  Status status() const override { return status_; }

  // Valid after Attach.
  const RemediationController& controller() const { return *controller_; }
  RemediationController& controller() { return *controller_; }
  const TwinActuator& actuator() const { return *actuator_; }
  // Open: not closed by its ticket and some member node is still out of service.
  bool IsOpen(const Incident& incident) const;

 private:
  void Record(const Status& s);
  void Finish(const TwinActuator::Done& done, SimTime now);
  // The technician's repair of one node (may not hold).
  void RepairNode(const std::string& node);

  twin::RemediationSpec spec_;
  std::string db_path_;
  RemediationOptions options_;
  IncidentOptions incident_options_;
  twin::Rng rng_;
  twin::TwinOps* ops_ = nullptr;
  std::unique_ptr<TwinActuator> actuator_;
  std::unique_ptr<RemediationController> controller_;
  Status status_;
};

// Attaches a TwinRemediation to `twin` as its scenario's remediation section asks: returns
// nullptr (and attaches nothing) when the section has enabled: false. `db_path` as above.
Result<TwinRemediation*> AttachRemediation(twin::Twin& twin,
                                           const std::string& db_path = ":memory:");

}  // namespace steward::health

// LiveActuator: the remediation loop's NodeActuator on a live cluster. Node actions are
// ControlActuator's (through the gated control, so they are planned, dry-run or applied);
// the repair side a cluster has no API for is handed to people through the cluster itself:
//
//   ticket      a Warning Event "RepairTicket" on the node (what to do and why) and the node
//               annotation steward.io/repair-ticket=<id>; a human (or the ticket system's
//               webhook) marks it done with `kubectl annotate node N steward.io/repair-done=<id>`
//   diagnostic  the annotation steward.io/diagnostic-requested=<unix seconds>; whoever runs the
//               validation (a DCGM diag job) reports with steward.io/diagnostic-result=pass|fail
//
// Operator (operate/operator.h) reads those annotations back from the cache each pass.
// Thread-safety: the operator's loop thread.
#pragma once

#include <string>

#include "health/remediation/control_actuator.h"

namespace steward::operate {

inline constexpr char kTicketAnnotation[] = "steward.io/repair-ticket";
inline constexpr char kRepairDoneAnnotation[] = "steward.io/repair-done";
inline constexpr char kDiagnosticRequestedAnnotation[] = "steward.io/diagnostic-requested";
inline constexpr char kDiagnosticResultAnnotation[] = "steward.io/diagnostic-result";

class LiveActuator final : public health::ControlActuator {
 public:
  explicit LiveActuator(control::ClusterControl& control) : ControlActuator(control) {}
  Result<std::string> OpenTicket(const health::Ticket& ticket) override;
  Status RunDiagnostic(std::string_view node) override;
};

}  // namespace steward::operate

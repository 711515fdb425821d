#include "operate/live_actuator.h"

#include <fmt/format.h>

namespace steward::operate {

Result<std::string> LiveActuator::OpenTicket(const health::Ticket& ticket) {
  const std::string message =
      fmt::format("Repair ticket {}: {} ({}){}; mark it done with `kubectl annotate node {} {}={}`",
                  ticket.id, ticket.summary, health::RepairKindName(ticket.kind),
                  ticket.needs_human ? ", needs a human to release the node" : "",
                  ticket.nodes.empty() ? ticket.subject : ticket.nodes.front(),
                  kRepairDoneAnnotation, ticket.id);
  for (const std::string& node : ticket.nodes) {
    STEWARD_RETURN_IF_ERROR(control().Annotate({"Node", "", node}, kTicketAnnotation,
                                               std::to_string(ticket.id), message));
    STEWARD_RETURN_IF_ERROR(
        control().EmitEvent({"Node", "", node}, "Warning", "RepairTicket", message));
  }
  return fmt::format("node-annotation:{}={}", kTicketAnnotation, ticket.id);
}

Status LiveActuator::RunDiagnostic(std::string_view node) {
  return control().Annotate({"Node", "", std::string(node)}, kDiagnosticRequestedAnnotation,
                            std::to_string(control().Now().micros() / 1000000),
                            fmt::format("remediation: validate {} (report with {}=pass|fail)", node,
                                        kDiagnosticResultAnnotation));
}

}  // namespace steward::operate

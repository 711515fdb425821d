#include "health/remediation/twin_actuator.h"

#include <fmt/format.h>

namespace steward::health {

TwinActuator::TwinActuator(twin::TwinOps& ops, const twin::RemediationSpec& spec)
    : TwinControlHolder(ops), ControlActuator(twin_control), ops_(ops), spec_(spec) {}

Status TwinActuator::RunDiagnostic(std::string_view node) {
  if (ops_.cluster().FindNode(node) == model::kNoNode)
    return Status::NotFound(fmt::format("twin: no node '{}'", node));
  Done d;
  d.kind = Done::Kind::kDiagnostic;
  d.node = std::string(node);
  d.at = ops_.Now() + SecondsF(spec_.diagnostic_minutes * 60);
  jobs_.emplace(d.at, std::move(d));
  return Status::Ok();
}

SimDuration TwinActuator::RepairTime(RepairKind kind) const {
  double hours = spec_.investigate_hours;
  switch (kind) {
    case RepairKind::kResetGpu:
      hours = spec_.reset_gpu_hours;
      break;
    case RepairKind::kReboot:
      hours = spec_.reboot_hours;
      break;
    case RepairKind::kRma:
      hours = spec_.rma_hours;
      break;
    case RepairKind::kNone:
    case RepairKind::kInvestigate:
      break;
  }
  return SecondsF(hours * 3600);
}

Result<std::string> TwinActuator::OpenTicket(const Ticket& ticket) {
  const std::string ref = fmt::format("TWIN-{}", ticket.id);
  if (!opened_.insert(ticket.id).second) return ref;
  Done d;
  d.kind = Done::Kind::kRepair;
  d.ticket = ticket.id;
  d.needs_human = ticket.needs_human;
  d.node = ticket.subject;
  d.at = ops_.Now() + (ticket.needs_human ? SecondsF(spec_.human_release_hours * 3600)
                                          : RepairTime(ticket.kind));
  jobs_.emplace(d.at, std::move(d));
  return ref;
}

SimTime TwinActuator::NextDeadline() const {
  return jobs_.empty() ? SimTime::Never() : jobs_.begin()->first;
}

std::vector<TwinActuator::Done> TwinActuator::TakeDue(SimTime now) {
  std::vector<Done> out;
  while (!jobs_.empty() && jobs_.begin()->first <= now) {
    out.push_back(std::move(jobs_.begin()->second));
    jobs_.erase(jobs_.begin());
  }
  return out;
}

}  // namespace steward::health

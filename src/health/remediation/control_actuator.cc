#include "health/remediation/control_actuator.h"

#include <fmt/format.h>

#include <algorithm>

namespace steward::health {

std::string ControlActuator::ReasonFor(std::string_view node, std::string_view what) const {
  const std::string why = reason_source_ ? reason_source_(node) : "";
  return why.empty() ? fmt::format("remediation: {}", what)
                     : fmt::format("remediation: {} ({})", what, why);
}

Status ControlActuator::Cordon(std::string_view node) {
  if (!control_.Node(node)) return Status::NotFound(fmt::format("no node '{}'", node));
  return control_.Cordon(node, true, ReasonFor(node, "node suspected faulty"));
}

Status ControlActuator::Uncordon(std::string_view node) {
  if (!control_.Node(node)) return Status::NotFound(fmt::format("no node '{}'", node));
  return control_.Cordon(node, false, ReasonFor(node, "node validated"));
}

Result<std::vector<NodeWorkload>> ControlActuator::ListWorkloads(std::string_view node) {
  if (!control_.Node(node)) return Status::NotFound(fmt::format("no node '{}'", node));
  std::vector<NodeWorkload> out;
  for (const control::PodInfo& p : control_.PodsOnNode(node)) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const NodeWorkload& w) { return w.id == p.workload; });
    if (it != out.end()) {
      it->can_checkpoint = it->can_checkpoint && p.can_checkpoint;
      continue;
    }
    NodeWorkload w;
    w.id = p.workload;
    w.tier = p.tier;
    w.can_checkpoint = p.can_checkpoint;
    out.push_back(std::move(w));
  }
  return out;
}

Status ControlActuator::Evict(std::string_view node, const NodeWorkload& workload,
                              SimDuration grace) {
  if (!control_.Node(node)) return Status::NotFound(fmt::format("no node '{}'", node));
  const std::string reason = ReasonFor(node, fmt::format("drain {}", node));
  control::IntentScope drain(control_, "drain");
  for (const control::PodInfo& p : control_.PodsOnNode(node)) {
    // A pod already terminating left with an earlier attempt (one whose other pods a
    // disruption budget held back): evicting it again would only repeat the write.
    if (p.workload != workload.id || p.terminating) continue;
    Status s = control_.Evict(p.ref, grace, reason);
    if (!s.ok() && s.code() != Status::Code::kNotFound) return s;  // Gone already is done.
  }
  return Status::Ok();
}

}  // namespace steward::health

#include "health/remediation/twin_remediation.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "model/xid_catalog.h"
#include "twin/report.h"

namespace steward::health {

TwinRemediation::TwinRemediation(twin::RemediationSpec spec, std::string db_path, uint64_t seed,
                                 RemediationOptions options, IncidentOptions incident_options)
    : spec_(spec),
      db_path_(std::move(db_path)),
      options_(options),
      incident_options_(incident_options),
      rng_(twin::MixSeed(seed, 0x4e9a1)) {
  options_.max_out_fraction = spec_.max_out_fraction;
}

Status TwinRemediation::Attach(twin::TwinOps& ops) {
  // A diagnostic slower than the controller's timeout would always fail validation.
  if (SecondsF(spec_.diagnostic_minutes * 60) >= options_.diagnostic_timeout)
    return Status::InvalidArgument(
        fmt::format("remediation.diagnostic_minutes {} must be below the diagnostic timeout "
                    "({} min)",
                    spec_.diagnostic_minutes, options_.diagnostic_timeout.ToSeconds() / 60));
  ops_ = &ops;
  actuator_ = std::make_unique<TwinActuator>(ops, spec_);
  STEWARD_ASSIGN_OR_RETURN(
      controller_, RemediationController::Open(db_path_, NodeTopology::FromCluster(ops.cluster()),
                                               actuator_.get(), options_, incident_options_));
  return Status::Ok();
}

void TwinRemediation::Record(const Status& s) {
  if (!s.ok() && status_.ok()) status_ = s;
}

void TwinRemediation::OnSignal(const twin::TwinSignal& signal) {
  if (signal.node == model::kNoNode) return;
  const std::string& node = ops_->cluster().node(signal.node).name;
  switch (signal.kind) {
    case twin::TwinSignal::Kind::kXid: {
      const model::XidEntry* e = model::XidCatalog::Builtin().Find(signal.xid);
      const XidAction action = e ? e->action : XidAction::kNone;
      Record(controller_->OnXid(
          node, MakeXid(signal.xid, action, std::string(model::XidFamily(signal.xid)), signal.gpu),
          signal.at));
      break;
    }
    case twin::TwinSignal::Kind::kGpusMissing:
    case twin::TwinSignal::Kind::kGpusBack: {
      NodeConditionSignal c;
      c.type = "GPUMissing";  // The condition AKS's node problem detector sets.
      c.status = signal.kind == twin::TwinSignal::Kind::kGpusMissing;
      c.reason = c.status ? "device plugin advertises no GPUs" : "GPUs advertised again";
      Record(controller_->OnCondition(node, c, signal.at));
      break;
    }
    case twin::TwinSignal::Kind::kUsage:  // Workload signals: not observed (node health only).
    case twin::TwinSignal::Kind::kGpusTaken:
    case twin::TwinSignal::Kind::kGpusFreed:
      break;
  }
}

void TwinRemediation::RepairNode(const std::string& node) {
  const model::NodeId n = ops_->cluster().FindNode(node);
  if (n == model::kNoNode) return;
  // A repair that does not hold leaves the node as it was: its validation will fail.
  if (rng_.Bernoulli(spec_.repair_failure_probability)) return;
  Record(ops_->Repair(n));
}

void TwinRemediation::Finish(const TwinActuator::Done& done, SimTime now) {
  if (done.kind == TwinActuator::Done::Kind::kDiagnostic) {
    // A result that arrives after the node left validation (timeout) is stale.
    if (controller_->state(done.node) != NodeState::kValidating) return;
    const model::NodeId n = ops_->cluster().FindNode(done.node);
    const bool passed = n != model::kNoNode && ops_->Healthy(n);
    Record(controller_->OnDiagnosticResult(done.node, passed,
                                           passed ? "DCGM diag passed" : "GPU still faulty", now));
    return;
  }
  if (done.needs_human) {
    // A human looks at the quarantined node, fixes it for good and vouches for it.
    if (controller_->state(done.node) != NodeState::kQuarantined) return;
    const model::NodeId n = ops_->cluster().FindNode(done.node);
    if (n != model::kNoNode) Record(ops_->Repair(n));
    Record(controller_->ReleaseQuarantine(done.node, "twin technician", now));
    return;
  }
  auto it = controller_->tickets().find(done.ticket);
  if (it == controller_->tickets().end()) return;
  // The shared repair fixes every node of the ticket and of its incident (members that joined
  // after the ticket was filed included).
  std::set<std::string> nodes(it->second.nodes.begin(), it->second.nodes.end());
  if (const Incident* inc = controller_->incidents().Find(it->second.incident))
    nodes.insert(inc->nodes.begin(), inc->nodes.end());
  for (const std::string& node : nodes) RepairNode(node);
  Record(controller_->OnTicketResolved(done.ticket, now));
}

void TwinRemediation::OnWake(SimTime now) {
  for (const TwinActuator::Done& d : actuator_->TakeDue(now)) Finish(d, now);
  Record(controller_->Tick(now));
}

SimTime TwinRemediation::NextDeadline() const {
  return std::min(controller_->NextDeadline(), actuator_->NextDeadline());
}

bool TwinRemediation::IsOpen(const Incident& inc) const {
  if (inc.closed) return false;
  // An incident whose nodes are all back (e.g. a second fault on a node already in repair,
  // which the repair of the first fixed) is over even without a ticket of its own.
  return std::any_of(inc.nodes.begin(), inc.nodes.end(), [&](const std::string& n) {
    return controller_->state(n) != NodeState::kHealthy;
  });
}

void TwinRemediation::Contribute(twin::Report& report) const {
  twin::FaultReport& f = report.faults;
  f.incidents_open = 0;
  f.incidents = 0;
  for (const auto& [id, inc] : controller_->incidents().incidents()) {
    if (inc.parent != 0) continue;  // Merged into a wider incident.
    ++f.incidents;
    f.incidents_open += IsOpen(inc);
  }
  f.tickets = static_cast<int>(controller_->tickets().size());
  f.nodes_quarantined = controller_->CountInState(NodeState::kQuarantined);
}

Result<TwinRemediation*> AttachRemediation(twin::Twin& twin, const std::string& db_path) {
  const twin::Scenario& s = twin.scenario();
  if (!s.remediation.enabled) return static_cast<TwinRemediation*>(nullptr);
  STEWARD_ASSIGN_OR_RETURN(
      twin::TwinController * c,
      twin.AddController(std::make_unique<TwinRemediation>(s.remediation, db_path, s.seed)));
  return static_cast<TwinRemediation*>(c);
}

}  // namespace steward::health

#include "health/remediation/remediation_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace steward::health {
namespace {

SimTime Before(SimTime t, SimDuration d) { return t + (SimDuration() - d); }

std::string Dur(SimDuration d) {
  int64_t s = d.micros() / 1'000'000;
  if (s % 3600 == 0 && s != 0) return fmt::format("{}h", s / 3600);
  if (s % 60 == 0 && s != 0) return fmt::format("{}min", s / 60);
  return fmt::format("{}s", s);
}

RepairKind KindFor(XidAction a) {
  switch (a) {
    case XidAction::kResetGpu:
      return RepairKind::kResetGpu;
    case XidAction::kReboot:
      return RepairKind::kReboot;
    case XidAction::kDrainAndRma:
      return RepairKind::kRma;
    default:
      return RepairKind::kNone;
  }
}

// Eviction phase: checkpointing jobs are asked to save at drain start whatever their tier
// (the earlier they start, the sooner the node is empty); the rest go dev -> training ->
// production, one tier_step apart.
int PhaseOf(const NodeWorkload& w) {
  if (w.can_checkpoint) return 0;
  switch (w.tier) {
    case model::Tier::kDev:
      return 0;
    case model::Tier::kTraining:
      return 1;
    case model::Tier::kProduction:
      return 2;
  }
  return 0;
}

// Within a phase: checkpointers first, then least important tier first, then by id so the
// order (and so the twin's run) is deterministic.
bool EvictBefore(const NodeWorkload& a, const NodeWorkload& b) {
  if (a.can_checkpoint != b.can_checkpoint) return a.can_checkpoint;
  if (a.tier != b.tier) return static_cast<int>(a.tier) > static_cast<int>(b.tier);
  return a.id < b.id;
}

NodeRecord Fresh(std::string_view name) {
  NodeRecord r;
  r.name = std::string(name);
  return r;
}

Status ValidateOptions(const RemediationOptions& o, const IncidentOptions& i) {
  auto bad = [](std::string what) {
    return Status::InvalidArgument("remediation options: " + what);
  };
  if (!(o.max_out_fraction > 0 && o.max_out_fraction <= 1)) {
    return bad("max_out_fraction must be in (0, 1]");
  }
  if (o.flap_max_failures < 1) return bad("flap_max_failures must be >= 1");
  if (o.restart_escalation_count < 0) return bad("restart_escalation_count must be >= 0");
  for (SimDuration d :
       {o.flap_window, o.checkpoint_grace, o.eviction_grace, o.tier_step, o.drain_timeout,
        o.ticket_hold, o.diagnostic_timeout, o.restart_escalation_window, i.window}) {
    if (d < SimDuration()) return bad("durations must be >= 0");
  }
  if (o.drain_timeout < o.tier_step * 2 + std::max(o.checkpoint_grace, o.eviction_grace)) {
    return bad("drain_timeout must be >= 2 * tier_step + max(checkpoint_grace, eviction_grace)");
  }
  if (i.rack_min_nodes < 0 || i.leaf_min_nodes < 0 || i.leaf_min_racks < 0) {
    return bad("incident thresholds must be >= 0");
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<RemediationController>> RemediationController::Open(
    const std::string& db_path, NodeTopology topology, NodeActuator* actuator,
    RemediationOptions options, IncidentOptions incident_options) {
  if (actuator == nullptr) return Status::InvalidArgument("remediation: null actuator");
  STEWARD_RETURN_IF_ERROR(ValidateOptions(options, incident_options));
  STEWARD_ASSIGN_OR_RETURN(auto store, RemediationStore::Open(db_path));
  std::unique_ptr<RemediationController> c(new RemediationController(
      std::move(topology), actuator, options, incident_options, std::move(store)));
  STEWARD_RETURN_IF_ERROR(c->Resume());
  return c;
}

RemediationController::RemediationController(NodeTopology topology, NodeActuator* actuator,
                                             RemediationOptions options,
                                             IncidentOptions incident_options,
                                             std::unique_ptr<RemediationStore> store)
    : topology_(std::move(topology)),
      actuator_(actuator),
      options_(options),
      store_(std::move(store)),
      grouper_(incident_options) {
  out_.assign(topology_.num_pools(), 0);
  queue_.resize(topology_.num_pools());
}

int RemediationController::PoolOf(std::string_view node) const {
  const NodePlacement* p = topology_.Find(node);
  return p ? p->pool : -1;
}

Status RemediationController::Resume() {
  // Index updates mirror Commit(): a node loads exactly as if its last Commit had just run.
  STEWARD_ASSIGN_OR_RETURN(auto nodes, store_->LoadNodes());
  for (NodeRecord& n : nodes) {
    now_ = std::max(now_, n.since);
    int pool = PoolOf(n.name);
    if (n.state != NodeState::kHealthy) {
      ++state_counts_[static_cast<int>(n.state)];
      active_.insert(n.name);
    }
    // A node no longer in the topology keeps its record but no pool budget.
    if (pool >= 0) {
      if (IsOut(n.state)) ++out_[pool];
      if (n.state == NodeState::kSuspect) queue_[pool].insert({n.episode_start.micros(), n.name});
    }
    std::string name = n.name;
    nodes_.emplace(std::move(name), std::move(n));
  }
  STEWARD_ASSIGN_OR_RETURN(auto tickets, store_->LoadTickets());
  for (Ticket& t : tickets) {
    if (!t.delivered) undelivered_.insert(t.id);
    TicketId id = t.id;
    tickets_.emplace(id, std::move(t));
  }
  STEWARD_ASSIGN_OR_RETURN(SimTime latest, store_->LatestFaultTime());
  now_ = std::max(now_, latest);

  STEWARD_ASSIGN_OR_RETURN(auto incidents, store_->LoadIncidents());
  SimDuration lookback = std::max(grouper_.options().window, options_.restart_escalation_window);
  STEWARD_ASSIGN_OR_RETURN(auto faults, store_->LoadFaultsSince(Before(now_, lookback)));
  std::vector<GroupedFault> recent;
  for (const FaultRecord& f : faults) {
    if (f.source == "xid" && f.action == static_cast<int>(XidAction::kRestartWorkload) &&
        f.category.rfind("xid", 0) == 0 && f.category != "xid-repeat" &&
        f.at >= Before(now_, options_.restart_escalation_window)) {
      restarts_[f.node].push_back(f.at);
    }
    const NodePlacement* p = topology_.Find(f.node);
    if (f.incident != 0 && p != nullptr && f.at >= Before(now_, grouper_.options().window)) {
      recent.push_back({f.node, p->rack, p->leaf, f.category, f.at, f.incident});
    }
  }
  // An escalation consumed the restarts before it; drop them so they do not count again.
  for (const FaultRecord& f : faults) {
    if (f.category == "xid-repeat") {
      auto& q = restarts_[f.node];
      while (!q.empty() && q.front() <= f.at) q.pop_front();
    }
  }
  grouper_.Restore(std::move(incidents), std::move(recent));

  STEWARD_ASSIGN_OR_RETURN(auto failures, store_->LoadFailures(Before(now_, options_.flap_window)));
  for (auto& [node, at] : failures) failures_[node].push_back(at);
  return Status::Ok();
}

NodeRecord RemediationController::Current(std::string_view node) const {
  auto it = nodes_.find(node);
  return it == nodes_.end() ? Fresh(node) : it->second;
}

Status RemediationController::Commit(NodeRecord next, std::string_view reason, SimTime now,
                                     const TxnHook& more) {
  auto it = nodes_.find(next.name);
  const NodeState from = it == nodes_.end() ? NodeState::kHealthy : it->second.state;
  SqliteTransaction txn(store_->db());
  STEWARD_RETURN_IF_ERROR(txn.Begin());
  int64_t transition_id = 0;
  if (from != next.state) {
    next.since = now;
    STEWARD_ASSIGN_OR_RETURN(
        transition_id,
        store_->AppendTransition({0, next.name, from, next.state, now, std::string(reason)}));
  }
  if (more) STEWARD_RETURN_IF_ERROR(more(next, transition_id));
  STEWARD_RETURN_IF_ERROR(store_->SaveNode(next));
  STEWARD_RETURN_IF_ERROR(txn.Commit());

  const int pool = PoolOf(next.name);
  if (it != nodes_.end()) {
    const NodeRecord& old = it->second;
    if (old.state != NodeState::kHealthy) --state_counts_[static_cast<int>(old.state)];
    if (pool >= 0 && IsOut(old.state)) --out_[pool];
    if (pool >= 0 && old.state == NodeState::kSuspect) {
      queue_[pool].erase({old.episode_start.micros(), old.name});
    }
  }
  if (next.state != NodeState::kHealthy) {
    ++state_counts_[static_cast<int>(next.state)];
    active_.insert(next.name);
  } else {
    active_.erase(next.name);
  }
  if (pool >= 0 && IsOut(next.state)) ++out_[pool];
  if (pool >= 0 && next.state == NodeState::kSuspect) {
    queue_[pool].insert({next.episode_start.micros(), next.name});
  }
  std::string name = next.name;
  nodes_.insert_or_assign(std::move(name), std::move(next));
  return Status::Ok();
}

bool RemediationController::Flapping(const std::string& node, SimTime now) const {
  auto it = failures_.find(node);
  int count = 1;  // The failure happening now.
  if (it != failures_.end()) {
    for (SimTime t : it->second) {
      if (t >= Before(now, options_.flap_window) && t <= now) ++count;
    }
  }
  return count >= options_.flap_max_failures;
}

// ---------------------------------------------------------------------------------------------
// Signals

Status RemediationController::OnXid(std::string_view node, const XidEvent& xid, SimTime now) {
  if (topology_.Find(node) == nullptr) {
    return Status::NotFound(fmt::format("remediation: unknown node '{}'", node));
  }
  now_ = std::max(now_, now);
  const std::string name(node);
  switch (xid.action) {
    case XidAction::kNone:
      ++stats_.ignored_xids;
      return Status::Ok();
    case XidAction::kRestartWorkload: {
      FaultRecord f{
          name, now, "xid", xid.code, static_cast<int>(xid.action), fmt::format("xid{}", xid.code),
          0};
      STEWARD_ASSIGN_OR_RETURN(bool dup, store_->HasFault(f));
      if (dup) {
        ++stats_.duplicate_signals;
        return Status::Ok();
      }
      STEWARD_RETURN_IF_ERROR(store_->InsertFault(f));
      auto& q = restarts_[name];
      q.push_back(now);
      while (!q.empty() && q.front() < Before(now, options_.restart_escalation_window)) {
        q.pop_front();
      }
      if (options_.restart_escalation_count == 0 ||
          static_cast<int>(q.size()) < options_.restart_escalation_count) {
        return Status::Ok();
      }
      q.clear();
      FaultRecord esc{name, now, "xid", xid.code, static_cast<int>(xid.action), "xid-repeat", 0};
      return HandleFault(node, esc, RepairKind::kInvestigate, true,
                         fmt::format("{} restart-workload XIDs within {} (latest XID {})",
                                     options_.restart_escalation_count,
                                     Dur(options_.restart_escalation_window), xid.code),
                         now);
    }
    default:
      break;
  }
  FaultRecord f{name,
                now,
                "xid",
                xid.code,
                static_cast<int>(xid.action),
                xid.category.empty() ? fmt::format("xid{}", xid.code) : xid.category,
                0};
  std::string reason = fmt::format("XID {} ({})", xid.code, XidActionName(xid.action));
  if (xid.gpu >= 0) reason += fmt::format(" on GPU {}", xid.gpu);
  return HandleFault(node, std::move(f), KindFor(xid.action), true, std::move(reason), now);
}

Status RemediationController::OnCondition(std::string_view node, const NodeConditionSignal& c,
                                          SimTime now) {
  if (topology_.Find(node) == nullptr) {
    return Status::NotFound(fmt::format("remediation: unknown node '{}'", node));
  }
  if (c.type.empty()) return Status::InvalidArgument("remediation: condition without a type");
  now_ = std::max(now_, now);
  NodeRecord cur = Current(node);
  if (c.status) {
    // NPD re-reports a permanent condition every period: only the first True is a fault.
    if (cur.conditions.count(c.type)) return Status::Ok();
    FaultRecord f{cur.name, now, "npd", 0, 1, "npd:" + c.type, 0};
    std::string reason = fmt::format("condition {}=True", c.type);
    if (!c.reason.empty()) reason += " (" + c.reason + ")";
    return HandleFault(node, f, RepairKind::kInvestigate, false, reason, now,
                       [&](NodeRecord& r) { r.conditions.insert(c.type); });
  }
  if (!cur.conditions.count(c.type)) return Status::Ok();
  NodeRecord next = cur;
  next.conditions.erase(c.type);
  if (next.state == NodeState::kSuspect && !next.hard_fault && next.conditions.empty()) {
    // Never taken out, and nothing but the (now cleared) condition against it.
    return Commit(Fresh(node), fmt::format("condition {} cleared while queued", c.type), now);
  }
  return Commit(std::move(next), "", now);
}

Status RemediationController::OnDiagnosticResult(std::string_view node, bool passed,
                                                 std::string_view detail, SimTime now) {
  if (topology_.Find(node) == nullptr) {
    return Status::NotFound(fmt::format("remediation: unknown node '{}'", node));
  }
  now_ = std::max(now_, now);
  const std::string name(node);
  const NodeState s = state(node);
  if (passed) {
    if (s != NodeState::kValidating) return Status::Ok();
    if (Status u = actuator_->Uncordon(name); !u.ok()) {
      ++stats_.actuator_errors;
      NodeRecord next = Current(node);
      next.uncordon_pending = true;  // Tick retries the uncordon.
      return Commit(std::move(next), "", now);
    }
    std::string reason = "diagnostic passed: uncordoned";
    if (!detail.empty()) reason += fmt::format(" ({})", detail);
    STEWARD_RETURN_IF_ERROR(Commit(Fresh(node), reason, now));
    return Admit(now);  // Capacity came back: a queued suspect may go.
  }
  FaultRecord f{name, now, "diag", 0, 0, "diagnostic", 0};
  STEWARD_ASSIGN_OR_RETURN(bool dup, store_->HasFault(f));
  if (dup) {
    ++stats_.duplicate_signals;
    return Status::Ok();
  }
  std::string why = detail.empty() ? std::string("diagnostic failed")
                                   : fmt::format("diagnostic failed: {}", detail);
  if (s == NodeState::kValidating) return FailValidation(name, why, now, &f);
  return HandleFault(node, f, RepairKind::kInvestigate, true, why, now);
}

Status RemediationController::OnTicketResolved(TicketId id, SimTime now) {
  auto it = tickets_.find(id);
  if (it == tickets_.end()) return Status::NotFound(fmt::format("remediation: no ticket #{}", id));
  if (it->second.resolved()) return Status::Ok();
  now_ = std::max(now_, now);
  Ticket t = it->second;
  t.resolved_at = now;
  std::vector<IncidentId> closed;
  if (t.incident != 0) closed = grouper_.Close(t.incident);
  {
    SqliteTransaction txn(store_->db());
    STEWARD_RETURN_IF_ERROR(txn.Begin());
    STEWARD_RETURN_IF_ERROR(store_->UpdateTicket(t));
    for (IncidentId c : closed) STEWARD_RETURN_IF_ERROR(store_->SaveIncident(*grouper_.Find(c)));
    STEWARD_RETURN_IF_ERROR(txn.Commit());
  }
  it->second = std::move(t);
  std::vector<std::string> names(active_.begin(), active_.end());
  for (const std::string& name : names) {
    const NodeRecord& n = nodes_.at(name);
    if (n.state != NodeState::kInRepair || n.ticket != id) continue;
    STEWARD_RETURN_IF_ERROR(ToValidating(name, fmt::format("ticket #{} resolved", id), now));
    STEWARD_RETURN_IF_ERROR(Advance(name, now));
  }
  return Admit(now);
}

Status RemediationController::ReleaseQuarantine(std::string_view node, std::string_view by,
                                                SimTime now) {
  if (state(node) != NodeState::kQuarantined) {
    return Status::FailedPrecondition(fmt::format("remediation: node '{}' is {}, not quarantined",
                                                  node, NodeStateName(state(node))));
  }
  now_ = std::max(now_, now);
  NodeRecord next = Current(node);
  next.state = NodeState::kValidating;
  next.diag_requested = false;
  next.uncordon_pending = false;
  std::optional<Ticket> ticket;
  if (auto t = tickets_.find(next.ticket); t != tickets_.end() && !t->second.resolved()) {
    ticket = t->second;
    ticket->resolved_at = now;
  }
  STEWARD_RETURN_IF_ERROR(Commit(
      std::move(next), fmt::format("released from quarantine by {}", by), now,
      [&](NodeRecord&, int64_t) { return ticket ? store_->UpdateTicket(*ticket) : Status::Ok(); }));
  if (ticket) tickets_[ticket->id] = *ticket;
  STEWARD_RETURN_IF_ERROR(Advance(std::string(node), now));
  return Admit(now);
}

Status RemediationController::Tick(SimTime now) {
  now_ = std::max(now_, now);
  std::vector<TicketId> pending(undelivered_.begin(), undelivered_.end());
  for (TicketId id : pending) STEWARD_RETURN_IF_ERROR(Deliver(id));
  std::vector<std::string> names(active_.begin(), active_.end());
  for (const std::string& name : names) STEWARD_RETURN_IF_ERROR(Advance(name, now));
  return Admit(now);
}

SimTime RemediationController::NextDeadline() const {
  SimTime best = SimTime::Never();
  auto consider = [&](SimTime t) {
    if (t > now_ && t < best) best = t;
  };
  for (const std::string& name : active_) {
    const NodeRecord& n = nodes_.at(name);
    switch (n.state) {
      case NodeState::kDraining:
        if (n.drain_phase <= 2) consider(n.drain_started + options_.tier_step * n.drain_phase);
        consider(n.drain_expected_empty);
        consider(n.drain_started + options_.drain_timeout);
        break;
      case NodeState::kInRepair:
        if (n.ticket == 0) {
          const Incident* inc = grouper_.Find(grouper_.Root(n.incident));
          if (inc && inc->scope == IncidentScope::kNode && inc->ticket == 0) {
            consider(inc->first_fault + options_.ticket_hold);
          }
        }
        break;
      case NodeState::kValidating:
        consider(n.since + options_.diagnostic_timeout);
        break;
      default:
        break;
    }
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// The loop

Status RemediationController::HandleFault(std::string_view node, FaultRecord fault, RepairKind kind,
                                          bool hard, std::string reason, SimTime now,
                                          const std::function<void(NodeRecord&)>& mutate) {
  STEWARD_ASSIGN_OR_RETURN(bool dup, store_->HasFault(fault));
  if (dup) {
    ++stats_.duplicate_signals;
    return Status::Ok();
  }
  const NodePlacement* p = topology_.Find(node);
  const std::string name(node);
  IncidentGrouper::Outcome outcome = grouper_.Add({name, p->rack, p->leaf, fault.category, now, 0});
  fault.incident = outcome.incident;
  std::sort(outcome.changed.begin(), outcome.changed.end());
  outcome.changed.erase(std::unique(outcome.changed.begin(), outcome.changed.end()),
                        outcome.changed.end());

  NodeRecord next = Current(node);
  const bool was_validating = next.state == NodeState::kValidating;
  next.severity = std::max(next.severity, kind);
  next.hard_fault = next.hard_fault || hard;
  next.reason = reason;
  if (mutate) mutate(next);
  const Incident* root = grouper_.Find(outcome.incident);
  const bool failure = next.state == NodeState::kHealthy;
  if (failure) {
    next.state = NodeState::kSuspect;
    next.episode_start = now;
    next.incident = outcome.incident;
    next.ticket = 0;
    next.quarantine_pending = Flapping(name, now);
  } else if (next.incident == 0 || (root && root->scope != IncidentScope::kNode)) {
    next.incident = outcome.incident;  // A rack/leaf incident claims the node.
  }
  STEWARD_RETURN_IF_ERROR(Commit(std::move(next), reason, now, [&](NodeRecord&, int64_t) {
    STEWARD_RETURN_IF_ERROR(store_->InsertFault(fault));
    for (IncidentId id : outcome.changed) {
      STEWARD_RETURN_IF_ERROR(store_->SaveIncident(*grouper_.Find(id)));
    }
    return failure ? store_->AddFailure(name, now) : Status::Ok();
  }));
  if (failure) failures_[name].push_back(now);
  // A fault while the repair is being validated means the repair did not hold.
  if (was_validating) STEWARD_RETURN_IF_ERROR(FailValidation(name, reason, now, nullptr));
  return Admit(now);
}

int RemediationController::OutInPool(int pool) const {
  return pool >= 0 && pool < static_cast<int>(out_.size()) ? out_[pool] : 0;
}

int RemediationController::MaxOutInPool(int pool) const {
  int size = topology_.PoolSize(pool);
  if (size == 0) return 0;
  // The epsilon keeps 120 * 0.1 (= 12.000000000000002 in binary) at 12.
  int cap = static_cast<int>(std::ceil(size * options_.max_out_fraction - 1e-9));
  return std::max(1, cap);
}

std::vector<std::string> RemediationController::Queued(int pool) const {
  std::vector<std::string> out;
  if (pool < 0 || pool >= static_cast<int>(queue_.size())) return out;
  for (const auto& [since, name] : queue_[pool]) out.push_back(name);
  return out;
}

Status RemediationController::Admit(SimTime now) {
  for (int pool = 0; pool < static_cast<int>(queue_.size()); ++pool) {
    while (!queue_[pool].empty() && out_[pool] < MaxOutInPool(pool)) {
      const std::string name = queue_[pool].begin()->second;
      if (Status s = actuator_->Cordon(name); !s.ok()) {
        ++stats_.actuator_errors;
        break;  // Keep FIFO order: retry this node on the next Tick.
      }
      NodeRecord next = Current(name);
      next.state = NodeState::kCordoned;
      STEWARD_RETURN_IF_ERROR(Commit(
          std::move(next),
          fmt::format("cordoned (pool {}: {} of {} out)", pool, out_[pool] + 1, MaxOutInPool(pool)),
          now));
      STEWARD_RETURN_IF_ERROR(Advance(name, now));
    }
  }
  return Status::Ok();
}

Status RemediationController::Advance(const std::string& name, SimTime now) {
  // Each pass either makes one transition and loops, or waits and returns; a node crosses at
  // most cordoned -> draining -> in-repair -> validating in one call.
  for (int guard = 0; guard < 8; ++guard) {
    auto it = nodes_.find(name);
    if (it == nodes_.end()) return Status::Ok();
    NodeRecord& n = it->second;
    switch (n.state) {
      case NodeState::kCordoned: {
        NodeRecord next = n;
        next.state = NodeState::kDraining;
        next.drain_started = now;
        next.drain_phase = 0;
        next.drain_expected_empty = now;
        STEWARD_RETURN_IF_ERROR(
            Commit(std::move(next), "drain started", now, [](NodeRecord& r, int64_t id) {
              r.drain_id = id;  // Keys this drain's evictions.
              return Status::Ok();
            }));
        continue;
      }
      case NodeState::kDraining: {
        int forced = 0;
        STEWARD_ASSIGN_OR_RETURN(bool done, ContinueDrain(n, now, &forced));
        if (!done) return Status::Ok();
        STEWARD_RETURN_IF_ERROR(FinishDrain(name, forced, now));
        continue;
      }
      case NodeState::kInRepair: {
        STEWARD_RETURN_IF_ERROR(EnsureTicket(name, now));
        if (state(name) == NodeState::kInRepair) return Status::Ok();
        continue;
      }
      case NodeState::kValidating: {
        if (n.uncordon_pending) {
          if (Status s = actuator_->Uncordon(name); !s.ok()) {
            ++stats_.actuator_errors;
            return Status::Ok();
          }
          return Commit(Fresh(name), "diagnostic passed: uncordoned", now);
        }
        if (!n.diag_requested) {
          if (Status s = actuator_->RunDiagnostic(name); !s.ok()) {
            ++stats_.actuator_errors;
            return Status::Ok();
          }
          NodeRecord next = n;
          next.diag_requested = true;
          return Commit(std::move(next), "", now);
        }
        if (now >= n.since + options_.diagnostic_timeout) {
          return FailValidation(name, "diagnostic timed out", now, nullptr);
        }
        return Status::Ok();
      }
      case NodeState::kQuarantined:
      case NodeState::kHealthy:
      case NodeState::kSuspect:
        return Status::Ok();
    }
  }
  return Status::Ok();
}

Result<std::set<std::string>*> RemediationController::EvictedSet(const NodeRecord& n) {
  auto& entry = evicted_[n.name];
  if (entry.first != n.drain_id) {
    // First look at this drain since it started or since a restart: read what was issued.
    entry.first = n.drain_id;
    entry.second.clear();
    STEWARD_ASSIGN_OR_RETURN(auto rows, store_->LoadEvictions(n.name, n.drain_id));
    for (const EvictionRecord& e : rows) entry.second.insert(e.workload);
  }
  return &entry.second;
}

Result<bool> RemediationController::ContinueDrain(NodeRecord& n, SimTime now, int* forced) {
  STEWARD_ASSIGN_OR_RETURN(std::set<std::string> * evicted, EvictedSet(n));
  auto listed = actuator_->ListWorkloads(n.name);
  if (!listed.ok()) {
    ++stats_.actuator_errors;
    return false;
  }
  std::vector<NodeWorkload> ws = std::move(listed).value();
  if (ws.empty()) return true;
  std::sort(ws.begin(), ws.end(), EvictBefore);

  if (now >= n.drain_started + options_.drain_timeout) {
    // A stuck drain must not leave the loop open: stop what is left and move on.
    for (const NodeWorkload& w : ws) {
      if (Status s = actuator_->Evict(n.name, w, SimDuration()); !s.ok()) {
        ++stats_.actuator_errors;
      } else {
        STEWARD_RETURN_IF_ERROR(store_->InsertEviction(
            {n.name, n.drain_id, w.id, w.tier, w.can_checkpoint, SimDuration(), now, true}));
      }
      ++*forced;
    }
    stats_.forced_evictions += *forced;
    return true;
  }

  NodeRecord next = n;
  bool changed = false;
  bool failed = false;
  while (!failed && next.drain_phase <= 2 &&
         now >= next.drain_started + options_.tier_step * next.drain_phase) {
    for (const NodeWorkload& w : ws) {
      if (PhaseOf(w) > next.drain_phase || evicted->count(w.id)) continue;
      SimDuration grace = w.can_checkpoint ? options_.checkpoint_grace : options_.eviction_grace;
      if (Status s = actuator_->Evict(n.name, w, grace); !s.ok()) {
        ++stats_.actuator_errors;
        failed = true;  // Retry the rest of this phase on the next Tick.
        break;
      }
      // Recorded after the call: a crash in between re-issues one (idempotent) eviction.
      STEWARD_RETURN_IF_ERROR(store_->InsertEviction(
          {n.name, n.drain_id, w.id, w.tier, w.can_checkpoint, grace, now, false}));
      evicted->insert(w.id);
      next.drain_expected_empty = std::max(next.drain_expected_empty, now + grace);
      changed = true;
    }
    if (!failed) {
      ++next.drain_phase;
      changed = true;
    }
  }
  if (changed) STEWARD_RETURN_IF_ERROR(Commit(std::move(next), "", now));
  return false;
}

Status RemediationController::FinishDrain(const std::string& name, int forced, SimTime now) {
  NodeRecord next = Current(name);
  std::string reason =
      forced > 0 ? fmt::format("drain timed out: {} workload(s) force-evicted", forced) : "drained";
  if (next.quarantine_pending) {
    return Quarantine(std::move(next),
                      reason + fmt::format("; {} failures within {}: quarantined",
                                           options_.flap_max_failures, Dur(options_.flap_window)),
                      now, {});
  }
  next.state = NodeState::kInRepair;
  next.ticket = 0;
  return Commit(std::move(next), reason, now);
}

Result<TicketId> RemediationController::WriteTicket(Ticket ticket) {
  STEWARD_ASSIGN_OR_RETURN(TicketId id, store_->InsertTicket(ticket));
  ticket.id = id;
  tickets_[id] = std::move(ticket);
  undelivered_.insert(id);
  return id;
}

Status RemediationController::Deliver(TicketId id) {
  auto it = tickets_.find(id);
  if (it == tickets_.end() || it->second.delivered) {
    undelivered_.erase(id);
    return Status::Ok();
  }
  auto ref = actuator_->OpenTicket(it->second);
  if (!ref.ok()) {
    ++stats_.actuator_errors;  // Stays in the outbox; Tick resends with the same id.
    return Status::Ok();
  }
  Ticket t = it->second;
  t.external_ref = std::move(ref).value();
  t.delivered = true;
  STEWARD_RETURN_IF_ERROR(store_->UpdateTicket(t));
  it->second = std::move(t);
  undelivered_.erase(id);
  return Status::Ok();
}

Status RemediationController::Quarantine(NodeRecord next, std::string_view reason, SimTime now,
                                         const TxnHook& extra) {
  next.state = NodeState::kQuarantined;
  next.quarantine_pending = false;
  Ticket t;
  t.scope = IncidentScope::kNode;
  t.subject = next.name;
  t.kind = next.severity;
  t.needs_human = true;
  t.summary = fmt::format("{} quarantined ({}): last fault {}; needs a human", next.name, reason,
                          next.reason);
  t.nodes = {next.name};
  t.opened_at = now;
  TicketId id = 0;
  STEWARD_RETURN_IF_ERROR(Commit(std::move(next), reason, now, [&](NodeRecord& r, int64_t tid) {
    if (extra) STEWARD_RETURN_IF_ERROR(extra(r, tid));
    STEWARD_ASSIGN_OR_RETURN(id, WriteTicket(t));
    r.ticket = id;
    return Status::Ok();
  }));
  return Deliver(id);
}

Status RemediationController::EnsureTicket(const std::string& name, SimTime now) {
  const NodeRecord& n = nodes_.at(name);
  if (n.ticket != 0) {
    auto t = tickets_.find(n.ticket);
    if (t != tickets_.end() && t->second.resolved()) {
      return ToValidating(name, fmt::format("ticket #{} resolved", n.ticket), now);
    }
    return Status::Ok();
  }
  const IncidentId root = grouper_.Root(n.incident);
  const Incident* inc = grouper_.Find(root);
  if (inc != nullptr && inc->ticket != 0 && tickets_.count(inc->ticket)) {
    Ticket t = tickets_.at(inc->ticket);
    if (t.resolved()) {
      // The shared repair is done already (e.g. the rack PDU was replaced while this node was
      // still draining): validate it without a ticket of its own.
      return ToValidating(
          name, fmt::format("{} incident ticket #{} already resolved", inc->subject, t.id), now);
    }
    if (std::find(t.nodes.begin(), t.nodes.end(), name) == t.nodes.end()) t.nodes.push_back(name);
    NodeRecord next = n;
    next.ticket = t.id;
    STEWARD_RETURN_IF_ERROR(Commit(std::move(next), "", now,
                                   [&](NodeRecord&, int64_t) { return store_->UpdateTicket(t); }));
    tickets_[t.id] = std::move(t);
    return Status::Ok();
  }
  if (inc != nullptr && inc->scope == IncidentScope::kNode &&
      now < inc->first_fault + options_.ticket_hold) {
    return Status::Ok();  // Held: the fault may yet turn out to be part of a rack incident.
  }
  Ticket t;
  t.opened_at = now;
  t.scope = IncidentScope::kNode;
  t.subject = name;
  t.kind = n.severity;
  t.nodes = {name};
  t.summary = fmt::format("{}: {}; needs {}", name, n.reason, RepairKindName(n.severity));
  if (inc != nullptr) {
    t.incident = root;
    if (inc->scope != IncidentScope::kNode) {
      t.scope = inc->scope;
      t.subject = inc->subject;
      t.kind = RepairKind::kInvestigate;
      t.nodes = inc->nodes;
      t.summary = fmt::format("{} incident: {} nodes with {} faults within {}; suspect {}",
                              inc->subject, inc->nodes.size(), inc->category,
                              Dur(grouper_.options().window), inc->SuspectedCause());
    }
  }
  TicketId id = 0;
  STEWARD_RETURN_IF_ERROR(Commit(Current(name), "", now, [&](NodeRecord& r, int64_t) {
    STEWARD_ASSIGN_OR_RETURN(id, WriteTicket(t));
    r.ticket = id;
    if (t.incident != 0) {
      grouper_.SetTicket(t.incident, id);
      STEWARD_RETURN_IF_ERROR(store_->SaveIncident(*grouper_.Find(t.incident)));
    }
    return Status::Ok();
  }));
  return Deliver(id);
}

Status RemediationController::ToValidating(const std::string& name, std::string_view reason,
                                           SimTime now) {
  NodeRecord next = Current(name);
  next.state = NodeState::kValidating;
  next.diag_requested = false;
  next.uncordon_pending = false;
  return Commit(std::move(next), reason, now);
}

Status RemediationController::FailValidation(const std::string& name, std::string_view why,
                                             SimTime now, const FaultRecord* fault) {
  NodeRecord next = Current(name);
  next.severity = std::max(next.severity, RepairKind::kInvestigate);
  next.reason = std::string(why);
  const bool flap = Flapping(name, now);
  TxnHook record = [&](NodeRecord&, int64_t) {
    if (fault) STEWARD_RETURN_IF_ERROR(store_->InsertFault(*fault));
    return store_->AddFailure(name, now);
  };
  if (flap) {
    STEWARD_RETURN_IF_ERROR(
        Quarantine(std::move(next),
                   fmt::format("validation failed ({}); {} failures within {}: quarantined", why,
                               options_.flap_max_failures, Dur(options_.flap_window)),
                   now, record));
  } else {
    // Still empty and cordoned: straight back to repair with a node ticket of its own (the
    // incident's repair did not fix this node).
    next.state = NodeState::kInRepair;
    next.incident = 0;
    next.ticket = 0;
    STEWARD_RETURN_IF_ERROR(
        Commit(std::move(next), fmt::format("validation failed ({})", why), now, record));
  }
  failures_[name].push_back(now);
  return Advance(name, now);
}

// ---------------------------------------------------------------------------------------------
// Views

NodeState RemediationController::state(std::string_view node) const {
  auto it = nodes_.find(node);
  return it == nodes_.end() ? NodeState::kHealthy : it->second.state;
}

const NodeRecord* RemediationController::Find(std::string_view node) const {
  auto it = nodes_.find(node);
  return it == nodes_.end() ? nullptr : &it->second;
}

Result<std::vector<TransitionRecord>> RemediationController::Transitions(std::string_view node) {
  return store_->LoadTransitions(std::string(node));
}

Result<std::vector<EvictionRecord>> RemediationController::Evictions(std::string_view node) {
  const NodeRecord* n = Find(node);
  if (n == nullptr) return std::vector<EvictionRecord>{};
  return store_->LoadEvictions(n->name, n->drain_id);
}

}  // namespace steward::health

// RemediationController: the automatic fault loop for GPU nodes.
//
//   fault (XID / failed diagnostic / NPD condition)
//     -> suspect -> [budget] -> cordoned -> draining (checkpoint-aware, by tier)
//     -> in-repair (ticket; shared with the node's rack/leaf incident when there is one)
//     -> validating (diagnostic) -> healthy          or -> quarantined when it flaps.
//
// Time is always a parameter (SimTime): the twin passes simulated time, a live controller the
// wall clock converted once at its edge. Side effects go through a NodeActuator. Every state
// change, ticket, eviction and accepted signal is written to SQLite before (tickets, state) or
// right after (idempotent actions: cordon, evict) it is acted on, so constructing the controller
// again on the same file resumes every node where it was, mid-drain included, without opening a
// ticket or recording a transition twice. Re-delivered signals (same node, time, code) are
// ignored, so a live controller may replay its inputs after a restart.
//
// Driving it: call On*() as signals arrive and Tick(now) at NextDeadline() (the twin) or
// periodically (live; failed actuator calls are retried on Tick). Times passed in should not
// go backwards.
//
// Owned by one thread (the twin loop or the controller's loop); not thread-safe. On a storage
// error the in-memory state may be ahead of the file: reopen the controller.
#pragma once

#include <array>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "health/incidents/incident_grouper.h"
#include "health/incidents/incident_options.h"
#include "health/remediation/fault_signal.h"
#include "health/remediation/node_actuator.h"
#include "health/remediation/node_state.h"
#include "health/remediation/node_topology.h"
#include "health/remediation/remediation_options.h"
#include "health/remediation/remediation_store.h"
#include "health/remediation/ticket.h"
#include "model/status.h"
#include "model/time.h"

namespace steward::health {

class RemediationController {
 public:
  // Opens (or creates) the store at `db_path` and resumes from it. `actuator` must outlive the
  // controller. InvalidArgument for inconsistent options; IoError/Corrupt for the file.
  static Result<std::unique_ptr<RemediationController>> Open(const std::string& db_path,
                                                             NodeTopology topology,
                                                             NodeActuator* actuator,
                                                             RemediationOptions options = {},
                                                             IncidentOptions incident_options = {});

  RemediationController(const RemediationController&) = delete;
  RemediationController& operator=(const RemediationController&) = delete;

  // ---- Signals. NotFound for a node not in the topology. ----
  // none: ignored. restart-workload: counted; restart_escalation_count of them within the
  // window make the node suspect. reset-gpu / reboot / drain-and-rma: the node becomes suspect
  // (or, already out, its repair escalates to the worst action seen).
  Status OnXid(std::string_view node, const XidEvent& xid, SimTime now);
  // NPD-style condition. True: a fault (once per condition type while it stays true). False: it
  // cleared; a node still only suspect because of conditions returns to healthy.
  Status OnCondition(std::string_view node, const NodeConditionSignal& condition, SimTime now);
  // A diagnostic's result. While validating: pass -> uncordon -> healthy; fail -> back to repair
  // or quarantined (flap guard). In any other state a failure is a fault, a pass is ignored.
  Status OnDiagnosticResult(std::string_view node, bool passed, std::string_view detail,
                            SimTime now);
  // The repair behind `ticket` is done: its nodes in in-repair move to validating, its incident
  // closes. Idempotent. NotFound for an unknown ticket.
  Status OnTicketResolved(TicketId ticket, SimTime now);
  // A human vouches for a quarantined node: it is validated (diagnostic) and, if it passes,
  // returns to service. FailedPrecondition when the node is not quarantined.
  Status ReleaseQuarantine(std::string_view node, std::string_view by, SimTime now);

  // Advances timers (drain phases and timeout, ticket hold, diagnostic timeout), retries failed
  // actuator calls and admits queued suspects the budget now allows.
  Status Tick(SimTime now);
  // Earliest time after the latest `now` seen at which Tick has work; Never() if none.
  SimTime NextDeadline() const;

  // ---- Views ----
  NodeState state(std::string_view node) const;
  const NodeRecord* Find(std::string_view node) const;  // nullptr if never touched.
  int CountInState(NodeState state) const { return state_counts_[static_cast<int>(state)]; }
  int OutInPool(int pool) const;
  int MaxOutInPool(int pool) const;                 // ceil(pool size * max_out_fraction).
  std::vector<std::string> Queued(int pool) const;  // Suspects waiting for budget, FIFO.
  const std::map<TicketId, Ticket>& tickets() const { return tickets_; }
  const IncidentGrouper& incidents() const { return grouper_; }
  // History, read back from the store.
  Result<std::vector<TransitionRecord>> Transitions(std::string_view node);
  Result<int64_t> CountTransitions() { return store_->CountTransitions(); }
  Result<std::vector<EvictionRecord>> Evictions(std::string_view node);  // Of its latest drain.

  struct Stats {
    int64_t actuator_errors = 0;    // Failed actuator calls (each retried later).
    int64_t duplicate_signals = 0;  // Re-delivered signals ignored.
    int64_t ignored_xids = 0;       // XIDs with action none.
    int64_t forced_evictions = 0;   // Workloads still on a node at the drain timeout.
  };
  const Stats& stats() const { return stats_; }
  const RemediationOptions& options() const { return options_; }

 private:
  RemediationController(NodeTopology topology, NodeActuator* actuator, RemediationOptions options,
                        IncidentOptions incident_options, std::unique_ptr<RemediationStore> store);
  Status Resume();

  // Persists `next` (plus a transition row when its state changed, plus what `more` writes) in
  // one transaction, then updates the in-memory indexes.
  using TxnHook = std::function<Status(NodeRecord& next, int64_t transition_id)>;
  Status Commit(NodeRecord next, std::string_view reason, SimTime now, const TxnHook& more = {});
  NodeRecord Current(std::string_view node) const;

  Status HandleFault(std::string_view node, FaultRecord fault, RepairKind kind, bool hard,
                     std::string reason, SimTime now,
                     const std::function<void(NodeRecord&)>& mutate = {});
  Status Admit(SimTime now);
  Status Advance(const std::string& node, SimTime now);
  Result<bool> ContinueDrain(NodeRecord& n, SimTime now, int* forced);
  Status FinishDrain(const std::string& node, int forced, SimTime now);
  Status EnsureTicket(const std::string& node, SimTime now);
  Status ToValidating(const std::string& node, std::string_view reason, SimTime now);
  // `fault` (may be null) is stored with the failure, so a re-delivered result is a no-op.
  Status FailValidation(const std::string& node, std::string_view why, SimTime now,
                        const FaultRecord* fault);
  // Moves to quarantined with a needs-human ticket; `extra` writes in the same transaction.
  Status Quarantine(NodeRecord next, std::string_view reason, SimTime now, const TxnHook& extra);
  // Inserts a ticket (inside the caller's transaction) and returns its id.
  Result<TicketId> WriteTicket(Ticket ticket);
  Status Deliver(TicketId id);
  bool Flapping(const std::string& node, SimTime now) const;  // Counts a failure at `now`.
  Result<std::set<std::string>*> EvictedSet(const NodeRecord& n);
  int PoolOf(std::string_view node) const;

  NodeTopology topology_;
  NodeActuator* actuator_;
  RemediationOptions options_;
  std::unique_ptr<RemediationStore> store_;
  IncidentGrouper grouper_;

  std::map<std::string, NodeRecord, std::less<>> nodes_;          // Nodes ever touched.
  std::set<std::string> active_;                                  // Nodes not healthy.
  std::array<int, kNumNodeStates> state_counts_{};                // Over nodes_; healthy excluded.
  std::vector<int> out_;                                          // Per pool.
  std::vector<std::set<std::pair<int64_t, std::string>>> queue_;  // Per pool: (since, node).
  std::map<TicketId, Ticket> tickets_;
  std::set<TicketId> undelivered_;
  std::map<std::string, std::deque<SimTime>> failures_;  // Flap guard history per node.
  std::map<std::string, std::deque<SimTime>> restarts_;  // restart-workload XIDs per node.
  std::map<std::string, std::pair<int64_t, std::set<std::string>>> evicted_;  // Per drain.
  SimTime now_;                                                               // Latest time seen.
  Stats stats_;
};

}  // namespace steward::health

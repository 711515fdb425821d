// RemediationStore: durable state of the remediation loop in one SQLite file (WAL mode).
//
// Tables: nodes (current state per node, enough to resume mid-drain), transitions (append-only
// history), tickets (with an outbox flag), evictions (issued per drain, so a resumed drain never
// evicts twice), faults (every accepted signal; a UNIQUE key makes re-delivered signals no-ops),
// failures (flap guard history) and incidents. The controller groups the writes of one state
// change in one transaction (SqliteTransaction on db()).
//
// Internal to the health module; not thread-safe.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "health/incidents/incident.h"
#include "health/remediation/fault_signal.h"
#include "health/remediation/node_state.h"
#include "health/remediation/ticket.h"
#include "model/status.h"
#include "model/time.h"
#include "model/workload.h"
#include "store/sqlite_db.h"

namespace steward::health {

// The store is SQLite through the shared wrapper (store/sqlite_db.h).
using store::SqliteDb;
using store::SqliteStmt;
using store::SqliteTransaction;

// A node's persisted remediation state.
struct NodeRecord {
  std::string name;
  NodeState state = NodeState::kHealthy;
  SimTime since;                            // When it entered `state`.
  SimTime episode_start;                    // When it became suspect (queue order).
  RepairKind severity = RepairKind::kNone;  // Worst action the episode's faults asked for.
  bool hard_fault = false;          // An XID or failed diagnostic (not only NPD conditions).
  bool quarantine_pending = false;  // Flap guard fired: after the drain, quarantine.
  IncidentId incident = 0;          // Incident of the episode's faults.
  TicketId ticket = 0;              // Ticket the node waits on in in-repair / quarantined.
  int64_t drain_id = 0;             // Transition id that started the current drain.
  SimTime drain_started;
  int drain_phase = 0;               // Next eviction phase to issue: 0..2, 3 = all issued.
  SimTime drain_expected_empty;      // Latest issued eviction's time + grace.
  bool diag_requested = false;       // RunDiagnostic succeeded for this validation.
  bool uncordon_pending = false;     // Diagnostic passed; Uncordon still to succeed.
  std::set<std::string> conditions;  // Active NPD condition types.
  std::string reason;                // Latest fault, for humans.
};

struct TransitionRecord {
  int64_t id = 0;
  std::string node;
  NodeState from = NodeState::kHealthy;
  NodeState to = NodeState::kHealthy;
  SimTime at;
  std::string reason;
};

struct EvictionRecord {
  std::string node;
  int64_t drain_id = 0;
  std::string workload;
  model::Tier tier = model::Tier::kDev;
  bool checkpoint = false;
  SimDuration grace;
  SimTime at;
  bool forced = false;
};

struct FaultRecord {
  std::string node;
  SimTime at;
  std::string source;  // "xid", "npd", "diag".
  int code = 0;        // XID code; 0 otherwise.
  int action = 0;      // XidAction for XIDs; condition status (1/0) for NPD.
  std::string category;
  IncidentId incident = 0;
};

class RemediationStore {
 public:
  static Result<std::unique_ptr<RemediationStore>> Open(const std::string& path);

  SqliteDb* db() { return db_.get(); }

  Status SaveNode(const NodeRecord& node);
  Result<std::vector<NodeRecord>> LoadNodes();

  // Returns the new transition's id.
  Result<int64_t> AppendTransition(const TransitionRecord& t);
  Result<std::vector<TransitionRecord>> LoadTransitions(const std::string& node);
  Result<int64_t> CountTransitions();

  // Inserts with a fresh id (ticket.id is ignored) and returns it.
  Result<TicketId> InsertTicket(const Ticket& ticket);
  Status UpdateTicket(const Ticket& ticket);
  Result<std::vector<Ticket>> LoadTickets();

  Status InsertEviction(const EvictionRecord& e);
  Result<std::vector<EvictionRecord>> LoadEvictions(const std::string& node, int64_t drain_id);

  // True if an identical signal (node, time, source, code, category, action) is stored.
  Result<bool> HasFault(const FaultRecord& f);
  Status InsertFault(const FaultRecord& f);
  Result<std::vector<FaultRecord>> LoadFaultsSince(SimTime since);
  Result<SimTime> LatestFaultTime();  // kSimStart when there are none.

  Status AddFailure(const std::string& node, SimTime at);
  Result<std::vector<std::pair<std::string, SimTime>>> LoadFailures(SimTime since);

  Status SaveIncident(const Incident& incident);
  Result<std::vector<Incident>> LoadIncidents();  // In id order.

 private:
  explicit RemediationStore(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}
  Status CreateSchema();
  std::unique_ptr<SqliteDb> db_;
};

}  // namespace steward::health

#include "health/remediation/remediation_store.h"

#include <string_view>

namespace steward::health {
namespace {

// Bumped when the schema changes incompatibly; Open refuses a file with another version
// rather than misreading it.
constexpr int kSchemaVersion = 1;

constexpr std::string_view kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS nodes(
  name TEXT PRIMARY KEY, state INTEGER NOT NULL, since_us INTEGER NOT NULL,
  episode_start_us INTEGER NOT NULL, severity INTEGER NOT NULL, hard_fault INTEGER NOT NULL,
  quarantine_pending INTEGER NOT NULL, incident INTEGER NOT NULL, ticket INTEGER NOT NULL,
  drain_id INTEGER NOT NULL, drain_started_us INTEGER NOT NULL, drain_phase INTEGER NOT NULL,
  drain_expected_empty_us INTEGER NOT NULL, diag_requested INTEGER NOT NULL,
  uncordon_pending INTEGER NOT NULL, conditions TEXT NOT NULL, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS transitions(
  id INTEGER PRIMARY KEY AUTOINCREMENT, node TEXT NOT NULL, from_state INTEGER NOT NULL,
  to_state INTEGER NOT NULL, at_us INTEGER NOT NULL, reason TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS transitions_by_node ON transitions(node, id);
CREATE TABLE IF NOT EXISTS tickets(
  id INTEGER PRIMARY KEY AUTOINCREMENT, incident INTEGER NOT NULL, scope INTEGER NOT NULL,
  subject TEXT NOT NULL, kind INTEGER NOT NULL, needs_human INTEGER NOT NULL,
  summary TEXT NOT NULL, nodes TEXT NOT NULL, opened_us INTEGER NOT NULL,
  resolved_us INTEGER, external_ref TEXT NOT NULL, delivered INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS evictions(
  node TEXT NOT NULL, drain_id INTEGER NOT NULL, workload TEXT NOT NULL, tier INTEGER NOT NULL,
  checkpoint INTEGER NOT NULL, grace_us INTEGER NOT NULL, at_us INTEGER NOT NULL,
  forced INTEGER NOT NULL, PRIMARY KEY(node, drain_id, workload, forced));
CREATE TABLE IF NOT EXISTS faults(
  id INTEGER PRIMARY KEY AUTOINCREMENT, node TEXT NOT NULL, at_us INTEGER NOT NULL,
  source TEXT NOT NULL, code INTEGER NOT NULL, action INTEGER NOT NULL, category TEXT NOT NULL,
  incident INTEGER NOT NULL, UNIQUE(node, at_us, source, code, category, action));
CREATE INDEX IF NOT EXISTS faults_by_time ON faults(at_us);
CREATE TABLE IF NOT EXISTS failures(node TEXT NOT NULL, at_us INTEGER NOT NULL,
  PRIMARY KEY(node, at_us));
CREATE TABLE IF NOT EXISTS incidents(
  id INTEGER PRIMARY KEY, scope INTEGER NOT NULL, subject TEXT NOT NULL, rack INTEGER NOT NULL,
  leaf INTEGER NOT NULL, category TEXT NOT NULL, first_us INTEGER NOT NULL,
  last_us INTEGER NOT NULL, nodes TEXT NOT NULL, parent INTEGER NOT NULL,
  ticket INTEGER NOT NULL, closed INTEGER NOT NULL);
)sql";

// Node names are DNS-1123 subdomains in Kubernetes (no commas), so a comma list is safe.
template <typename C>
std::string JoinNames(const C& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ',';
    out += n;
  }
  return out;
}

std::vector<std::string> SplitNames(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

SimTime T(int64_t us) { return SimTime::FromMicros(us); }

}  // namespace

Result<std::unique_ptr<RemediationStore>> RemediationStore::Open(const std::string& path) {
  STEWARD_ASSIGN_OR_RETURN(auto db, SqliteDb::Open(path));
  std::unique_ptr<RemediationStore> store(new RemediationStore(std::move(db)));
  STEWARD_RETURN_IF_ERROR(store->CreateSchema());
  return store;
}

Status RemediationStore::CreateSchema() {
  SqliteTransaction txn(db_.get());
  STEWARD_RETURN_IF_ERROR(txn.Begin());
  STEWARD_RETURN_IF_ERROR(db_->Exec(kSchema));
  STEWARD_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT value FROM meta WHERE key='schema'"));
  STEWARD_ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) {
    STEWARD_ASSIGN_OR_RETURN(auto ins,
                             db_->Prepare("INSERT INTO meta(key, value) VALUES('schema', ?)"));
    STEWARD_RETURN_IF_ERROR(ins.Bind(1, int64_t{kSchemaVersion}).Run());
  } else if (q.Int(0) != kSchemaVersion) {
    return Status::Corrupt(db_->path() + ": remediation schema version " +
                           std::to_string(q.Int(0)) + ", this build reads " +
                           std::to_string(kSchemaVersion));
  }
  return txn.Commit();
}

Status RemediationStore::SaveNode(const NodeRecord& n) {
  STEWARD_ASSIGN_OR_RETURN(
      store::SqliteStmt * stmt,
      db_->Cached("INSERT OR REPLACE INTO nodes VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"));
  store::SqliteStmt& s = *stmt;
  s.Bind(1, n.name)
      .Bind(2, int64_t{static_cast<int>(n.state)})
      .Bind(3, n.since.micros())
      .Bind(4, n.episode_start.micros())
      .Bind(5, int64_t{static_cast<int>(n.severity)})
      .Bind(6, int64_t{n.hard_fault})
      .Bind(7, int64_t{n.quarantine_pending})
      .Bind(8, n.incident)
      .Bind(9, n.ticket)
      .Bind(10, n.drain_id)
      .Bind(11, n.drain_started.micros())
      .Bind(12, int64_t{n.drain_phase})
      .Bind(13, n.drain_expected_empty.micros())
      .Bind(14, int64_t{n.diag_requested})
      .Bind(15, int64_t{n.uncordon_pending})
      .Bind(16, JoinNames(n.conditions))
      .Bind(17, n.reason);
  return s.Run();
}

Result<std::vector<NodeRecord>> RemediationStore::LoadNodes() {
  STEWARD_ASSIGN_OR_RETURN(auto s, db_->Prepare("SELECT * FROM nodes ORDER BY name"));
  std::vector<NodeRecord> out;
  while (true) {
    STEWARD_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    NodeRecord n;
    n.name = s.Text(0);
    int64_t state = s.Int(1);
    if (state < 0 || state >= kNumNodeStates) {
      return Status::Corrupt(db_->path() + ": node " + n.name + ": bad state " +
                             std::to_string(state));
    }
    n.state = static_cast<NodeState>(state);
    n.since = T(s.Int(2));
    n.episode_start = T(s.Int(3));
    n.severity = static_cast<RepairKind>(s.Int(4));
    n.hard_fault = s.Int(5) != 0;
    n.quarantine_pending = s.Int(6) != 0;
    n.incident = s.Int(7);
    n.ticket = s.Int(8);
    n.drain_id = s.Int(9);
    n.drain_started = T(s.Int(10));
    n.drain_phase = static_cast<int>(s.Int(11));
    n.drain_expected_empty = T(s.Int(12));
    n.diag_requested = s.Int(13) != 0;
    n.uncordon_pending = s.Int(14) != 0;
    for (auto& c : SplitNames(s.Text(15))) n.conditions.insert(std::move(c));
    n.reason = s.Text(16);
    out.push_back(std::move(n));
  }
  return out;
}

Result<int64_t> RemediationStore::AppendTransition(const TransitionRecord& t) {
  STEWARD_ASSIGN_OR_RETURN(
      store::SqliteStmt * stmt,
      db_->Cached("INSERT INTO transitions(node, from_state, to_state, at_us, reason) "
                  "VALUES(?,?,?,?,?)"));
  store::SqliteStmt& s = *stmt;
  s.Bind(1, t.node)
      .Bind(2, int64_t{static_cast<int>(t.from)})
      .Bind(3, int64_t{static_cast<int>(t.to)})
      .Bind(4, t.at.micros())
      .Bind(5, t.reason);
  STEWARD_RETURN_IF_ERROR(s.Run());
  return db_->LastInsertId();
}

Result<std::vector<TransitionRecord>> RemediationStore::LoadTransitions(const std::string& node) {
  STEWARD_ASSIGN_OR_RETURN(
      auto s, db_->Prepare("SELECT id, node, from_state, to_state, at_us, reason FROM transitions "
                           "WHERE node = ? ORDER BY id"));
  s.Bind(1, node);
  std::vector<TransitionRecord> out;
  while (true) {
    STEWARD_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back({s.Int(0), s.Text(1), static_cast<NodeState>(s.Int(2)),
                   static_cast<NodeState>(s.Int(3)), T(s.Int(4)), s.Text(5)});
  }
  return out;
}

Result<int64_t> RemediationStore::CountTransitions() {
  STEWARD_ASSIGN_OR_RETURN(auto s, db_->Prepare("SELECT COUNT(*) FROM transitions"));
  STEWARD_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

Result<TicketId> RemediationStore::InsertTicket(const Ticket& t) {
  STEWARD_ASSIGN_OR_RETURN(
      store::SqliteStmt * stmt,
      db_->Cached("INSERT INTO tickets(incident, scope, subject, kind, needs_human, "
                  "summary, nodes, opened_us, resolved_us, external_ref, delivered) "
                  "VALUES(?,?,?,?,?,?,?,?,NULL,?,?)"));
  store::SqliteStmt& s = *stmt;
  s.Bind(1, t.incident)
      .Bind(2, int64_t{static_cast<int>(t.scope)})
      .Bind(3, t.subject)
      .Bind(4, int64_t{static_cast<int>(t.kind)})
      .Bind(5, int64_t{t.needs_human})
      .Bind(6, t.summary)
      .Bind(7, JoinNames(t.nodes))
      .Bind(8, t.opened_at.micros())
      .Bind(9, t.external_ref)
      .Bind(10, int64_t{t.delivered});
  STEWARD_RETURN_IF_ERROR(s.Run());
  return db_->LastInsertId();
}

Status RemediationStore::UpdateTicket(const Ticket& t) {
  STEWARD_ASSIGN_OR_RETURN(store::SqliteStmt * stmt,
                           db_->Cached("UPDATE tickets SET nodes=?, resolved_us=?, external_ref=?, "
                                       "delivered=? WHERE id=?"));
  store::SqliteStmt& s = *stmt;
  s.Bind(1, JoinNames(t.nodes));
  if (t.resolved()) {
    s.Bind(2, t.resolved_at.micros());
  } else {
    s.BindNull(2);
  }
  s.Bind(3, t.external_ref).Bind(4, int64_t{t.delivered}).Bind(5, t.id);
  return s.Run();
}

Result<std::vector<Ticket>> RemediationStore::LoadTickets() {
  STEWARD_ASSIGN_OR_RETURN(
      auto s, db_->Prepare("SELECT id, incident, scope, subject, kind, needs_human, summary, "
                           "nodes, opened_us, resolved_us, external_ref, delivered FROM tickets "
                           "ORDER BY id"));
  std::vector<Ticket> out;
  while (true) {
    STEWARD_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    Ticket t;
    t.id = s.Int(0);
    t.incident = s.Int(1);
    t.scope = static_cast<IncidentScope>(s.Int(2));
    t.subject = s.Text(3);
    t.kind = static_cast<RepairKind>(s.Int(4));
    t.needs_human = s.Int(5) != 0;
    t.summary = s.Text(6);
    t.nodes = SplitNames(s.Text(7));
    t.opened_at = T(s.Int(8));
    t.resolved_at = s.IsNull(9) ? SimTime::Never() : T(s.Int(9));
    t.external_ref = s.Text(10);
    t.delivered = s.Int(11) != 0;
    out.push_back(std::move(t));
  }
  return out;
}

Status RemediationStore::InsertEviction(const EvictionRecord& e) {
  STEWARD_ASSIGN_OR_RETURN(store::SqliteStmt * stmt,
                           db_->Cached("INSERT OR IGNORE INTO evictions VALUES(?,?,?,?,?,?,?,?)"));
  store::SqliteStmt& s = *stmt;
  s.Bind(1, e.node)
      .Bind(2, e.drain_id)
      .Bind(3, e.workload)
      .Bind(4, int64_t{static_cast<int>(e.tier)})
      .Bind(5, int64_t{e.checkpoint})
      .Bind(6, e.grace.micros())
      .Bind(7, e.at.micros())
      .Bind(8, int64_t{e.forced});
  return s.Run();
}

Result<std::vector<EvictionRecord>> RemediationStore::LoadEvictions(const std::string& node,
                                                                    int64_t drain_id) {
  STEWARD_ASSIGN_OR_RETURN(
      auto s, db_->Prepare("SELECT node, drain_id, workload, tier, checkpoint, grace_us, at_us, "
                           "forced FROM evictions WHERE node=? AND drain_id=? "
                           "ORDER BY at_us, rowid"));
  s.Bind(1, node).Bind(2, drain_id);
  std::vector<EvictionRecord> out;
  while (true) {
    STEWARD_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back({s.Text(0), s.Int(1), s.Text(2), static_cast<model::Tier>(s.Int(3)),
                   s.Int(4) != 0, SimDuration::Micros(s.Int(5)), T(s.Int(6)), s.Int(7) != 0});
  }
  return out;
}

Result<bool> RemediationStore::HasFault(const FaultRecord& f) {
  STEWARD_ASSIGN_OR_RETURN(
      auto s, db_->Prepare("SELECT 1 FROM faults WHERE node=? AND at_us=? AND source=? AND "
                           "code=? AND category=? AND action=?"));
  s.Bind(1, f.node)
      .Bind(2, f.at.micros())
      .Bind(3, f.source)
      .Bind(4, int64_t{f.code})
      .Bind(5, f.category)
      .Bind(6, int64_t{f.action});
  return s.Step();
}

Status RemediationStore::InsertFault(const FaultRecord& f) {
  STEWARD_ASSIGN_OR_RETURN(
      store::SqliteStmt * stmt,
      db_->Cached("INSERT OR IGNORE INTO faults(node, at_us, source, code, action, "
                  "category, incident) VALUES(?,?,?,?,?,?,?)"));
  store::SqliteStmt& s = *stmt;
  s.Bind(1, f.node)
      .Bind(2, f.at.micros())
      .Bind(3, f.source)
      .Bind(4, int64_t{f.code})
      .Bind(5, int64_t{f.action})
      .Bind(6, f.category)
      .Bind(7, f.incident);
  return s.Run();
}

Result<std::vector<FaultRecord>> RemediationStore::LoadFaultsSince(SimTime since) {
  STEWARD_ASSIGN_OR_RETURN(
      auto s, db_->Prepare("SELECT node, at_us, source, code, action, category, incident FROM "
                           "faults WHERE at_us >= ? ORDER BY at_us, id"));
  s.Bind(1, since.micros());
  std::vector<FaultRecord> out;
  while (true) {
    STEWARD_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back({s.Text(0), T(s.Int(1)), s.Text(2), static_cast<int>(s.Int(3)),
                   static_cast<int>(s.Int(4)), s.Text(5), s.Int(6)});
  }
  return out;
}

Result<SimTime> RemediationStore::LatestFaultTime() {
  STEWARD_ASSIGN_OR_RETURN(auto s, db_->Prepare("SELECT MAX(at_us) FROM faults"));
  STEWARD_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row || s.IsNull(0)) return kSimStart;
  return T(s.Int(0));
}

Status RemediationStore::AddFailure(const std::string& node, SimTime at) {
  STEWARD_ASSIGN_OR_RETURN(store::SqliteStmt * stmt,
                           db_->Cached("INSERT OR IGNORE INTO failures VALUES(?,?)"));
  store::SqliteStmt& s = *stmt;
  s.Bind(1, node).Bind(2, at.micros());
  return s.Run();
}

Result<std::vector<std::pair<std::string, SimTime>>> RemediationStore::LoadFailures(SimTime since) {
  STEWARD_ASSIGN_OR_RETURN(
      auto s, db_->Prepare("SELECT node, at_us FROM failures WHERE at_us >= ? ORDER BY at_us"));
  s.Bind(1, since.micros());
  std::vector<std::pair<std::string, SimTime>> out;
  while (true) {
    STEWARD_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.emplace_back(s.Text(0), T(s.Int(1)));
  }
  return out;
}

Status RemediationStore::SaveIncident(const Incident& i) {
  STEWARD_ASSIGN_OR_RETURN(
      store::SqliteStmt * stmt,
      db_->Cached("INSERT OR REPLACE INTO incidents VALUES(?,?,?,?,?,?,?,?,?,?,?,?)"));
  store::SqliteStmt& s = *stmt;
  s.Bind(1, i.id)
      .Bind(2, int64_t{static_cast<int>(i.scope)})
      .Bind(3, i.subject)
      .Bind(4, int64_t{i.rack})
      .Bind(5, int64_t{i.leaf})
      .Bind(6, i.category)
      .Bind(7, i.first_fault.micros())
      .Bind(8, i.last_fault.micros())
      .Bind(9, JoinNames(i.nodes))
      .Bind(10, i.parent)
      .Bind(11, i.ticket)
      .Bind(12, int64_t{i.closed});
  return s.Run();
}

Result<std::vector<Incident>> RemediationStore::LoadIncidents() {
  STEWARD_ASSIGN_OR_RETURN(auto s, db_->Prepare("SELECT * FROM incidents ORDER BY id"));
  std::vector<Incident> out;
  while (true) {
    STEWARD_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    Incident i;
    i.id = s.Int(0);
    i.scope = static_cast<IncidentScope>(s.Int(1));
    i.subject = s.Text(2);
    i.rack = static_cast<int>(s.Int(3));
    i.leaf = static_cast<int>(s.Int(4));
    i.category = s.Text(5);
    i.first_fault = T(s.Int(6));
    i.last_fault = T(s.Int(7));
    i.nodes = SplitNames(s.Text(8));
    i.parent = s.Int(9);
    i.ticket = s.Int(10);
    i.closed = s.Int(11) != 0;
    out.push_back(std::move(i));
  }
  return out;
}

}  // namespace steward::health

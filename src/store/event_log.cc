#include "store/event_log.h"

#include <fmt/format.h>

#include <filesystem>

#include "store/sqlite_db.h"

namespace steward::store {
namespace {

constexpr std::string_view kEventLogSchema = R"sql(
CREATE TABLE IF NOT EXISTS runs(
  id       INTEGER PRIMARY KEY,
  label    TEXT NOT NULL,
  complete INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events(
  run_id         INTEGER NOT NULL REFERENCES runs(id),
  seq            INTEGER NOT NULL,
  t_seconds      REAL NOT NULL,
  kind           TEXT NOT NULL,
  workload       TEXT NOT NULL,
  team           TEXT NOT NULL,
  gpus           INTEGER NOT NULL,
  lost_gpu_hours REAL NOT NULL,
  detail         TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_by_workload ON events(run_id, workload, seq);
)sql";

// A batch is one transaction: large enough that a 10^6-event run is a few hundred commits,
// small enough that a kill loses little of an incomplete run's trail.
constexpr size_t kBatch = 4096;

Result<std::unique_ptr<SqliteDb>> OpenExisting(const std::string& path) {
  if (!std::filesystem::exists(path))
    return Status::NotFound(fmt::format("{}: no such event log", path));
  STEWARD_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path));
  STEWARD_ASSIGN_OR_RETURN(SqliteStmt check,
                           db->Prepare("SELECT 1 FROM sqlite_master WHERE name='events'"));
  STEWARD_ASSIGN_OR_RETURN(bool has, check.Step());
  if (!has) return Status::InvalidArgument(fmt::format("{}: not a Steward event log", path));
  return db;
}

}  // namespace

EventLog::EventLog(std::unique_ptr<SqliteDb> db, int64_t run_id)
    : db_(std::move(db)), run_id_(run_id) {}

EventLog::~EventLog() = default;

Result<std::unique_ptr<EventLog>> EventLog::Create(const std::string& path,
                                                   std::string_view label) {
  STEWARD_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path));
  STEWARD_RETURN_IF_ERROR(db->Exec(kEventLogSchema));
  STEWARD_ASSIGN_OR_RETURN(SqliteStmt insert, db->Prepare("INSERT INTO runs(label) VALUES (?)"));
  STEWARD_RETURN_IF_ERROR(insert.Bind(1, label).Run());
  const int64_t id = db->LastInsertId();
  return std::unique_ptr<EventLog>(new EventLog(std::move(db), id));
}

Status EventLog::Append(EventRow row) {
  row.seq = next_seq_++;
  buffer_.push_back(std::move(row));
  if (buffer_.size() >= kBatch) return Flush();
  return Status::Ok();
}

Status EventLog::Flush() {
  if (buffer_.empty()) return Status::Ok();
  SqliteTransaction tx(db_.get());
  STEWARD_RETURN_IF_ERROR(tx.Begin());
  STEWARD_ASSIGN_OR_RETURN(SqliteStmt insert,
                           db_->Prepare("INSERT INTO events(run_id, seq, t_seconds, kind, "
                                        "workload, team, gpus, lost_gpu_hours, detail) "
                                        "VALUES (?,?,?,?,?,?,?,?,?)"));
  for (const EventRow& r : buffer_) {
    insert.Bind(1, run_id_).Bind(2, r.seq).Bind(3, r.t_seconds).Bind(4, r.kind);
    insert.Bind(5, r.workload).Bind(6, r.team).Bind(7, r.gpus).Bind(8, r.lost_gpu_hours);
    STEWARD_RETURN_IF_ERROR(insert.Bind(9, r.detail).Run());
  }
  STEWARD_RETURN_IF_ERROR(tx.Commit());
  buffer_.clear();
  return Status::Ok();
}

Status EventLog::Finish() {
  STEWARD_RETURN_IF_ERROR(Flush());
  STEWARD_ASSIGN_OR_RETURN(SqliteStmt done,
                           db_->Prepare("UPDATE runs SET complete = 1 WHERE id = ?"));
  return done.Bind(1, run_id_).Run();
}

Result<std::vector<EventRun>> EventLog::Runs(const std::string& path) {
  STEWARD_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, OpenExisting(path));
  STEWARD_ASSIGN_OR_RETURN(SqliteStmt q,
                           db->Prepare("SELECT r.id, r.label, r.complete, "
                                       "(SELECT COUNT(*) FROM events e WHERE e.run_id = r.id) "
                                       "FROM runs r ORDER BY r.id"));
  std::vector<EventRun> out;
  while (true) {
    STEWARD_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    out.push_back({q.Int(0), q.Text(1), q.Int(2) != 0, q.Int(3)});
  }
  return out;
}

Result<std::vector<EventRow>> EventLog::Read(const std::string& path, std::optional<int64_t> run,
                                             std::string_view workload) {
  STEWARD_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, OpenExisting(path));
  if (!run) {
    STEWARD_ASSIGN_OR_RETURN(SqliteStmt latest,
                             db->Prepare("SELECT MAX(id) FROM runs WHERE complete = 1"));
    STEWARD_ASSIGN_OR_RETURN(bool row, latest.Step());
    if (!row || latest.IsNull(0))
      return Status::NotFound(fmt::format("{}: no complete run (see --run)", path));
    run = latest.Int(0);
  }
  STEWARD_ASSIGN_OR_RETURN(
      SqliteStmt q,
      db->Prepare(workload.empty() ? "SELECT seq, t_seconds, kind, workload, team, gpus, "
                                     "lost_gpu_hours, detail FROM events WHERE run_id = ? "
                                     "ORDER BY seq"
                                   : "SELECT seq, t_seconds, kind, workload, team, gpus, "
                                     "lost_gpu_hours, detail FROM events WHERE run_id = ? "
                                     "AND workload = ? ORDER BY seq"));
  q.Bind(1, *run);
  if (!workload.empty()) q.Bind(2, workload);
  std::vector<EventRow> out;
  while (true) {
    STEWARD_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    out.push_back(
        {q.Int(0), q.Double(1), q.Text(2), q.Text(3), q.Text(4), q.Int(5), q.Double(6), q.Text(7)});
  }
  return out;
}

}  // namespace steward::store

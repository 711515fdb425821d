#include "store/audit_log.h"

#include <fmt/format.h>

#include <filesystem>

#include "store/sqlite_db.h"

namespace steward::store {
namespace {

constexpr std::string_view kSchema = R"sql(
CREATE TABLE IF NOT EXISTS audit(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at_micros INTEGER NOT NULL,
  mode TEXT NOT NULL,
  action TEXT NOT NULL,
  object TEXT NOT NULL,
  reason TEXT NOT NULL,
  before TEXT NOT NULL,
  after TEXT NOT NULL,
  error TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS audit_object ON audit(object, id);
)sql";

}  // namespace

AuditLog::AuditLog(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}
AuditLog::~AuditLog() = default;

Result<std::unique_ptr<AuditLog>> AuditLog::Open(const std::string& path) {
  STEWARD_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path));
  STEWARD_RETURN_IF_ERROR(db->Exec(kSchema));
  return std::unique_ptr<AuditLog>(new AuditLog(std::move(db)));
}

Result<std::unique_ptr<AuditLog>> AuditLog::OpenExisting(const std::string& path) {
  if (!std::filesystem::exists(path))
    return Status::NotFound(fmt::format("{}: no such audit log", path));
  SqliteOpenOptions options;
  options.create_if_missing = false;
  STEWARD_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path, options));
  STEWARD_RETURN_IF_ERROR(db->Exec(kSchema));
  return std::unique_ptr<AuditLog>(new AuditLog(std::move(db)));
}

Result<int64_t> AuditLog::Append(const AuditRow& row) {
  STEWARD_ASSIGN_OR_RETURN(
      SqliteStmt insert,
      db_->Prepare("INSERT INTO audit(at_micros, mode, action, object, reason, before, after, "
                   "error) VALUES(?, ?, ?, ?, ?, ?, ?, ?)"));
  insert.Bind(1, row.at_micros)
      .Bind(2, row.mode)
      .Bind(3, row.action)
      .Bind(4, row.object)
      .Bind(5, row.reason)
      .Bind(6, row.before)
      .Bind(7, row.after)
      .Bind(8, row.error);
  STEWARD_RETURN_IF_ERROR(insert.Run());
  return db_->LastInsertId();
}

Result<std::vector<AuditRow>> AuditLog::Read() const {
  STEWARD_ASSIGN_OR_RETURN(
      SqliteStmt select,
      db_->Prepare("SELECT id, at_micros, mode, action, object, reason, before, after, error "
                   "FROM audit ORDER BY id"));
  std::vector<AuditRow> rows;
  for (;;) {
    STEWARD_ASSIGN_OR_RETURN(bool more, select.Step());
    if (!more) break;
    AuditRow r;
    r.id = select.Int(0);
    r.at_micros = select.Int(1);
    r.mode = select.Text(2);
    r.action = select.Text(3);
    r.object = select.Text(4);
    r.reason = select.Text(5);
    r.before = select.Text(6);
    r.after = select.Text(7);
    r.error = select.Text(8);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace steward::store

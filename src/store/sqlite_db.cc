#include "store/sqlite_db.h"

#include <sqlite3.h>

#include <utility>

namespace steward::store {
namespace {

Status SqlError(sqlite3* db, std::string_view what, std::string_view sql) {
  std::string msg = std::string(what) + ": " + (db ? sqlite3_errmsg(db) : "out of memory");
  if (!sql.empty()) msg += " [" + std::string(sql.substr(0, 120)) + "]";
  return Status::IoError(std::move(msg));
}

// `path` for a file: URI: the characters a URI gives meaning to, percent-encoded.
std::string UriPath(std::string_view path) {
  std::string out;
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += '%';
      out += kHex[static_cast<unsigned char>(c) >> 4];
      out += kHex[static_cast<unsigned char>(c) & 15];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

SqliteStmt::SqliteStmt(SqliteStmt&& o) noexcept
    : db_(std::exchange(o.db_, nullptr)), stmt_(std::exchange(o.stmt_, nullptr)) {}

SqliteStmt& SqliteStmt::operator=(SqliteStmt&& o) noexcept {
  if (this != &o) {
    if (stmt_) sqlite3_finalize(stmt_);
    db_ = std::exchange(o.db_, nullptr);
    stmt_ = std::exchange(o.stmt_, nullptr);
  }
  return *this;
}

SqliteStmt::~SqliteStmt() {
  if (stmt_) sqlite3_finalize(stmt_);
}

SqliteStmt& SqliteStmt::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

SqliteStmt& SqliteStmt::Bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}

SqliteStmt& SqliteStmt::Bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

SqliteStmt& SqliteStmt::BindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

Result<bool> SqliteStmt::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqlError(db_, "sqlite3_step", sqlite3_sql(stmt_));
}

Status SqliteStmt::Run() {
  while (true) {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) continue;
    if (rc == SQLITE_DONE) break;
    Status s = SqlError(db_, "sqlite3_step", sqlite3_sql(stmt_));
    Reset();
    return s;
  }
  Reset();
  return Status::Ok();
}

void SqliteStmt::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t SqliteStmt::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

double SqliteStmt::Double(int column) const { return sqlite3_column_double(stmt_, column); }

std::string SqliteStmt::Text(int column) const {
  const unsigned char* p = sqlite3_column_text(stmt_, column);
  if (p == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

bool SqliteStmt::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path,
                                                 SqliteOpenOptions options) {
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_READWRITE;
  if (options.create_if_missing) flags |= SQLITE_OPEN_CREATE;
  std::string name = path;
  if (options.read_only) {
    flags = SQLITE_OPEN_READONLY;
    if (options.immutable) {
      flags |= SQLITE_OPEN_URI;
      name = "file:" + UriPath(path) + "?immutable=1";
    }
  }
  int rc = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
  if (rc != SQLITE_OK) {
    Status s = SqlError(raw, path + ": cannot open", "");
    sqlite3_close(raw);
    return s;
  }
  std::unique_ptr<SqliteDb> db(new SqliteDb(raw, path));
  // The timeout comes first so the pragmas below also wait for a writer holding the file.
  sqlite3_busy_timeout(raw, 5000);
  if (options.read_only) {
    Status s = db->Exec("PRAGMA foreign_keys=ON");
    if (!s.ok()) return s.WithContext(path);
    return db;
  }
  // WAL: readers (a dashboard, `sqlite3` by hand) never block the controller, and a commit is
  // an append. synchronous=NORMAL in WAL mode survives a process crash (the case restart-resume
  // is about); only an OS crash can lose the last commits, which then replay as idempotent
  // actions. busy_timeout covers a second reader holding the file briefly.
  // A file that is not SQLite fails at the first pragma; the error names it.
  for (const char* pragma :
       {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON"}) {
    Status s = db->Exec(pragma);
    if (!s.ok()) return s.WithContext(path);
  }
  return db;
}

SqliteDb::~SqliteDb() {
  cached_.clear();  // sqlite3_close refuses a connection with statements left.
  sqlite3_close(db_);
}

Status SqliteDb::Exec(std::string_view sql) {
  std::string text(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    return Status::IoError("sqlite3_exec: " + msg + " [" + text.substr(0, 120) + "]");
  }
  return Status::Ok();
}

Result<SqliteStmt> SqliteDb::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return SqlError(db_, "sqlite3_prepare", sql);
  return SqliteStmt(db_, stmt);
}

Result<SqliteStmt*> SqliteDb::Cached(std::string_view sql) {
  auto it = cached_.find(sql);
  if (it == cached_.end()) {
    STEWARD_ASSIGN_OR_RETURN(SqliteStmt stmt, Prepare(sql));
    it = cached_.emplace(std::string(sql), std::make_unique<SqliteStmt>(std::move(stmt))).first;
  } else {
    it->second->Reset();
  }
  return it->second.get();
}

Status SqliteDb::ExecCached(std::string_view sql) {
  STEWARD_ASSIGN_OR_RETURN(SqliteStmt * stmt, Cached(sql));
  return stmt->Run();
}

int64_t SqliteDb::LastInsertId() const { return sqlite3_last_insert_rowid(db_); }
int SqliteDb::Changes() const { return sqlite3_changes(db_); }

SqliteTransaction::~SqliteTransaction() {
  if (open_) (void)db_->ExecCached("ROLLBACK");
}

Status SqliteTransaction::Begin() {
  STEWARD_RETURN_IF_ERROR(db_->ExecCached("BEGIN IMMEDIATE"));
  open_ = true;
  return Status::Ok();
}

Status SqliteTransaction::BeginRead() {
  STEWARD_RETURN_IF_ERROR(db_->ExecCached("BEGIN"));
  open_ = true;
  return Status::Ok();
}

Status SqliteTransaction::Commit() {
  STEWARD_RETURN_IF_ERROR(db_->ExecCached("COMMIT"));
  open_ = false;
  return Status::Ok();
}

}  // namespace steward::store

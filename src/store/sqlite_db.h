// SqliteDb: a thin RAII wrapper over the sqlite3 C API, shared by the durable stores
// (remediation state, the workload event log, the cost ledger).
//
// Why a wrapper and not raw calls: every sqlite3 call returns an int that must be turned into a
// Status with the statement text, and every statement must be finalized on every path. The
// wrapper does both once.
//
// Not thread-safe: one controller owns one SqliteDb.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "model/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace steward::store {

// A prepared statement. Bind parameters are 1-based, columns 0-based (sqlite's convention).
class SqliteStmt {
 public:
  SqliteStmt() = default;
  SqliteStmt(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  SqliteStmt(SqliteStmt&& o) noexcept;
  SqliteStmt& operator=(SqliteStmt&& o) noexcept;
  SqliteStmt(const SqliteStmt&) = delete;
  SqliteStmt& operator=(const SqliteStmt&) = delete;
  ~SqliteStmt();

  SqliteStmt& Bind(int index, int64_t value);
  SqliteStmt& Bind(int index, int value) { return Bind(index, static_cast<int64_t>(value)); }
  SqliteStmt& Bind(int index, double value);
  SqliteStmt& Bind(int index, std::string_view value);
  SqliteStmt& BindNull(int index);

  // Steps once: true when a row is available, false when done.
  Result<bool> Step();
  // Steps until done (for INSERT/UPDATE), then resets so the statement can be reused.
  Status Run();
  void Reset();

  int64_t Int(int column) const;
  double Double(int column) const;
  std::string Text(int column) const;
  bool IsNull(int column) const;

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

struct SqliteOpenOptions {
  // False: a missing file is an error instead of a new empty database (readers that must not
  // leave a file behind when pointed at a wrong path).
  bool create_if_missing = true;
  // Open read-only (SQLITE_OPEN_READONLY): no pragma that writes (the journal mode is left as
  // the file has it), and every write fails. Readers that must never change a file use it.
  bool read_only = false;
  // With read_only: SQLite's immutable=1, no locks and no -shm/-wal files. Only for a file
  // nobody can be writing (e.g. one in a read-only directory, where WAL readers cannot create
  // their index file).
  bool immutable = false;
};

class SqliteDb {
 public:
  // Opens the database at `path` in WAL mode with foreign keys on and a 5 s busy timeout.
  // Every error names `path`.
  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path,
                                                SqliteOpenOptions options = {});
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb();

  Status Exec(std::string_view sql);
  Result<SqliteStmt> Prepare(std::string_view sql);
  // The statement for `sql`, prepared on first use and kept until the database closes, for
  // writes a hot path repeats (parsing the same INSERT on every remediation transition was 3 %
  // of a 102,400-GPU twin run). Reset and unbound when returned; Run() leaves it reset. Only
  // for statements that run to completion: a SELECT stepped part-way would hold its read.
  Result<SqliteStmt*> Cached(std::string_view sql);
  // Exec of one statement through Cached (BEGIN, COMMIT and the like).
  Status ExecCached(std::string_view sql);
  int64_t LastInsertId() const;
  int Changes() const;  // Rows changed by the last INSERT/UPDATE/DELETE.
  const std::string& path() const { return path_; }

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
  // Finalized before the connection closes (declared after db_, destroyed in ~SqliteDb).
  // Looked up by the caller's string_view, without building a key string per use.
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::unique_ptr<SqliteStmt>, TextHash, std::equal_to<>> cached_;
};

// Scoped transaction: BEGIN IMMEDIATE (via Begin) or BEGIN (via BeginRead), ROLLBACK on
// destruction unless Commit() succeeded, so an early `return status` never leaves half a
// transition.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDb* db) : db_(db) {}
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;
  ~SqliteTransaction();
  // Takes the write lock up front, so two writers serialize instead of one failing half-way
  // with SQLITE_BUSY.
  Status Begin();
  // A deferred transaction for readers: several SELECTs see one snapshot (WAL) without taking
  // the write lock, so a concurrent writer's commit never shows up half-way through a read.
  Status BeginRead();
  Status Commit();

 private:
  SqliteDb* db_;
  bool open_ = false;
};

}  // namespace steward::store

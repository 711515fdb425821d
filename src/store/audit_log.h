// AuditLog: every action a controller planned or took on a cluster, one row each, in SQLite —
// what `steward operate` writes and `steward operate log` reads. An SRE asks it "what did
// Steward do to gpu-017 last night, and why" and gets the time, the action, the object, the
// state before and after, the reason and whether it was only planned, sent as a server-side
// dry run, applied, or refused (with the error).
//
//   auto log = AuditLog::Open("steward-audit.db");
//   (*log)->Append({.at_micros = now, .mode = "planned", .action = "cordon",
//                   .object = "node/gpu-017", .reason = "XID 79", .before = "schedulable",
//                   .after = "unschedulable"});
//   auto rows = (*log)->Read();   // oldest first
//
// Each Append is one transaction (a crash never loses an acted-on row that was acknowledged).
// Cost: one INSERT per action. Not thread-safe: one controller loop owns it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/status.h"

namespace steward::store {

class SqliteDb;

struct AuditRow {
  int64_t id = 0;         // Assigned by Append.
  int64_t at_micros = 0;  // Unix microseconds (or simulated time in the twin).
  // "planned" (no --apply), "server-dry-run" (sent with dryRun=All), "applied", "failed".
  std::string mode;
  // cordon, uncordon, drain, evict, label, taint, annotate, event, patch-quota,
  // reclaim-notice, reclaim-evict.
  std::string action;
  std::string object;  // "node/gpu-017", "pod/ns/name", "clusterqueue/team-a".
  std::string reason;
  std::string before, after;
  std::string error;  // Why it failed ("" unless mode is "failed").
};

class AuditLog {
 public:
  // Opens or creates the log at `path`. Errors name the path.
  static Result<std::unique_ptr<AuditLog>> Open(const std::string& path);
  // Opens an existing log for reading; NotFound when `path` does not exist.
  static Result<std::unique_ptr<AuditLog>> OpenExisting(const std::string& path);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // Appends `row` (its id is ignored) and returns the id it got.
  Result<int64_t> Append(const AuditRow& row);
  // Every row, oldest first.
  Result<std::vector<AuditRow>> Read() const;

 private:
  explicit AuditLog(std::unique_ptr<SqliteDb> db);
  std::unique_ptr<SqliteDb> db_;
};

}  // namespace steward::store

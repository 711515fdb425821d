// EventLog: a durable, queryable log of what happened to workloads, one row per lifecycle step
// (arrive, admit, place, start, checkpoint, finish, fail, drain, preempt, stop, scale), in
// SQLite.
//
// Every writer session is one `run` (a twin run, a controller's lifetime). Rows are appended in
// batches, each batch one transaction, and the run is marked complete only when Finish()
// commits. A process killed mid-run leaves an incomplete run whose rows stay readable but are
// never mistaken for a finished one: readers pick the latest complete run unless told
// otherwise, and a rerun appends a new run instead of adding to the old one's counts.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"

namespace steward::store {

class SqliteDb;

struct EventRow {
  int64_t seq = 0;  // Order within the run (assigned by Append).
  double t_seconds = 0;
  std::string kind;
  std::string workload;  // namespace/name.
  std::string team;
  int64_t gpus = 0;
  double lost_gpu_hours = 0;
  std::string detail;
};

struct EventRun {
  int64_t id = 0;
  std::string label;  // What ran (e.g. the scenario and seed).
  bool complete = false;
  int64_t events = 0;
};

class EventLog {
 public:
  // Opens (creating if needed) the log at `path` and starts a new run labelled `label`.
  static Result<std::unique_ptr<EventLog>> Create(const std::string& path, std::string_view label);
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;
  ~EventLog();

  // Buffers one row; a full batch is committed in one transaction.
  Status Append(EventRow row);
  // Commits what is buffered and marks the run complete.
  Status Finish();
  int64_t run_id() const { return run_id_; }

  // Runs in the log at `path`, oldest first.
  static Result<std::vector<EventRun>> Runs(const std::string& path);
  // Rows of run `run` (nullopt: the latest complete run), optionally of one workload, in order.
  static Result<std::vector<EventRow>> Read(const std::string& path, std::optional<int64_t> run,
                                            std::string_view workload = {});

 private:
  EventLog(std::unique_ptr<SqliteDb> db, int64_t run_id);
  Status Flush();

  std::unique_ptr<SqliteDb> db_;
  int64_t run_id_;
  int64_t next_seq_ = 0;
  std::vector<EventRow> buffer_;
};

}  // namespace steward::store

#include "cost/ledger.h"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <set>
#include <utility>

#include "cost/waste_cause.h"
#include "store/sqlite_db.h"
#include "store/writer_lock.h"

namespace steward::cost {
namespace {

using store::SqliteDb;
using store::SqliteStmt;
using store::SqliteTransaction;

constexpr char kSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS meta(
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
-- One row per window [start_s, end_s) in Unix seconds (UTC).
CREATE TABLE IF NOT EXISTS windows(
  id      INTEGER PRIMARY KEY,
  start_s INTEGER NOT NULL,
  end_s   INTEGER NOT NULL,
  CHECK (end_s > start_s),
  UNIQUE (start_s, end_s)
);
CREATE INDEX IF NOT EXISTS windows_by_end ON windows(end_s);
-- Capacity and the price frozen at write time, per GPU model and window.
CREATE TABLE IF NOT EXISTS window_models(
  window_id          INTEGER NOT NULL REFERENCES windows(id) ON DELETE CASCADE,
  gpu_model          TEXT NOT NULL,
  capacity_gpu_hours REAL NOT NULL CHECK (capacity_gpu_hours >= 0),
  usd_per_gpu_hour   REAL NOT NULL CHECK (usd_per_gpu_hour > 0),
  PRIMARY KEY (window_id, gpu_model)
) WITHOUT ROWID;
-- One row per workload and window; hours are whole-GPU-equivalent (share-weighted).
CREATE TABLE IF NOT EXISTS allocations(
  id                  INTEGER PRIMARY KEY,
  window_id           INTEGER NOT NULL REFERENCES windows(id) ON DELETE CASCADE,
  workload            TEXT NOT NULL,
  team                TEXT NOT NULL,
  namespace           TEXT NOT NULL,
  gpu_model           TEXT NOT NULL,
  gpu_share           REAL NOT NULL CHECK (gpu_share > 0 AND gpu_share <= 1),
  allocated_gpu_hours REAL NOT NULL CHECK (allocated_gpu_hours >= 0),
  busy_gpu_hours      REAL NOT NULL CHECK (busy_gpu_hours >= 0),
  sm_active_gpu_hours REAL NOT NULL CHECK (sm_active_gpu_hours >= 0),
  UNIQUE (window_id, workload)
);
CREATE TABLE IF NOT EXISTS allocation_labels(
  allocation_id INTEGER NOT NULL REFERENCES allocations(id) ON DELETE CASCADE,
  key           TEXT NOT NULL,
  value         TEXT NOT NULL,
  PRIMARY KEY (allocation_id, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS allocation_waste(
  allocation_id INTEGER NOT NULL REFERENCES allocations(id) ON DELETE CASCADE,
  cause         TEXT NOT NULL,
  gpu_hours     REAL NOT NULL CHECK (gpu_hours >= 0),
  PRIMARY KEY (allocation_id, cause)
) WITHOUT ROWID;
)sql";

bool Finite(double v) { return std::isfinite(v); }

// Relative slack for "busy <= allocated" and "allocated <= capacity": producers integrate in
// floating point, so exact equality can come out a few ulps over.
constexpr double kSlackGpuHours = 1e-6;

}  // namespace

double StoredWindow::PriceOf(std::string_view gpu_model) const {
  for (const StoredModel& m : models) {
    if (m.gpu_model == gpu_model) return m.usd_per_gpu_hour;
  }
  return 0;
}

std::string LedgerRun::Describe() const {
  return fmt::format("scenario {} (hash {}), seed {}, capacity {}", scenario, scenario_hash, seed,
                     capacity);
}

std::string_view Ledger::Schema() { return kSchema; }

std::string Ledger::InitScript(std::string_view cluster, std::string_view currency) {
  auto quote = [](std::string_view v) {
    std::string out = "'";
    for (char c : v) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
  };
  return fmt::format(
      "{}INSERT INTO meta(key, value) VALUES ('format', 'steward-ledger'), "
      "('schema_version', '{}'), ('cluster', {}), ('currency', {});\n",
      kSchema, kSchemaVersion, quote(cluster), quote(currency));
}

Status ValidateWindow(const Window& window, const std::vector<AllocationRecord>& records,
                      const CapacityByModel& capacity) {
  const std::string where =
      fmt::format("window [{}, {})", FormatRfc3339(window.start), FormatRfc3339(window.end));
  auto bad = [&](std::string what) {
    return Status::InvalidArgument(fmt::format("{}: {}", where, what));
  };
  if (window.end <= window.start) return bad("end must be after start");
  for (const auto& [model, hours] : capacity) {
    if (model.empty()) return bad("capacity has an empty GPU model name");
    if (!Finite(hours) || hours < 0) {
      return bad(fmt::format("capacity of {} is {}; it must be finite and >= 0", model, hours));
    }
  }
  std::set<std::string_view> seen;
  std::map<std::string_view, double> allocated_by_model;
  for (const AllocationRecord& r : records) {
    if (r.workload.empty()) return bad("a record has an empty workload name");
    const std::string w = fmt::format("workload {}", r.workload);
    if (!seen.insert(r.workload).second) return bad(w + ": appears twice in the window");
    if (r.gpu_model.empty()) return bad(w + ": gpu_model is empty");
    if (!capacity.contains(r.gpu_model)) {
      return bad(fmt::format("{}: gpu_model {} has no capacity in the window", w, r.gpu_model));
    }
    if (!Finite(r.gpu_share) || !(r.gpu_share > 0) || r.gpu_share > 1) {
      return bad(fmt::format("{}: gpu_share {} must be in (0, 1]", w, r.gpu_share));
    }
    const std::pair<const char*, double> hours[] = {{"allocated_gpu_hours", r.allocated_gpu_hours},
                                                    {"busy_gpu_hours", r.busy_gpu_hours},
                                                    {"sm_active_gpu_hours", r.sm_active_gpu_hours}};
    for (const auto& [name, v] : hours) {
      if (!Finite(v) || v < 0) return bad(fmt::format("{}: {} is {}; must be >= 0", w, name, v));
    }
    const double limit = r.allocated_gpu_hours * (1 + 1e-9) + kSlackGpuHours;
    if (r.busy_gpu_hours > limit || r.sm_active_gpu_hours > limit) {
      return bad(
          fmt::format("{}: busy ({}) and SM-active ({}) GPU-hours must not exceed "
                      "allocated ({})",
                      w, r.busy_gpu_hours, r.sm_active_gpu_hours, r.allocated_gpu_hours));
    }
    for (const auto& [cause, v] : r.waste_gpu_hours_by_cause) {
      if (cause.empty()) return bad(w + ": a waste cause has an empty name");
      // One vocabulary with the classifier (cost/waste_cause.h): a typo or a cluster-level
      // cause on a workload's record would split or double count the review's totals.
      const std::optional<WasteCause> known = ParseWasteCause(cause);
      if (!known || !IsHolderCause(*known)) {
        return bad(
            fmt::format("{}: waste cause {} is not a workload cause (zombie, over_request, "
                        "dataloader_stall, low_efficiency, startup)",
                        w, cause));
      }
      if (!Finite(v) || v < 0) {
        return bad(fmt::format("{}: waste {} is {}; must be >= 0", w, cause, v));
      }
    }
    allocated_by_model[r.gpu_model] += r.allocated_gpu_hours;
  }
  for (const auto& [model, allocated] : allocated_by_model) {
    const double cap = capacity.find(std::string(model))->second;
    if (allocated > cap * (1 + 1e-9) + kSlackGpuHours) {
      return bad(
          fmt::format("{} allocated {} GPU-hours but capacity is {}", model, allocated, cap));
    }
  }
  return Status::Ok();
}

Ledger::Ledger(std::unique_ptr<SqliteDb> db, std::filesystem::path path, LedgerOptions options)
    : db_(std::move(db)),
      read_only_(options.read_only),
      path_(std::move(path)),
      cost_model_(std::move(options.cost_model)),
      cluster_(std::move(options.cluster)),
      currency_(cost_model_.currency()) {}

Ledger::~Ledger() = default;

namespace {

// Opens the SQLite file for a reader: read-only; in a directory the reader may not write, a
// WAL-mode file cannot get its index (-shm) file, and then, when no writer has left a WAL
// behind, it is opened immutable (nobody can be writing where nobody may create files).
Result<std::unique_ptr<SqliteDb>> OpenReadOnly(const std::filesystem::path& path) {
  STEWARD_ASSIGN_OR_RETURN(
      std::unique_ptr<SqliteDb> db,
      SqliteDb::Open(path.string(), {.create_if_missing = false, .read_only = true}));
  Result<SqliteStmt> probe = db->Prepare("SELECT count(*) FROM sqlite_master");
  Status s = probe.ok() ? probe->Step().status() : probe.status();
  if (s.ok()) return db;
  const std::string& m = s.message();
  if (m.find("readonly") == std::string::npos && m.find("unable to open") == std::string::npos) {
    return s;
  }
  std::error_code ec;
  const std::string wal = path.string() + "-wal";
  if (std::filesystem::exists(wal, ec) && std::filesystem::file_size(wal, ec) > 0) {
    return Status::FailedPrecondition(fmt::format(
        "{}: cannot read it here: its write-ahead log {} holds writes this reader may not "
        "apply (the directory is read-only); let the writer finish or copy the files",
        path.string(), wal));
  }
  return SqliteDb::Open(path.string(),
                        {.create_if_missing = false, .read_only = true, .immutable = true});
}

}  // namespace

Result<std::unique_ptr<Ledger>> Ledger::Open(const std::filesystem::path& path,
                                             LedgerOptions options) {
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (!exists && (!options.create_if_missing || options.read_only)) {
    return Status::NotFound(fmt::format("{}: no such ledger", path.string()));
  }
  if (options.read_only && std::filesystem::is_regular_file(path, ec) &&
      std::filesystem::file_size(path, ec) == 0) {
    return Status::Corrupt(
        fmt::format("{}: not a Steward ledger (an empty, 0-byte file)", path.string()));
  }
  // Writers lock before SQLite touches the file, so a refused writer changes nothing.
  std::unique_ptr<store::WriterLock> lock;
  if (!options.read_only) {
    STEWARD_ASSIGN_OR_RETURN(lock, store::WriterLock::Acquire(path));
  }
  // WAL: readers (the /allocation server) never block the writer, and an uncommitted write
  // is invisible and discarded on the next open. synchronous=NORMAL keeps every commit atomic;
  // after a power cut the last commits may be lost, which re-running those windows repairs.
  Result<std::unique_ptr<SqliteDb>> db =
      options.read_only
          ? OpenReadOnly(path)
          : SqliteDb::Open(path.string(), {.create_if_missing = options.create_if_missing});
  if (!db.ok()) {
    // SQLite reports a foreign file at the first statement (the WAL pragma or the probe).
    if (db.status().message().find("not a database") != std::string::npos) {
      return Status::Corrupt(fmt::format("{}: not a Steward ledger (not SQLite)", path.string()));
    }
    return db.status();
  }
  std::optional<LedgerRun> writer_run = options.run;
  std::unique_ptr<Ledger> ledger(new Ledger(std::move(*db), path, std::move(options)));
  ledger->lock_ = std::move(lock);
  STEWARD_RETURN_IF_ERROR(ledger->CheckOrCreateSchema());
  if (!ledger->read_only_) STEWARD_RETURN_IF_ERROR(ledger->CheckOrRecordRun(writer_run));
  return ledger;
}

// Either a fresh file (no tables), or one whose meta says it is a ledger of our version.
Status Ledger::CheckOrCreateSchema() {
  STEWARD_ASSIGN_OR_RETURN(SqliteStmt count,
                           db_->Prepare("SELECT count(*) FROM sqlite_master WHERE type='table'"));
  STEWARD_ASSIGN_OR_RETURN(bool counted, count.Step());
  if (!counted || count.Int(0) == 0) {
    if (read_only_) {
      return Status::Corrupt(
          fmt::format("{}: not a Steward ledger (an SQLite file without tables)", path_.string()));
    }
    SqliteTransaction txn(db_.get());
    STEWARD_RETURN_IF_ERROR(txn.Begin());
    STEWARD_RETURN_IF_ERROR(db_->Exec(InitScript(cluster_, cost_model_.currency())));
    return txn.Commit();
  }
  Result<SqliteStmt> q = db_->Prepare("SELECT key, value FROM meta");
  if (!q.ok()) {
    return Status::Corrupt(fmt::format("{}: not a Steward ledger (no meta table)", path_.string()));
  }
  std::map<std::string, std::string> meta;
  while (true) {
    STEWARD_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    meta[q->Text(0)] = q->Text(1);
  }
  if (meta["format"] != "steward-ledger") {
    return Status::Corrupt(fmt::format("{}: not a Steward ledger", path_.string()));
  }
  if (meta["schema_version"] != std::to_string(kSchemaVersion)) {
    return Status::Corrupt(fmt::format("{}: ledger schema version {} (this build reads {})",
                                       path_.string(), meta["schema_version"], kSchemaVersion));
  }
  if (!meta["cluster"].empty()) cluster_ = meta["cluster"];
  if (!meta["currency"].empty()) currency_ = meta["currency"];
  if (meta.contains("run_scenario")) {
    LedgerRun run;
    run.scenario = meta["run_scenario"];
    run.scenario_hash = meta["run_scenario_hash"];
    run.capacity = meta["run_capacity"];
    const std::string& seed = meta["run_seed"];
    auto [p, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), run.seed);
    if (ec != std::errc() || p != seed.data() + seed.size()) {
      return Status::Corrupt(
          fmt::format("{}: meta run_seed \"{}\" is not an integer", path_.string(), seed));
    }
    run_ = std::move(run);
  }
  return Status::Ok();
}

Status Ledger::CheckOrRecordRun(const std::optional<LedgerRun>& writer) {
  const std::string other = "write this run to another ledger file (or delete this one)";
  if (run_) {
    if (writer == run_) return Status::Ok();
    return Status::FailedPrecondition(
        fmt::format("{}: the ledger holds windows of {}, but this writer is {}; {}", path_.string(),
                    run_->Describe(), writer ? writer->Describe() : "not a recorded run", other));
  }
  if (!writer) return Status::Ok();
  STEWARD_ASSIGN_OR_RETURN(SqliteStmt count, db_->Prepare("SELECT count(*) FROM windows"));
  STEWARD_ASSIGN_OR_RETURN(bool counted, count.Step());
  if (counted && count.Int(0) > 0) {
    return Status::FailedPrecondition(fmt::format(
        "{}: the ledger holds {} window(s) of a writer that recorded no run, and this writer "
        "is {}; {}",
        path_.string(), count.Int(0), writer->Describe(), other));
  }
  SqliteTransaction txn(db_.get());
  STEWARD_RETURN_IF_ERROR(txn.Begin());
  STEWARD_ASSIGN_OR_RETURN(SqliteStmt ins,
                           db_->Prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)"));
  const std::pair<const char*, std::string> rows[] = {{"run_scenario", writer->scenario},
                                                      {"run_scenario_hash", writer->scenario_hash},
                                                      {"run_seed", std::to_string(writer->seed)},
                                                      {"run_capacity", writer->capacity}};
  for (const auto& [k, v] : rows) STEWARD_RETURN_IF_ERROR(ins.Bind(1, k).Bind(2, v).Run());
  STEWARD_RETURN_IF_ERROR(txn.Commit());
  run_ = writer;
  return Status::Ok();
}

Status Ledger::WriteWindow(const Window& window, const std::vector<AllocationRecord>& records,
                           const CapacityByModel& capacity) {
  if (read_only_) {
    return Status::FailedPrecondition(
        fmt::format("{}: the ledger was opened read-only", path_.string()));
  }
  STEWARD_RETURN_IF_ERROR(ValidateWindow(window, records, capacity));
  if (cost_model_.currency() != currency_) {
    return Status::FailedPrecondition(
        fmt::format("{}: the ledger is priced in {} but the cost model in {}; prices would mix",
                    path_.string(), currency_, cost_model_.currency()));
  }
  std::lock_guard<std::mutex> lock(mu_);
  // One transaction per window: a writer killed before Commit leaves the previous version, and
  // the destructor rolls back on any error below.
  SqliteTransaction txn(db_.get());
  Status s = txn.Begin();
  if (s.ok()) s = WriteWindowLocked(window, records, capacity);
  if (s.ok()) s = txn.Commit();
  return s.WithContext(path_.string());
}

Status Ledger::WriteWindowLocked(const Window& window, const std::vector<AllocationRecord>& records,
                                 const CapacityByModel& capacity) {
  {
    STEWARD_ASSIGN_OR_RETURN(
        SqliteStmt overlap,
        db_->Prepare("SELECT start_s, end_s FROM windows WHERE start_s < ?2 AND end_s > ?1 "
                     "AND NOT (start_s = ?1 AND end_s = ?2) LIMIT 1"));
    overlap.Bind(1, window.start).Bind(2, window.end);
    STEWARD_ASSIGN_OR_RETURN(bool overlaps, overlap.Step());
    if (overlaps) {
      return Status::FailedPrecondition(fmt::format(
          "window [{}, {}) overlaps stored window [{}, {}); windows may only be replaced "
          "whole",
          FormatRfc3339(window.start), FormatRfc3339(window.end), FormatRfc3339(overlap.Int(0)),
          FormatRfc3339(overlap.Int(1))));
    }
  }
  {
    // Replacing: the cascade removes the old rows of this window in the same transaction.
    STEWARD_ASSIGN_OR_RETURN(SqliteStmt del,
                             db_->Prepare("DELETE FROM windows WHERE start_s = ?1 AND end_s = ?2"));
    STEWARD_RETURN_IF_ERROR(del.Bind(1, window.start).Bind(2, window.end).Run());
  }
  int64_t window_id = 0;
  {
    STEWARD_ASSIGN_OR_RETURN(SqliteStmt ins,
                             db_->Prepare("INSERT INTO windows(start_s, end_s) VALUES (?1, ?2)"));
    STEWARD_RETURN_IF_ERROR(ins.Bind(1, window.start).Bind(2, window.end).Run());
    window_id = db_->LastInsertId();
  }
  {
    STEWARD_ASSIGN_OR_RETURN(
        SqliteStmt ins,
        db_->Prepare("INSERT INTO window_models(window_id, gpu_model, "
                     "capacity_gpu_hours, usd_per_gpu_hour) VALUES (?1, ?2, ?3, ?4)"));
    for (const auto& [model, hours] : capacity) {
      ins.Bind(1, window_id)
          .Bind(2, model)
          .Bind(3, hours)
          .Bind(4, cost_model_.UsdPerGpuHour(model));
      STEWARD_RETURN_IF_ERROR(ins.Run());
    }
  }
  STEWARD_ASSIGN_OR_RETURN(
      SqliteStmt alloc,
      db_->Prepare("INSERT INTO allocations(window_id, workload, team, namespace, gpu_model, "
                   "gpu_share, allocated_gpu_hours, busy_gpu_hours, sm_active_gpu_hours) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  STEWARD_ASSIGN_OR_RETURN(
      SqliteStmt label,
      db_->Prepare("INSERT INTO allocation_labels(allocation_id, key, value) VALUES (?1, ?2, ?3)"));
  STEWARD_ASSIGN_OR_RETURN(
      SqliteStmt waste,
      db_->Prepare(
          "INSERT INTO allocation_waste(allocation_id, cause, gpu_hours) VALUES (?1, ?2, ?3)"));
  int rows = 0;
  for (const AllocationRecord& r : records) {
    alloc.Bind(1, window_id)
        .Bind(2, r.workload)
        .Bind(3, r.team)
        .Bind(4, r.namespace_name)
        .Bind(5, r.gpu_model)
        .Bind(6, r.gpu_share)
        .Bind(7, r.allocated_gpu_hours)
        .Bind(8, r.busy_gpu_hours)
        .Bind(9, r.sm_active_gpu_hours);
    STEWARD_RETURN_IF_ERROR(alloc.Run());
    const int64_t id = db_->LastInsertId();
    for (const auto& [k, v] : r.labels) {
      STEWARD_RETURN_IF_ERROR(label.Bind(1, id).Bind(2, k).Bind(3, v).Run());
    }
    for (const auto& [cause, hours] : r.waste_gpu_hours_by_cause) {
      STEWARD_RETURN_IF_ERROR(waste.Bind(1, id).Bind(2, cause).Bind(3, hours).Run());
    }
    if (++rows == crash_after_rows_) _exit(kTestCrashExitCode);
  }
  return Status::Ok();
}

namespace {

// A stored window against the ledger's invariants: what WriteWindow guarantees, re-checked
// because the file may have been edited or damaged since.
Status CheckStoredWindow(const StoredWindow& w) {
  CapacityByModel capacity;
  for (const StoredModel& m : w.models) {
    if (!Finite(m.usd_per_gpu_hour) || !(m.usd_per_gpu_hour > 0)) {
      return Status::Corrupt(fmt::format(
          "window [{}, {}): {} price {} per GPU-hour must be finite and > 0 (the ledger was "
          "edited or damaged)",
          FormatRfc3339(w.window.start), FormatRfc3339(w.window.end), m.gpu_model,
          m.usd_per_gpu_hour));
    }
    capacity[m.gpu_model] = m.capacity_gpu_hours;
  }
  Status s = ValidateWindow(w.window, w.records, capacity);
  if (s.ok()) return s;
  return Status::Corrupt(s.message() + " (the ledger was edited or damaged)");
}

}  // namespace

Status Ledger::ForEachWindow(const Window& range,
                             const std::function<void(const StoredWindow&)>& fn) const {
  std::lock_guard<std::mutex> lock(mu_);
  // One read transaction, so a concurrent writer cannot show us half of its windows.
  SqliteTransaction txn(db_.get());
  Status s = txn.BeginRead();
  if (s.ok()) s = ForEachWindowLocked(range, fn);
  if (s.ok()) s = txn.Commit();
  return s.WithContext(path_.string());
}

Status Ledger::ForEachWindowLocked(const Window& range,
                                   const std::function<void(const StoredWindow&)>& fn) const {
  STEWARD_ASSIGN_OR_RETURN(
      SqliteStmt windows,
      db_->Prepare("SELECT id, start_s, end_s FROM windows WHERE start_s < ?2 AND end_s > ?1 "
                   "ORDER BY start_s"));
  STEWARD_ASSIGN_OR_RETURN(
      SqliteStmt models,
      db_->Prepare("SELECT gpu_model, capacity_gpu_hours, usd_per_gpu_hour FROM window_models "
                   "WHERE window_id = ?1 ORDER BY gpu_model"));
  STEWARD_ASSIGN_OR_RETURN(
      SqliteStmt allocs,
      db_->Prepare("SELECT id, workload, team, namespace, gpu_model, gpu_share, "
                   "allocated_gpu_hours, busy_gpu_hours, sm_active_gpu_hours FROM allocations "
                   "WHERE window_id = ?1 ORDER BY workload"));
  STEWARD_ASSIGN_OR_RETURN(
      SqliteStmt labels,
      db_->Prepare("SELECT l.allocation_id, l.key, l.value FROM allocation_labels l "
                   "JOIN allocations a ON a.id = l.allocation_id WHERE a.window_id = ?1"));
  STEWARD_ASSIGN_OR_RETURN(
      SqliteStmt wastes,
      db_->Prepare("SELECT w.allocation_id, w.cause, w.gpu_hours FROM allocation_waste w "
                   "JOIN allocations a ON a.id = w.allocation_id WHERE a.window_id = ?1"));
  windows.Bind(1, range.start).Bind(2, range.end);
  StoredWindow w;
  std::map<int64_t, size_t> index_of;
  while (true) {
    STEWARD_ASSIGN_OR_RETURN(bool window_row, windows.Step());
    if (!window_row) break;
    const int64_t id = windows.Int(0);
    w.window = {windows.Int(1), windows.Int(2)};
    w.models.clear();
    w.records.clear();
    index_of.clear();
    models.Reset();
    models.Bind(1, id);
    while (true) {
      STEWARD_ASSIGN_OR_RETURN(bool row, models.Step());
      if (!row) break;
      w.models.push_back({models.Text(0), models.Double(1), models.Double(2)});
    }
    allocs.Reset();
    allocs.Bind(1, id);
    while (true) {
      STEWARD_ASSIGN_OR_RETURN(bool row, allocs.Step());
      if (!row) break;
      AllocationRecord r;
      r.workload = allocs.Text(1);
      r.team = allocs.Text(2);
      r.namespace_name = allocs.Text(3);
      r.gpu_model = allocs.Text(4);
      r.gpu_share = allocs.Double(5);
      r.allocated_gpu_hours = allocs.Double(6);
      r.busy_gpu_hours = allocs.Double(7);
      r.sm_active_gpu_hours = allocs.Double(8);
      index_of[allocs.Int(0)] = w.records.size();
      w.records.push_back(std::move(r));
    }
    labels.Reset();
    labels.Bind(1, id);
    while (true) {
      STEWARD_ASSIGN_OR_RETURN(bool row, labels.Step());
      if (!row) break;
      auto it = index_of.find(labels.Int(0));
      if (it != index_of.end()) w.records[it->second].labels[labels.Text(1)] = labels.Text(2);
    }
    wastes.Reset();
    wastes.Bind(1, id);
    while (true) {
      STEWARD_ASSIGN_OR_RETURN(bool row, wastes.Step());
      if (!row) break;
      auto it = index_of.find(wastes.Int(0));
      if (it != index_of.end()) {
        w.records[it->second].waste_gpu_hours_by_cause[wastes.Text(1)] = wastes.Double(2);
      }
    }
    STEWARD_RETURN_IF_ERROR(CheckStoredWindow(w));
    fn(w);
  }
  return Status::Ok();
}

void Ledger::TEST_CrashAfterRows(int rows) {
  crash_after_rows_ = rows;
  (void)db_->Exec("PRAGMA cache_size=10");
}

Result<std::vector<Window>> Ledger::ListWindows() const {
  std::lock_guard<std::mutex> lock(mu_);
  auto list = [&]() -> Result<std::vector<Window>> {
    STEWARD_ASSIGN_OR_RETURN(SqliteStmt q,
                             db_->Prepare("SELECT start_s, end_s FROM windows ORDER BY start_s"));
    std::vector<Window> out;
    while (true) {
      STEWARD_ASSIGN_OR_RETURN(bool row, q.Step());
      if (!row) break;
      out.push_back({q.Int(0), q.Int(1)});
    }
    return out;
  };
  Result<std::vector<Window>> out = list();
  if (!out.ok()) return out.status().WithContext(path_.string());
  return out;
}

Result<std::optional<int64_t>> Ledger::LatestEnd() const {
  std::lock_guard<std::mutex> lock(mu_);
  auto latest = [&]() -> Result<std::optional<int64_t>> {
    STEWARD_ASSIGN_OR_RETURN(SqliteStmt q, db_->Prepare("SELECT max(end_s) FROM windows"));
    STEWARD_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row || q.IsNull(0)) return std::optional<int64_t>();
    return std::optional<int64_t>(q.Int(0));
  };
  Result<std::optional<int64_t>> out = latest();
  if (!out.ok()) return out.status().WithContext(path_.string());
  return out;
}

}  // namespace steward::cost

#include "cost/ledger.h"

#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cmath>
#include <set>
#include <utility>

#include "cost/waste_cause.h"

namespace steward::cost {
namespace {

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

// A prepared statement, finalized on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Status status() const {
    if (rc_ == SQLITE_OK) return Status::Ok();
    return Status::Internal(fmt::format("sqlite prepare: {}", sqlite3_errmsg(db_)));
  }
  Stmt& Bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Stmt& Bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  Stmt& Bind(int i, std::string_view v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return sqlite3_step(stmt_); }
  Status StepDone() {
    const int rc = Step();
    sqlite3_reset(stmt_);
    if (rc == SQLITE_DONE) return Status::Ok();
    return Status::IoError(fmt::format("sqlite: {}", sqlite3_errmsg(db_)));
  }
  Status StepError() const {
    return Status::IoError(fmt::format("sqlite: {}", sqlite3_errmsg(db_)));
  }
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  bool Null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string Text(int col) const {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
};

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

Ledger::Ledger(sqlite3* db, std::filesystem::path path, LedgerOptions options)
    : db_(db),
      path_(std::move(path)),
      cost_model_(std::move(options.cost_model)),
      cluster_(std::move(options.cluster)),
      currency_(cost_model_.currency()) {}

Ledger::~Ledger() { sqlite3_close(db_); }

Status Ledger::Exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    Status s = Status::IoError(
        fmt::format("{}: sqlite: {}", path_.string(), err ? err : sqlite3_errmsg(db_)));
    sqlite3_free(err);
    return s;
  }
  return Status::Ok();
}

Result<std::unique_ptr<Ledger>> Ledger::Open(const std::filesystem::path& path,
                                             LedgerOptions options) {
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (!exists && !options.create_if_missing) {
    return Status::NotFound(fmt::format("{}: no such ledger", path.string()));
  }
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX;
  if (options.create_if_missing) flags |= SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    Status s = Status::IoError(fmt::format("{}: cannot open ledger: {}", path.string(),
                                           db ? sqlite3_errmsg(db) : "out of memory"));
    sqlite3_close(db);
    return s;
  }
  std::unique_ptr<Ledger> ledger(new Ledger(db, path, std::move(options)));
  sqlite3_busy_timeout(db, 5000);
  // WAL: readers (the /allocation server) never block the writer, and an uncommitted write
  // is invisible and discarded on the next open. synchronous=NORMAL keeps every commit atomic;
  // after a power cut the last commits may be lost, which re-running those windows repairs.
  Status s = ledger->Exec(
      "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
      "PRAGMA foreign_keys=ON;");
  if (!s.ok()) {
    if (s.message().find("not a database") != std::string::npos) {
      return Status::Corrupt(fmt::format("{}: not a Steward ledger (not SQLite)", path.string()));
    }
    return s;
  }
  // Either a fresh file (no tables), or one whose meta says it is a ledger of our version.
  int tables = 0;
  {
    Stmt q(db, "SELECT count(*) FROM sqlite_master WHERE type='table'");
    STEWARD_RETURN_IF_ERROR(q.status());
    if (q.Step() == SQLITE_ROW) tables = static_cast<int>(q.Int(0));
  }
  if (tables == 0) {
    STEWARD_RETURN_IF_ERROR(ledger->Exec("BEGIN IMMEDIATE"));
    Status created =
        ledger->Exec(InitScript(ledger->cluster_, ledger->cost_model_.currency()).c_str());
    if (!created.ok()) {
      (void)ledger->Exec("ROLLBACK");
      return created;
    }
    STEWARD_RETURN_IF_ERROR(ledger->Exec("COMMIT"));
  } else {
    std::map<std::string, std::string> meta;
    Stmt q(db, "SELECT key, value FROM meta");
    if (!q.status().ok()) {
      return Status::Corrupt(
          fmt::format("{}: not a Steward ledger (no meta table)", path.string()));
    }
    while (q.Step() == SQLITE_ROW) meta[q.Text(0)] = q.Text(1);
    if (meta["format"] != "steward-ledger") {
      return Status::Corrupt(fmt::format("{}: not a Steward ledger", path.string()));
    }
    if (meta["schema_version"] != std::to_string(kSchemaVersion)) {
      return Status::Corrupt(fmt::format("{}: ledger schema version {} (this build reads {})",
                                         path.string(), meta["schema_version"], kSchemaVersion));
    }
    if (!meta["cluster"].empty()) ledger->cluster_ = meta["cluster"];
    if (!meta["currency"].empty()) ledger->currency_ = meta["currency"];
  }
  return ledger;
}

Status Ledger::WriteWindow(const Window& window, const std::vector<AllocationRecord>& records,
                           const CapacityByModel& capacity) {
  STEWARD_RETURN_IF_ERROR(ValidateWindow(window, records, capacity));
  if (cost_model_.currency() != currency_) {
    return Status::FailedPrecondition(
        fmt::format("{}: the ledger is priced in {} but the cost model in {}; prices would mix",
                    path_.string(), currency_, cost_model_.currency()));
  }
  std::lock_guard<std::mutex> lock(mu_);
  // IMMEDIATE takes the write lock up front, so two writers of one window serialize instead of
  // failing half-way with SQLITE_BUSY.
  STEWARD_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  Status s = WriteWindowLocked(window, records, capacity);
  if (!s.ok()) {
    (void)Exec("ROLLBACK");
    return s.WithContext(path_.string());
  }
  return Exec("COMMIT");
}

Status Ledger::WriteWindowLocked(const Window& window, const std::vector<AllocationRecord>& records,
                                 const CapacityByModel& capacity) {
  {
    Stmt overlap(db_,
                 "SELECT start_s, end_s FROM windows WHERE start_s < ?2 AND end_s > ?1 "
                 "AND NOT (start_s = ?1 AND end_s = ?2) LIMIT 1");
    STEWARD_RETURN_IF_ERROR(overlap.status());
    overlap.Bind(1, window.start).Bind(2, window.end);
    if (overlap.Step() == SQLITE_ROW) {
      return Status::FailedPrecondition(fmt::format(
          "window [{}, {}) overlaps stored window [{}, {}); windows may only be replaced "
          "whole",
          FormatRfc3339(window.start), FormatRfc3339(window.end), FormatRfc3339(overlap.Int(0)),
          FormatRfc3339(overlap.Int(1))));
    }
  }
  {
    // Replacing: the cascade removes the old rows of this window in the same transaction.
    Stmt del(db_, "DELETE FROM windows WHERE start_s = ?1 AND end_s = ?2");
    STEWARD_RETURN_IF_ERROR(del.status());
    del.Bind(1, window.start).Bind(2, window.end);
    STEWARD_RETURN_IF_ERROR(del.StepDone());
  }
  int64_t window_id = 0;
  {
    Stmt ins(db_, "INSERT INTO windows(start_s, end_s) VALUES (?1, ?2)");
    STEWARD_RETURN_IF_ERROR(ins.status());
    ins.Bind(1, window.start).Bind(2, window.end);
    STEWARD_RETURN_IF_ERROR(ins.StepDone());
    window_id = sqlite3_last_insert_rowid(db_);
  }
  {
    Stmt ins(db_,
             "INSERT INTO window_models(window_id, gpu_model, capacity_gpu_hours, "
             "usd_per_gpu_hour) VALUES (?1, ?2, ?3, ?4)");
    STEWARD_RETURN_IF_ERROR(ins.status());
    for (const auto& [model, hours] : capacity) {
      ins.Bind(1, window_id)
          .Bind(2, model)
          .Bind(3, hours)
          .Bind(4, cost_model_.UsdPerGpuHour(model));
      STEWARD_RETURN_IF_ERROR(ins.StepDone());
    }
  }
  Stmt alloc(db_,
             "INSERT INTO allocations(window_id, workload, team, namespace, gpu_model, "
             "gpu_share, allocated_gpu_hours, busy_gpu_hours, sm_active_gpu_hours) "
             "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  Stmt label(db_, "INSERT INTO allocation_labels(allocation_id, key, value) VALUES (?1, ?2, ?3)");
  Stmt waste(db_,
             "INSERT INTO allocation_waste(allocation_id, cause, gpu_hours) VALUES (?1, ?2, ?3)");
  STEWARD_RETURN_IF_ERROR(alloc.status());
  STEWARD_RETURN_IF_ERROR(label.status());
  STEWARD_RETURN_IF_ERROR(waste.status());
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
    STEWARD_RETURN_IF_ERROR(alloc.StepDone());
    const int64_t id = sqlite3_last_insert_rowid(db_);
    for (const auto& [k, v] : r.labels) {
      label.Bind(1, id).Bind(2, k).Bind(3, v);
      STEWARD_RETURN_IF_ERROR(label.StepDone());
    }
    for (const auto& [cause, hours] : r.waste_gpu_hours_by_cause) {
      waste.Bind(1, id).Bind(2, cause).Bind(3, hours);
      STEWARD_RETURN_IF_ERROR(waste.StepDone());
    }
    if (++rows == crash_after_rows_) _exit(kTestCrashExitCode);
  }
  return Status::Ok();
}

Status Ledger::ForEachWindow(const Window& range,
                             const std::function<void(const StoredWindow&)>& fn) const {
  std::lock_guard<std::mutex> lock(mu_);
  // One read transaction, so a concurrent writer cannot show us half of its windows.
  STEWARD_RETURN_IF_ERROR(Exec("BEGIN"));
  auto run = [&]() -> Status {
    Stmt windows(db_,
                 "SELECT id, start_s, end_s FROM windows WHERE start_s < ?2 AND end_s > ?1 "
                 "ORDER BY start_s");
    Stmt models(db_,
                "SELECT gpu_model, capacity_gpu_hours, usd_per_gpu_hour FROM window_models "
                "WHERE window_id = ?1 ORDER BY gpu_model");
    Stmt allocs(db_,
                "SELECT id, workload, team, namespace, gpu_model, gpu_share, "
                "allocated_gpu_hours, busy_gpu_hours, sm_active_gpu_hours FROM allocations "
                "WHERE window_id = ?1 ORDER BY workload");
    Stmt labels(db_,
                "SELECT l.allocation_id, l.key, l.value FROM allocation_labels l "
                "JOIN allocations a ON a.id = l.allocation_id WHERE a.window_id = ?1");
    Stmt wastes(db_,
                "SELECT w.allocation_id, w.cause, w.gpu_hours FROM allocation_waste w "
                "JOIN allocations a ON a.id = w.allocation_id WHERE a.window_id = ?1");
    for (Stmt* st : {&windows, &models, &allocs, &labels, &wastes}) {
      STEWARD_RETURN_IF_ERROR(st->status());
    }
    windows.Bind(1, range.start).Bind(2, range.end);
    StoredWindow w;
    std::map<int64_t, size_t> index_of;
    int rc;
    while ((rc = windows.Step()) == SQLITE_ROW) {
      const int64_t id = windows.Int(0);
      w.window = {windows.Int(1), windows.Int(2)};
      w.models.clear();
      w.records.clear();
      index_of.clear();
      models.Reset();
      models.Bind(1, id);
      while ((rc = models.Step()) == SQLITE_ROW) {
        w.models.push_back({models.Text(0), models.Double(1), models.Double(2)});
      }
      if (rc != SQLITE_DONE) return models.StepError();
      allocs.Reset();
      allocs.Bind(1, id);
      while ((rc = allocs.Step()) == SQLITE_ROW) {
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
      if (rc != SQLITE_DONE) return allocs.StepError();
      labels.Reset();
      labels.Bind(1, id);
      while ((rc = labels.Step()) == SQLITE_ROW) {
        auto it = index_of.find(labels.Int(0));
        if (it != index_of.end()) w.records[it->second].labels[labels.Text(1)] = labels.Text(2);
      }
      if (rc != SQLITE_DONE) return labels.StepError();
      wastes.Reset();
      wastes.Bind(1, id);
      while ((rc = wastes.Step()) == SQLITE_ROW) {
        auto it = index_of.find(wastes.Int(0));
        if (it != index_of.end()) {
          w.records[it->second].waste_gpu_hours_by_cause[wastes.Text(1)] = wastes.Double(2);
        }
      }
      if (rc != SQLITE_DONE) return wastes.StepError();
      fn(w);
    }
    if (rc != SQLITE_DONE) return windows.StepError();
    return Status::Ok();
  };
  Status s = run();
  (void)Exec("COMMIT");
  return s;
}

void Ledger::TEST_CrashAfterRows(int rows) {
  crash_after_rows_ = rows;
  (void)Exec("PRAGMA cache_size=10");
}

Result<std::vector<Window>> Ledger::ListWindows() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt q(db_, "SELECT start_s, end_s FROM windows ORDER BY start_s");
  STEWARD_RETURN_IF_ERROR(q.status());
  std::vector<Window> out;
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) out.push_back({q.Int(0), q.Int(1)});
  if (rc != SQLITE_DONE) return q.StepError();
  return out;
}

Result<std::optional<int64_t>> Ledger::LatestEnd() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt q(db_, "SELECT max(end_s) FROM windows");
  STEWARD_RETURN_IF_ERROR(q.status());
  if (q.Step() != SQLITE_ROW) return q.StepError();
  if (q.Null(0)) return std::optional<int64_t>();
  return std::optional<int64_t>(q.Int(0));
}

}  // namespace steward::cost

// The showback/chargeback ledger: one SQLite file holding, per window, what each workload was
// allocated and used, the cluster's capacity, and the price per GPU-hour of each GPU model.
//
// Windows are idempotent: WriteWindow replaces a window with the same [start, end) inside one
// transaction, so re-running a window, or a writer killed mid-write, never double-counts (a
// transaction that never commits leaves the previous version intact; SQLite's WAL journal
// rolls it back on the next open). A window that overlaps a stored one without being equal to
// it is refused, because its hours would be counted twice.
//
// Prices are frozen per window at write time (from LedgerOptions::cost_model): a chargeback
// already issued does not change when the cost model is edited later.
//
// One writer at a time: a writable handle holds the file's writer lock (store/writer_lock.h)
// until it is destroyed; a second writer is refused with the holder's pid, host and start. A
// ledger belongs to one run (LedgerRun: scenario name and hash, seed, capacity), recorded by
// its first writer; a writer of another run is refused at Open, so two runs never mix.
//
// Readers (LedgerOptions::read_only) open the file read-only: they never create, convert or
// write a ledger, work on a read-only file or directory, and refuse a file that is not one (a
// 0-byte file included). Every window read is checked against the ledger's invariants (finite,
// non-negative hours and capacity, positive prices, busy and SM-active <= allocated, allocated
// <= capacity per model): a file edited or damaged outside Steward is an error naming the
// window, never impossible figures.
//
// The SQL schema is Ledger::Schema() (printed by `steward cost schema`), documented in
// docs/cost.md. Thread-safe: every method takes an internal mutex.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cost/allocation_record.h"
#include "cost/cost_model.h"
#include "cost/window.h"
#include "model/status.h"

namespace steward::store {
class SqliteDb;
class WriterLock;
}  // namespace steward::store

namespace steward::cost {

// The identity of the run whose windows a ledger holds.
struct LedgerRun {
  std::string scenario;       // Scenario name.
  std::string scenario_hash;  // Of the scenario text (and its policy files), hex.
  uint64_t seed = 0;
  std::string capacity;  // GPUs per model, "A100=64,H100=512".
  bool operator==(const LedgerRun&) const = default;
  // "scenario X (hash H), seed S, capacity C".
  std::string Describe() const;
};

struct LedgerOptions {
  // Prices the windows written through this handle. Default: CostModel::Default().
  CostModel cost_model = CostModel::Default();
  // Reported as properties.cluster in /allocation (OpenCost's default cluster id).
  std::string cluster = "cluster-one";
  // False: opening a missing file is an error (readers such as `cost report`).
  bool create_if_missing = true;
  // Open for reading only (reports, the /allocation server): the file must exist and be a
  // ledger; nothing is created or written (WriteWindow fails) and no writer lock is taken.
  bool read_only = false;
  // The run this writer writes. Recorded by the first writer of a ledger; Open refuses a writer
  // whose run differs from the recorded one (nullopt included, for a ledger bound to a run), or
  // one with a run when the ledger already holds windows of an unrecorded writer.
  std::optional<LedgerRun> run;
};

// One GPU model's capacity and frozen price in a stored window.
struct StoredModel {
  std::string gpu_model;
  double capacity_gpu_hours = 0;
  double usd_per_gpu_hour = 0;
};

// A window as stored: what readers iterate over.
struct StoredWindow {
  Window window;
  std::vector<StoredModel> models;        // Sorted by gpu_model.
  std::vector<AllocationRecord> records;  // Sorted by workload.
  // Price of `gpu_model` in this window (0 if the model is absent, which WriteWindow forbids
  // for models that have records).
  double PriceOf(std::string_view gpu_model) const;
};

class Ledger {
 public:
  // Opens (creating if allowed) the ledger at `path`: WAL journal, foreign keys on, schema
  // created or checked, writer lock taken (unless read_only). Fails with kCorrupt when the file
  // is not a Steward ledger, kFailedPrecondition when another writer holds it or it belongs to
  // another run.
  static Result<std::unique_ptr<Ledger>> Open(const std::filesystem::path& path,
                                              LedgerOptions options = {});
  ~Ledger();
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // Writes (or atomically replaces) one window. REQUIRES of the input, checked (an error
  // writes nothing): window.end > window.start; workloads non-empty and unique; gpu_share in
  // (0, 1]; hours finite and >= 0 with busy and SM-active <= allocated; every record's
  // gpu_model present in `capacity`; per model, allocated <= capacity (1e-6 GPU-h slack).
  // Refuses a window overlapping a stored one that is not identical to it.
  Status WriteWindow(const Window& window, const std::vector<AllocationRecord>& records,
                     const CapacityByModel& capacity);

  // Calls `fn` for each stored window overlapping `range`, in start order. A window that
  // breaks the invariants (header) stops the walk with kCorrupt naming it.
  Status ForEachWindow(const Window& range,
                       const std::function<void(const StoredWindow&)>& fn) const;

  // Every stored window, in start order.
  Result<std::vector<Window>> ListWindows() const;
  // The exclusive end of the latest window; nullopt when the ledger is empty. Relative query
  // windows ("1d", "today") resolve against it (docs/cost.md, "Which now").
  Result<std::optional<int64_t>> LatestEnd() const;

  const std::string& cluster() const { return cluster_; }
  // Currency of the frozen prices (the cost model's when the ledger was created).
  const std::string& currency() const { return currency_; }
  const std::filesystem::path& path() const { return path_; }
  // The run recorded in the ledger; nullopt for a ledger of writers without one.
  const std::optional<LedgerRun>& run() const { return run_; }
  bool read_only() const { return read_only_; }

  // The SQL that creates the schema (version kSchemaVersion).
  static std::string_view Schema();
  // Schema() plus the meta rows that mark the file as a ledger: a complete script an external
  // writer (or `sqlite3 FILE < script`) can run on an empty file. Open() runs the same script.
  static std::string InitScript(std::string_view cluster, std::string_view currency);
  static constexpr int kSchemaVersion = 1;

  // Test hook: the next WriteWindow calls _exit(kTestCrashExitCode) after inserting `rows`
  // allocation rows, before committing: a writer killed mid-transaction. It also shrinks the
  // page cache to 10 pages so a large transaction spills uncommitted pages into the WAL file
  // before the "crash", as a big window would in production.
  void TEST_CrashAfterRows(int rows);
  static constexpr int kTestCrashExitCode = 86;

 private:
  Ledger(std::unique_ptr<store::SqliteDb> db, std::filesystem::path path, LedgerOptions options);
  Status CheckOrCreateSchema();
  Status CheckOrRecordRun(const std::optional<LedgerRun>& writer);
  Status ForEachWindowLocked(const Window& range,
                             const std::function<void(const StoredWindow&)>& fn) const;
  Status WriteWindowLocked(const Window& window, const std::vector<AllocationRecord>& records,
                           const CapacityByModel& capacity);

  mutable std::mutex mu_;  // Guards db_: the ledger is shared by the /allocation server threads.
  std::unique_ptr<store::WriterLock> lock_;  // Held by writers; released after db_ closes.
  std::unique_ptr<store::SqliteDb> db_;
  bool read_only_ = false;
  std::optional<LedgerRun> run_;
  std::filesystem::path path_;
  CostModel cost_model_;
  std::string cluster_;
  std::string currency_;
  int crash_after_rows_ = -1;
};

// Checks one window's input without writing it (WriteWindow calls it first; readers call it on
// every stored window).
Status ValidateWindow(const Window& window, const std::vector<AllocationRecord>& records,
                      const CapacityByModel& capacity);

}  // namespace steward::cost

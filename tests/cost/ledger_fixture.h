// A small hand-written ledger shared by the cost tests. Every expected number in the tests is
// computed by hand from the records below (comments give the arithmetic).
//
// Prices: H100 2.0 $/GPU-h, L4 0.5 $/GPU-h (flat). Two one-hour windows from kT0.
//   W1 [T0, T0+1h): capacity H100 8, L4 4
//     a  team ml,  ns research, app=llm,    H100, alloc 4,   busy 3,   sm 2,   over_request 1
//     b  team ml,  ns research, app=vision, L4,   alloc 2,   busy 1,   sm 0.5
//     c  team web, ns serving,  app=llm,    H100 MIG 1g (share 1/7), alloc 1/7, busy 1/7, sm 0.1
//   W2 [T0+1h, T0+2h): capacity H100 8, L4 4
//     a  (as above)                         H100, alloc 8,   busy 8,   sm 6,   zombie 0.5
//     d  team "",  ns default, no labels,   L4,   alloc 1,   busy 0,   sm 0
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "cost/ledger.h"

namespace steward::cost::testing {

inline constexpr int64_t kT0 = kDefaultScenarioEpoch;  // 2026-01-01T00:00:00Z.
inline constexpr double kH100 = 2.0;
inline constexpr double kL4 = 0.5;

inline CostModel FixtureCostModel() {
  CostModel m;
  GpuCostSpec h;
  h.usd_per_gpu_hour = kH100;
  m.SetModel("H100", h);
  GpuCostSpec l;
  l.usd_per_gpu_hour = kL4;
  m.SetModel("L4", l);
  return m;
}

inline AllocationRecord Rec(std::string workload, std::string team, std::string ns,
                            std::map<std::string, std::string> labels, std::string model,
                            double share, double alloc, double busy, double sm,
                            std::map<std::string, double> waste = {}) {
  AllocationRecord r;
  r.workload = std::move(workload);
  r.team = std::move(team);
  r.namespace_name = std::move(ns);
  r.labels = std::move(labels);
  r.gpu_model = std::move(model);
  r.gpu_share = share;
  r.allocated_gpu_hours = alloc;
  r.busy_gpu_hours = busy;
  r.sm_active_gpu_hours = sm;
  r.waste_gpu_hours_by_cause = std::move(waste);
  return r;
}

inline const Window kW1{kT0, kT0 + 3600};
inline const Window kW2{kT0 + 3600, kT0 + 7200};
inline const CapacityByModel kCapacity{{"H100", 8}, {"L4", 4}};

inline std::vector<AllocationRecord> W1Records() {
  return {Rec("a", "ml", "research", {{"app", "llm"}}, "H100", 1, 4, 3, 2, {{"over_request", 1}}),
          Rec("b", "ml", "research", {{"app", "vision"}}, "L4", 1, 2, 1, 0.5),
          Rec("c", "web", "serving", {{"app", "llm"}}, "H100", 1.0 / 7, 1.0 / 7, 1.0 / 7, 0.1)};
}
inline std::vector<AllocationRecord> W2Records() {
  return {Rec("a", "ml", "research", {{"app", "llm"}}, "H100", 1, 8, 8, 6, {{"zombie", 0.5}}),
          Rec("d", "", "default", {}, "L4", 1, 1, 0, 0)};
}

// A fresh path under the test temp dir, removed (with WAL/SHM files) on destruction.
class TempLedgerPath {
 public:
  TempLedgerPath() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::path(::testing::TempDir()) /
            ("steward_cost_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + ".db");
    Remove();
  }
  ~TempLedgerPath() { Remove(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  void Remove() {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal", ".lock"}) {
      std::filesystem::remove(path_.string() + suffix, ec);
    }
  }
  std::filesystem::path path_;
};

inline std::unique_ptr<Ledger> OpenFixtureLedger(const std::filesystem::path& path) {
  LedgerOptions options;
  options.cost_model = FixtureCostModel();
  auto ledger = Ledger::Open(path, options);
  EXPECT_TRUE(ledger.ok()) << ledger.status().ToString();
  if (!ledger.ok()) return nullptr;
  EXPECT_TRUE((*ledger)->WriteWindow(kW1, W1Records(), kCapacity).ok());
  EXPECT_TRUE((*ledger)->WriteWindow(kW2, W2Records(), kCapacity).ok());
  return std::move(ledger).value();
}

}  // namespace steward::cost::testing

// Ledger write and query cost: a 30-day twin-sized ledger (hourly windows, 200 workloads each)
// written through Ledger::WriteWindow, then OpenCost-style queries over 1 day vs 30 days.
// Prints times and ratios measured in this run (no Google Benchmark harness needed).
// Usage: cost_ledger [DIR]   (the ledger is written to DIR, default /tmp, and removed)
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cost/allocation_query.h"
#include "cost/ledger.h"

using namespace steward::cost;

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

std::vector<AllocationRecord> Records(int window, int n) {
  std::vector<AllocationRecord> out;
  out.reserve(n);
  for (int i = 0; i < n; ++i) {
    AllocationRecord r;
    r.workload = "wl-" + std::to_string(i);
    r.team = "team-" + std::to_string(i % 12);
    r.namespace_name = "ns-" + std::to_string(i % 30);
    r.labels = {{"app", "app-" + std::to_string(i % 50)}, {"tier", i % 3 ? "dev" : "prod"}};
    r.gpu_model = i % 4 ? "H100" : "A100";
    r.gpu_share = i % 10 == 0 ? 1.0 / 7 : 1.0;
    r.allocated_gpu_hours = i % 10 == 0 ? 1.0 / 7 : 4.0;
    r.busy_gpu_hours = r.allocated_gpu_hours * 0.7;
    r.sm_active_gpu_hours = r.allocated_gpu_hours * (0.2 + 0.01 * ((i + window) % 30));
    if (i % 5 == 0) r.waste_gpu_hours_by_cause["zombie"] = r.allocated_gpu_hours * 0.5;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::filesystem::path dir = argc > 1 ? argv[1] : "/tmp";
  const std::filesystem::path path =
      dir / ("steward_cost_bench_" + std::to_string(getpid()) + ".db");
  constexpr int kWindows = 30 * 24;
  constexpr int kWorkloads = 200;
  const CapacityByModel capacity = {{"H100", 1024}, {"A100", 512}};
  auto opened = Ledger::Open(path);
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.status().ToString().c_str());
    return 1;
  }
  auto& ledger = *opened;
  auto t0 = std::chrono::steady_clock::now();
  for (int w = 0; w < kWindows; ++w) {
    const Window win{kDefaultScenarioEpoch + w * 3600LL, kDefaultScenarioEpoch + (w + 1) * 3600LL};
    steward::Status s = ledger->WriteWindow(win, Records(w, kWorkloads), capacity);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
  }
  const double write_s = Seconds(t0);
  const double records = static_cast<double>(kWindows) * kWorkloads;
  std::printf("write  %d windows x %d records: %.2f s, %.0f records/s, %.2f ms/window\n", kWindows,
              kWorkloads, write_s, records / write_s, 1e3 * write_s / kWindows);

  // Idempotent rewrite of one window (delete + insert in one transaction).
  t0 = std::chrono::steady_clock::now();
  constexpr int kRewrites = 50;
  for (int i = 0; i < kRewrites; ++i) {
    const Window win{kDefaultScenarioEpoch + 100 * 3600LL, kDefaultScenarioEpoch + 101 * 3600LL};
    (void)ledger->WriteWindow(win, Records(100, kWorkloads), capacity);
  }
  std::printf("rewrite one window (%d records): %.2f ms\n", kWorkloads,
              1e3 * Seconds(t0) / kRewrites);

  const int64_t now = kDefaultScenarioEpoch + kWindows * 3600LL;
  auto time_query = [&](const char* window, const char* aggregate, int reps) {
    AllocationQuery q;
    q.window = window;
    q.aggregate = *ParseAggregate(aggregate);
    q.share_idle = IdleSharing::kWeighted;
    auto t = std::chrono::steady_clock::now();
    size_t rows = 0;
    for (int i = 0; i < reps; ++i) {
      auto r = QueryAllocations(*ledger, q, now);
      if (!r.ok()) {
        std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
        return 0.0;
      }
      rows = r->sets.front().rows.size();
    }
    const double ms = 1e3 * Seconds(t) / reps;
    std::printf("query  window=%-4s aggregate=%-10s %8.2f ms (%zu rows)\n", window, aggregate, ms,
                rows);
    return ms;
  };
  {
    // The SQLite read alone (ForEachWindow over 30 days), to split query time.
    auto t = std::chrono::steady_clock::now();
    size_t n = 0;
    (void)ledger->ForEachWindow({kDefaultScenarioEpoch, now},
                                [&](const StoredWindow& w) { n += w.records.size(); });
    std::printf("read   30d ForEachWindow only: %.2f ms (%zu records)\n", 1e3 * Seconds(t), n);
  }
  const double day = time_query("1d", "team", 10);
  const double month = time_query("30d", "team", 3);
  time_query("30d", "label:app", 3);
  std::printf("ratio  30d / 1d query time: %.1fx for 30x the data (indexed window range)\n",
              month / day);
  std::error_code ec;
  std::printf("ledger size: %.1f MB\n", std::filesystem::file_size(path, ec) / 1e6);
  ledger.reset();  // Close (checkpoint the WAL) before removing the files.
  for (const char* suffix : {"", "-wal", "-shm"})
    std::filesystem::remove(path.string() + suffix, ec);
  return 0;
}

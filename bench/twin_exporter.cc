// The twin as a dcgm-exporter at 10,240 GPUs: cost of one snapshot (TwinExporter::Update, the
// O(GPUs + workloads + pods) pass) and of rendering the /metrics page, on the built-in default
// scenario advanced to 12 simulated hours. Prints times and rates measured in this run.
// Usage: twin_exporter [ITERATIONS]   (default 20)
#include "telemetry/twin_exporter.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "telemetry/exposition.h"
#include "twin/scenario.h"
#include "twin/twin.h"

using namespace steward;

namespace {
double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}
}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20;
  auto t = twin::Twin::Create(twin::DefaultScenario());
  if (!t.ok()) {
    std::fprintf(stderr, "%s\n", t.status().message().c_str());
    return 1;
  }
  auto start = std::chrono::steady_clock::now();
  (*t)->RunUntil(kSimStart + Hours(12));
  const double run_s = Seconds(start);
  telemetry::TwinExporter exporter((*t)->cluster());
  exporter.Update(**t);  // Warm-up (allocates the pod-label strings once).

  start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) exporter.Update(**t);
  const double update_s = Seconds(start) / iterations;

  std::string page;
  start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) {
    page.clear();
    exporter.AppendTo(page);
  }
  const double render_s = Seconds(start) / iterations;

  start = std::chrono::steady_clock::now();
  const telemetry::Scrape scrape = telemetry::ParseExposition(page);
  const double parse_s = Seconds(start);

  const double gpus = static_cast<double>(exporter.records().size());
  std::printf("twin to 12 h: %.3f s (%lld events), %zu workloads\n", run_s,
              static_cast<long long>((*t)->events_processed()), (*t)->runs().size());
  std::printf("Update:  %8.3f ms per snapshot, %10.0f GPU records/s\n", update_s * 1e3,
              gpus / update_s);
  std::printf("Render:  %8.3f ms per page (%.1f MB, %zu samples), %10.0f GPU records/s\n",
              render_s * 1e3, page.size() / 1e6, scrape.samples.size(), gpus / render_s);
  std::printf("Scrape total (Update + Render): %.3f ms -> %.0f GPU records/s\n",
              (update_s + render_s) * 1e3, gpus / (update_s + render_s));
  std::printf("(parse of the page for comparison: %.3f ms, %.0f samples/s, %zu errors)\n",
              parse_s * 1e3, scrape.samples.size() / parse_s, scrape.errors.size());
  return scrape.ok() ? 0 : 1;
}

// Twin throughput: the built-in 10,240-GPU scenario for 30 simulated days (issue 3's target:
// <= 60 s on one core), once per placement policy, printing events/s, wall seconds per
// simulated day and each policy's cost relative to the first (first-fit) in the same run.
// The scenario runs as `steward twin run` runs it: faults on, with its remediation loop
// (in-memory store).
//   build/twin_bench [days]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "health/remediation/twin_remediation.h"
#include "twin/twin.h"

int main(int argc, char** argv) {
  using steward::twin::Twin;
  const double days = argc > 1 ? std::atof(argv[1]) : 30;
  double baseline = 0;
  std::printf("%-10s %8s %12s %10s %12s %14s %8s\n", "placement", "days", "events", "wall_s",
              "events/s", "wall_s/sim_day", "ratio");
  for (const char* placement : {"first-fit", "binpack"}) {
    steward::twin::Scenario s = steward::twin::DefaultScenario();
    s.policies.placement = placement;
    steward::twin::TwinOptions o;
    o.days = days;
    auto t = Twin::Create(std::move(s), o);
    if (!t.ok()) {
      std::fprintf(stderr, "%s\n", t.status().message().c_str());
      return 1;
    }
    auto remediation = steward::health::AttachRemediation(**t);
    if (!remediation.ok()) {
      std::fprintf(stderr, "%s\n", remediation.status().message().c_str());
      return 1;
    }
    const auto start = std::chrono::steady_clock::now();
    const steward::twin::Report r = (*t)->Run();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (baseline == 0) baseline = wall;
    std::printf(
        "%-10s %8.0f %12lld %10.3f %12.0f %14.4f %8.2f   (alloc %.1f%%, SM-active %.1f%%, %d "
        "XIDs, %d repairs)\n",
        placement, days, static_cast<long long>(r.events), wall, r.events / wall, wall / days,
        wall / baseline, 100 * r.allocation_rate, 100 * r.sm_active_utilization,
        r.faults.xid_events, r.faults.repairs);
  }
  return 0;
}

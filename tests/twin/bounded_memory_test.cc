// Issue 22: the twin's memory is bounded by what is alive, not by everything that ever ran. A
// long run of the default cluster must peak within a fixed bound of a short one. Measured in
// process, as the heap in use (glibc's mallinfo2) sampled every simulated hour: no wall clock.
#include <gtest/gtest.h>

#include <algorithm>

#include "twin/scenario.h"
#include "twin/twin.h"
#include "twin/wait_distribution.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace steward::twin {
namespace {

#if defined(__GLIBC__)
int64_t HeapInUse() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<int64_t>(m.uordblks + m.hblkhd);
}
#endif

struct Peak {
  int64_t heap_growth = 0;  // Peak heap in use minus the heap after Create, bytes.
  size_t runs_held = 0;     // Runs held at the end ...
  size_t runs_alive = 0;    // ... of which not finished.
  int64_t submitted = 0;
};

Peak RunDefault(double days) {
  Peak p;
#if defined(__GLIBC__)
  TwinOptions o;
  o.days = days;
  o.memory_limit_bytes = -1;
  auto t = Twin::Create(DefaultScenario(), o);
  EXPECT_TRUE(t.ok());
  if (!t.ok()) return p;
  Twin& tw = **t;
  const int64_t base = HeapInUse();
  int64_t peak = base;
  for (SimTime at = kSimStart + Hours(1); at < tw.horizon(); at = at + Hours(1)) {
    tw.RunUntil(at);
    peak = std::max(peak, HeapInUse());
  }
  tw.RunUntil(tw.horizon());
  const Report r = tw.BuildReport();
  peak = std::max(peak, HeapInUse());
  p.heap_growth = peak - base;
  p.runs_held = tw.runs().held();
  for (const WorkloadRun& run : tw.runs()) p.runs_alive += run.state != RunState::kDone;
  p.submitted = r.workloads_submitted;
#endif
  return p;
}

TEST(BoundedMemoryTest, LongRunPeaksWithinAFixedBoundOfAShortOne) {
#if !defined(__GLIBC__)
  GTEST_SKIP() << "needs glibc's mallinfo2";
#endif
  const Peak short_run = RunDefault(3);
  const Peak long_run = RunDefault(30);
  // Ten times the work ...
  EXPECT_GT(long_run.submitted, 8 * short_run.submitted);
  // ... in the short run's memory plus a fixed bound: what the report's accumulators may still
  // add before they stop growing (the default scenario's 16 wait distributions -- 3 tiers, 6
  // teams, up to 7 pod sizes -- each capped at kDefaultMaxBytes plus a batch of up to as much
  // again), and 27 days of
  // hourly series points. Before issue 22 the 30-day run held every finished workload: about
  // 9 MB more per simulated day.
  const int64_t accumulators =
      16 * static_cast<int64_t>(WaitDistribution::kDefaultMaxBytes * 2 +
                                sizeof(int64_t) * WaitDistribution::kBatch) +
      27 * 24 * 256;
  EXPECT_LE(long_run.heap_growth, short_run.heap_growth + accumulators)
      << "3 days: " << short_run.heap_growth << " bytes, 30 days: " << long_run.heap_growth;
  // Finished runs are released beyond the kept window (TwinOptions::finished_runs_kept).
  EXPECT_LE(long_run.runs_held, long_run.runs_alive + 1024);
}

}  // namespace
}  // namespace steward::twin

#include "govern/pods_ready_tracker.h"

#include <gtest/gtest.h>

namespace steward::govern {
namespace {

SimTime At(int64_t s) { return kSimStart + Seconds(s); }

TEST(PodsReadyTrackerTest, BackoffDoublesFromBaseUpToMax) {
  PodsReadyTracker t;
  const int64_t want[] = {60, 120, 240, 480, 960, 1920, 3600, 3600};
  for (int n = 1; n <= 8; ++n) EXPECT_EQ(t.Backoff(n), Seconds(want[n - 1])) << n;
}

TEST(PodsReadyTrackerTest, TimeoutEvictsAndRequeuesWithBackoff) {
  PodsReadyTracker t;  // v1beta1 defaults: 5 min timeout, blockAdmission on.
  t.OnAdmitted(1, At(0));
  t.OnAdmitted(2, At(10));
  EXPECT_TRUE(t.AdmissionBlocked());
  EXPECT_EQ(t.NextDeadline(), At(300));
  t.OnPodsReady(2);
  EXPECT_TRUE(t.Expire(At(299)).empty());
  auto ev = t.Expire(At(300));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].workload_id, 1);
  EXPECT_EQ(ev[0].requeue_count, 1);
  EXPECT_EQ(ev[0].requeue_at, At(360));  // 300 + 60.
  EXPECT_FALSE(t.AdmissionBlocked());
  EXPECT_EQ(t.NextDeadline(), SimTime::Never());
  // Re-admitted at 360, times out again at 660: second backoff is 120 s.
  t.OnAdmitted(1, At(360));
  ev = t.Expire(At(700));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].requeue_count, 2);
  EXPECT_EQ(ev[0].requeue_at, At(700 + 120));
}

TEST(PodsReadyTrackerTest, RequeueLimitDeactivates) {
  PodsReadyOptions o;
  o.backoff_limit_count = 1;
  o.timeout = Seconds(10);
  PodsReadyTracker t(o);
  t.OnAdmitted(7, At(0));
  auto ev = t.Expire(At(10));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_FALSE(ev[0].deactivated);  // count 0 + 1 <= 1.
  t.OnAdmitted(7, At(100));
  ev = t.Expire(At(110));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_TRUE(ev[0].deactivated);  // count 1 + 1 > 1.
  EXPECT_TRUE(ev[0].requeue_at.is_never());
}

TEST(PodsReadyTrackerTest, StaleDeadlinesAreIgnored) {
  PodsReadyTracker t;
  t.OnAdmitted(1, At(0));
  t.OnRemoved(1);
  t.OnAdmitted(1, At(100));  // New deadline 400; the 300 entry is stale.
  EXPECT_TRUE(t.Expire(At(350)).empty());
  EXPECT_EQ(t.Expire(At(400)).size(), 1u);
}

}  // namespace
}  // namespace steward::govern

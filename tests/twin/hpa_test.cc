// The autoscaler against hand-computed HPA steps (twin/hpa.h: horizontal.go's rules with the
// upstream defaults).
#include "twin/hpa.h"

#include <gtest/gtest.h>

namespace steward::twin {
namespace {

SimTime At(int seconds) { return kSimStart + Seconds(seconds); }

// capacity 10 rps, target 0.6: 6 rps per replica is on target.
constexpr double kCapacity = 10;

TEST(HpaTest, ScaleUpIsLimitedToMaxOfFourPodsAndDoublingPerPeriod) {
  Hpa hpa(AutoscalerSpec{}, 1, 100, 2);
  // 120 rps on 2 ready: ratio (60 / 6) = 10, recommendation ceil(10 x 2) = 20;
  // limit max(2 + 4, 2 x 2) = 6.
  EXPECT_EQ(hpa.Sync(At(15), 120, kCapacity, 2), 6);
  // Next period (the scale-up at 15 s left the 15 s window): start 6, limit max(10, 12) = 12.
  EXPECT_EQ(hpa.Sync(At(30), 120, kCapacity, 2), 12);
  // 6 ready: ratio (20 / 6), recommendation 20; limit max(16, 24): 20.
  EXPECT_EQ(hpa.Sync(At(45), 120, kCapacity, 6), 20);
  // On target: 20.
  EXPECT_EQ(hpa.Sync(At(60), 120, kCapacity, 20), 20);
}

TEST(HpaTest, TwoSyncsInsideOnePeriodShareItsLimit) {
  AutoscalerSpec spec;
  spec.sync_seconds = 5;
  Hpa hpa(spec, 1, 100, 2);
  EXPECT_EQ(hpa.Sync(At(5), 120, kCapacity, 2), 6);  // +4.
  // 5 s later the +4 is still inside the 15 s window: start 2, limit 6.
  EXPECT_EQ(hpa.Sync(At(10), 120, kCapacity, 2), 6);
  // At 20 s (15 s after the scale-up) it has left: start 6, limit 12.
  EXPECT_EQ(hpa.Sync(At(20), 120, kCapacity, 2), 12);
}

TEST(HpaTest, InsideTheToleranceNothingChanges) {
  Hpa hpa(AutoscalerSpec{}, 1, 100, 20);
  // 130 rps on 20: ratio 6.5 / 6 = 1.083, inside 0.1.
  EXPECT_EQ(hpa.Sync(At(15), 130, kCapacity, 20), 20);
  // 135 rps: ratio 1.125, recommendation ceil(1.125 x 20) = ceil(22.5) = 23.
  EXPECT_EQ(hpa.Sync(At(30), 135, kCapacity, 20), 23);
}

TEST(HpaTest, ScaleDownWaitsForTheStabilizationWindow) {
  Hpa hpa(AutoscalerSpec{}, 1, 100, 10);
  EXPECT_EQ(hpa.Sync(At(0), 60, kCapacity, 10), 10);  // On target: recommendation 10 at 0 s.
  // Half the load: recommendation 5, but 10 was recommended inside the last 300 s.
  for (int t = 15; t < 300; t += 15) EXPECT_EQ(hpa.Sync(At(t), 30, kCapacity, 10), 10) << t;
  // At 300 s the recommendation of 0 s leaves the window (not after the cutoff).
  EXPECT_EQ(hpa.Sync(At(300), 30, kCapacity, 10), 5);
}

TEST(HpaTest, BoundsAndNoMetric) {
  Hpa hpa(AutoscalerSpec{}, 3, 8, 5);
  EXPECT_EQ(hpa.Sync(At(15), 10000, kCapacity, 5), 8);  // max_replicas.
  Hpa idle(AutoscalerSpec{}, 3, 8, 5);
  EXPECT_EQ(idle.Sync(At(300), 0, kCapacity, 5), 3);  // No stabilization history: min.
  Hpa starting(AutoscalerSpec{}, 1, 50, 4);
  EXPECT_EQ(starting.Sync(At(15), 600, kCapacity, 0), 4);  // No ready replica: no metric.
  EXPECT_EQ(starting.Wanted(600, kCapacity), 50);          // ceil(600 / 6) = 100, capped.
  EXPECT_EQ(starting.Wanted(120, kCapacity), 20);          // Exactly 20, not 21.
}

}  // namespace
}  // namespace steward::twin

// tidal.gpu_hours_reclaimed: reclaimed GPUs count from the reclaim until lent again or the end.
#include "tidal/reclaimed_capacity.h"

#include <gtest/gtest.h>

namespace steward::tidal {
namespace {

TEST(ReclaimedCapacityTest, CountsEachReclaimedGpuUntilItIsLentAgain) {
  ReclaimedCapacity r;
  const SimTime t0 = kSimStart + Hours(30);
  EXPECT_EQ(r.GpuHours(t0), 0);
  r.Lend(64, kSimStart + Hours(22));  // A first lend re-lends nothing: no GPU was reclaimed yet.
  EXPECT_EQ(r.GpuHours(t0), 0);
  r.Reclaim(64, t0);             // 06:00 of day 1: all 64 back.
  r.Lend(16, t0 + Hours(10));    // 16 lent again: 48 still count.
  r.Reclaim(8, t0 + Hours(12));  // 8 of the 16 back: 56 count.
  r.Lend(100, t0 + Hours(14));   // More than is outstanding: the count ends at 0.
  // 64 x 10 h + 48 x 2 h + 56 x 2 h = 640 + 96 + 112.
  EXPECT_DOUBLE_EQ(r.GpuHours(t0 + Hours(20)), 848);
  EXPECT_EQ(r.outstanding(), 0);
}

TEST(ReclaimedCapacityTest, GpusNotLentAgainCountUpToTheEnd) {
  ReclaimedCapacity r;
  r.Reclaim(24, kSimStart + Hours(6));
  // Half an hour later, and at the end of a 7-day run.
  EXPECT_DOUBLE_EQ(r.GpuHours(kSimStart + Hours(6) + Minutes(30)), 12);
  EXPECT_DOUBLE_EQ(r.GpuHours(kSimStart + Days(7)), 24 * (168 - 6));
  EXPECT_EQ(r.outstanding(), 24);
}

}  // namespace
}  // namespace steward::tidal

#include "cost/waste_cause.h"

#include <gtest/gtest.h>

namespace steward::cost {
namespace {

TEST(WasteCauseTest, NamesRoundTripAndSplitHolderFromClusterCauses) {
  EXPECT_EQ(WasteCauseName(WasteCause::kDataloaderStall), "dataloader_stall");
  for (WasteCause c : kAllWasteCauses) {
    EXPECT_EQ(ParseWasteCause(WasteCauseName(c)), c);
    EXPECT_FALSE(WasteCauseMeaning(c).empty());
  }
  EXPECT_FALSE(ParseWasteCause("data_stall").has_value());  // The twin's field, not a cause.
  EXPECT_TRUE(IsHolderCause(WasteCause::kZombie));
  EXPECT_FALSE(IsHolderCause(WasteCause::kFragmentation));
  EXPECT_FALSE(IsHolderCause(WasteCause::kQueueing));
}

TEST(WasteCauseTest, LowEfficiencyOfASteadyRate) {
  // 10 GPU-hours computing at SM 0.2 (< 0.3): the idle 8 are waste; at 0.3 or above, none.
  EXPECT_DOUBLE_EQ(LowEfficiencyGpuHours(10, 2, 0.3), 8);
  EXPECT_DOUBLE_EQ(LowEfficiencyGpuHours(10, 5, 0.3), 0);
  // A rate exactly at the threshold, summed with rounding, is not below it.
  double computing = 0, sm = 0;
  for (int i = 0; i < 1000; ++i) {
    computing += 0.1;
    sm += 0.1 * 0.3;
  }
  EXPECT_DOUBLE_EQ(LowEfficiencyGpuHours(computing, sm, 0.3), 0);
  EXPECT_DOUBLE_EQ(LowEfficiencyGpuHours(1e-12, 0, 0.3), 0);  // Leftover of a subtraction.
}

}  // namespace
}  // namespace steward::cost

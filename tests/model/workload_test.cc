#include "model/workload.h"

#include <gtest/gtest.h>

namespace steward::model {
namespace {

TEST(WorkloadTest, RatesAccountForOverRequestAndStalls) {
  UsageProfile u;
  u.used_gpu_fraction = 0.5;
  u.busy = 0.8;
  u.sm_active = 0.4;
  u.stall_period = Minutes(10);
  u.stall_fraction = 0.25;
  UsageRates r = ActiveRates(u);
  EXPECT_DOUBLE_EQ(r.busy, 0.5 * 0.8 * 0.75);
  EXPECT_DOUBLE_EQ(r.sm, 0.5 * 0.4 * 0.75);
  EXPECT_DOUBLE_EQ(IdleRates(u).sm, 0.0);
}

TEST(WorkloadTest, GangCountsPodsAcrossSets) {
  Workload w;
  w.kind = WorkloadKind::kTraining;
  w.pod_sets = {{"launcher", 1, 8}, {"worker", 3, 8}};
  EXPECT_EQ(w.TotalPods(), 4);
  EXPECT_EQ(w.TotalGpus(), 32);
  EXPECT_TRUE(w.IsGang());
}

TEST(WorkloadTest, ParsesNames) {
  WorkloadKind k;
  EXPECT_TRUE(ParseKind("ci", &k));
  EXPECT_EQ(k, WorkloadKind::kBatch);
  EXPECT_FALSE(ParseKind("daemon", &k));
  Tier t;
  EXPECT_TRUE(ParseTier("production", &t));
  EXPECT_EQ(TierName(t), "production");
}

}  // namespace
}  // namespace steward::model

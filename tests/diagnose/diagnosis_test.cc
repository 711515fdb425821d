#include "diagnose/diagnosis.h"

#include <gtest/gtest.h>

namespace steward::diagnose {
namespace {

UsageInput Workload(const std::string& name, const std::string& team) {
  UsageInput u;
  u.workload = name;
  u.team = team;
  return u;
}

TEST(DiagnosisTest, EachCauseIsNamedWithItsHours) {
  // A notebook: 10 GPU-h held, 1 of them active at SM 0.2, 9 idle (zombie).
  UsageInput nb = Workload("research/nb", "research");
  nb.allocated = 10;
  nb.busy = 0.5;
  nb.sm_active = 0.2;
  nb.zombie = 9;
  // A fine-tune: 80 GPU-h, half its GPUs never driven (40), 8 stalled, 32 driven at SM 0.5.
  UsageInput ft = Workload("ft/job", "finetuning");
  ft.allocated = 80;
  ft.over_request = 40;
  ft.data_stall = 8;
  ft.sm_active = 16;
  ft.busy = 30;
  ClusterInput c{200, 12, 20, 2.0};
  Diagnosis d = Diagnose({nb, ft}, c);
  EXPECT_DOUBLE_EQ(d.allocation_rate, 90.0 / 200);
  EXPECT_DOUBLE_EQ(d.sm_active_utilization, 16.2 / 200);
  EXPECT_DOUBLE_EQ(d.waste_gpu_hours_by_cause.at("zombie"), 9);
  EXPECT_DOUBLE_EQ(d.waste_gpu_hours_by_cause.at("over_request"), 40);
  EXPECT_DOUBLE_EQ(d.waste_gpu_hours_by_cause.at("dataloader_stall"), 8);
  EXPECT_DOUBLE_EQ(d.waste_gpu_hours_by_cause.at("fragmentation"), 12);
  EXPECT_DOUBLE_EQ(d.waste_gpu_hours_by_cause.at("queueing"), 20);
  // The notebook's 1 driven hour ran at SM 0.2 < 0.3: 0.8 h of low efficiency. The fine-tune's
  // 32 driven hours ran at SM 0.5: efficient enough, no low-efficiency waste.
  EXPECT_NEAR(d.waste_gpu_hours_by_cause.at("low_efficiency"), 0.8, 1e-12);
  EXPECT_DOUBLE_EQ(d.waste_usd_by_cause.at("over_request"), 80);
  ASSERT_EQ(d.top_teams.size(), 2u);
  EXPECT_EQ(d.top_teams[0].name, "finetuning");
  EXPECT_EQ(d.top_teams[0].top_cause, "over_request");
  EXPECT_EQ(d.top_workloads[1].name, "research/nb");
  EXPECT_EQ(d.top_workloads[1].top_cause, "zombie");
  // Recommendations for causes >= 2% of 90 allocated GPU-h (1.8 h), largest first.
  ASSERT_FALSE(d.recommendations.empty());
  EXPECT_EQ(d.recommendations[0].cause, "over_request");
  for (const auto& r : d.recommendations) {
    EXPECT_GE(r.gpu_hours, 1.8);
    EXPECT_FALSE(r.action.empty());
  }
}

TEST(DiagnosisTest, EfficientClusterHasNothingToRecommend) {
  UsageInput u = Workload("t/pretrain", "pretraining");
  u.allocated = 100;
  u.busy = 95;
  u.sm_active = 70;
  Diagnosis d = Diagnose({u}, ClusterInput{110, 0, 0, 1});
  EXPECT_TRUE(d.waste_gpu_hours_by_cause.empty());
  EXPECT_TRUE(d.recommendations.empty());
}

TEST(DiagnosisTest, ThresholdIsConfigurable) {
  UsageInput u = Workload("t/x", "t");
  u.allocated = 10;
  u.sm_active = 4;  // SM share 0.4 of driven hours.
  Thresholds strict;
  strict.low_sm_efficiency = 0.5;
  EXPECT_EQ(
      Diagnose({u}, ClusterInput{10, 0, 0, 1}).waste_gpu_hours_by_cause.count("low_efficiency"),
      0u);
  EXPECT_DOUBLE_EQ(Diagnose({u}, ClusterInput{10, 0, 0, 1}, strict)
                       .waste_gpu_hours_by_cause.at("low_efficiency"),
                   6);
}

}  // namespace
}  // namespace steward::diagnose

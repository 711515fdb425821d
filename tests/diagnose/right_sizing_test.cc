// Right-sizing from hand-built usage histories: every recommendation and GPU-hour below is
// computed by hand from the histogram it is built on. (From crafted DCGM series through the
// classifier: classifier_test.cc.)
#include "diagnose/right_sizing.h"

#include <gtest/gtest.h>

namespace steward::diagnose {
namespace {

RequestHistory History(const std::string& cls, int gpus_per_pod) {
  RequestHistory h;
  h.workload = cls + "-w";
  h.workload_class = cls;
  h.gpus_per_pod = gpus_per_pod;
  return h;
}

const RightSizing* Find(const std::vector<RightSizing>& rows, const std::string& cls,
                        int gpus = -1) {
  for (const auto& r : rows)
    if (r.workload_class == cls && (gpus < 0 || r.gpus_per_pod == gpus)) return &r;
  return nullptr;
}

TEST(RightSizingTest, RecommendsTheQuantileOfGpusDriven) {
  // 8-GPU pods: 10 pod-hours driving 4 GPUs, 0.5 pod-hours driving all 8. At p95 the
  // cumulative share reaches 10 / 10.5 = 0.952 at 4 GPUs: request 4, freeing 4 x 10.5 = 42.
  RequestHistory h = History("ml/lora", 8);
  h.AddPodHours(4, 10);
  h.AddPodHours(8, 0.5);
  h.AddDrivenGpuHours(0.4, 44);
  auto rows = RightSize({h});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].driven_gpus, 4);
  EXPECT_EQ(rows[0].recommended_gpus_per_pod, 4);
  EXPECT_DOUBLE_EQ(rows[0].pod_hours, 10.5);
  EXPECT_DOUBLE_EQ(rows[0].gpu_hours_freed, 42);
  EXPECT_EQ(rows[0].mig_sevenths, 0);  // More than one GPU: no sharing suggestion.
  EXPECT_NE(rows[0].recommendation.find("request 4 GPUs per pod instead of 8"), std::string::npos)
      << rows[0].recommendation;

  // At p99 the 0.5 pod-hours on 8 GPUs count: keep 8.
  RightSizingOptions p99;
  p99.quantile = 0.99;
  rows = RightSize({h}, p99);
  EXPECT_EQ(rows[0].recommended_gpus_per_pod, 8);
  EXPECT_EQ(rows[0].gpu_hours_freed, 0);
  EXPECT_NE(rows[0].recommendation.find("keep 8"), std::string::npos);
}

TEST(RightSizingTest, ClassesPoolTheirWorkloadsPerPodSize) {
  // Two workloads of one class: 3 pod-hours driving 2 of 8, and 1 pod-hour driving 8; a third
  // workload of the class asks for 1 GPU and gets its own row.
  RequestHistory a = History("ml/sft", 8), b = History("ml/sft", 8), c = History("ml/sft", 1);
  a.AddPodHours(2, 3);
  b.AddPodHours(8, 1);
  c.AddPodHours(1, 2);
  auto rows = RightSize({a, b, c});
  const RightSizing* eight = Find(rows, "ml/sft", 8);
  ASSERT_NE(eight, nullptr);
  EXPECT_EQ(eight->workloads, 2);
  EXPECT_DOUBLE_EQ(eight->pod_hours, 4);
  EXPECT_EQ(eight->recommended_gpus_per_pod, 8);  // 3/4 = 0.75 < 0.95 at 2 GPUs.
  ASSERT_NE(Find(rows, "ml/sft", 1), nullptr);
  EXPECT_EQ(Find(rows, "ml/sft", 1)->workloads, 1);
}

TEST(RightSizingTest, SuggestsTheSmallestMigSliceThatCarriesTheSmActive) {
  // 1-GPU pods: 19 driven GPU-hours at SM-active 0.2 and 1 at 0.6. p95 falls in the
  // [0.20, 0.25) bin: 0.25 of the SMs, 7 x 0.25 = 1.75 -> a 2-slice instance (2g.20gb),
  // freeing 5/7 of the 20 pod-hours.
  RequestHistory h = History("research/notebook", 1);
  h.AddPodHours(1, 20);
  h.AddDrivenGpuHours(0.2, 19);
  h.AddDrivenGpuHours(0.6, 1);
  auto rows = RightSize({h});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].sm_active, 0.25);
  EXPECT_EQ(rows[0].mig_sevenths, 2);
  EXPECT_EQ(MigProfile80Gb(rows[0].mig_sevenths), "2g.20gb");
  EXPECT_NEAR(rows[0].gpu_hours_freed_by_sharing, 20 * 5.0 / 7, 1e-12);
  EXPECT_EQ(rows[0].gpu_hours_freed, 0);

  // 2 GPU-hours at 0.6 push p95 into the [0.60, 0.65) bin: over share_below, no suggestion.
  h.AddDrivenGpuHours(0.6, 1);
  rows = RightSize({h});
  EXPECT_DOUBLE_EQ(rows[0].sm_active, 0.65);
  EXPECT_EQ(rows[0].mig_sevenths, 0);
  EXPECT_EQ(rows[0].gpu_hours_freed_by_sharing, 0);
}

TEST(RightSizingTest, MigSlicesRoundUpToProfilesThatExist) {
  // SM-active 0.60..0.65 would need 4.55 slices: there is no 5g or 6g, so 7g, i.e. no sharing,
  // even with share_below raised; 0.50..0.55 needs 3.85 -> 4g.40gb.
  RightSizingOptions o;
  o.share_below = 0.9;
  RequestHistory h = History("x", 1);
  h.AddPodHours(1, 7);
  h.AddDrivenGpuHours(0.61, 7);
  EXPECT_EQ(RightSize({h}, o)[0].mig_sevenths, 0);
  RequestHistory g = History("y", 1);
  g.AddPodHours(1, 7);
  g.AddDrivenGpuHours(0.51, 7);
  EXPECT_EQ(RightSize({g}, o)[0].mig_sevenths, 4);
  EXPECT_NEAR(RightSize({g}, o)[0].gpu_hours_freed_by_sharing, 3, 1e-12);
}

TEST(RightSizingTest, AnIdleHolderIsSentToReclaim) {
  RequestHistory h = History("research/forgotten", 2);
  h.AddPodHours(0, 30);
  h.AddPodHours(2, 1);  // 1/31 of the time busy: p95 drives 0.
  auto rows = RightSize({h});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].driven_gpus, 0);
  EXPECT_EQ(rows[0].recommended_gpus_per_pod, 1);
  EXPECT_DOUBLE_EQ(rows[0].gpu_hours_freed, 31);
  EXPECT_NE(rows[0].recommendation.find("reclaim"), std::string::npos);
}

TEST(RightSizingTest, LargestSavingsFirstAndShortHistoryLeftOut) {
  RequestHistory big = History("a", 8), small = History("b", 8), tiny = History("c", 8);
  big.AddPodHours(2, 10);    // Frees 6 x 10 = 60.
  small.AddPodHours(4, 10);  // Frees 4 x 10 = 40.
  tiny.AddPodHours(1, 0.5);  // Under min_pod_hours (1).
  auto rows = RightSize({small, tiny, big});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].workload_class, "a");
  EXPECT_EQ(rows[1].workload_class, "b");
  const nlohmann::json j = RightSizingJson(rows);
  EXPECT_EQ(j[0]["recommended_gpus_per_pod"], 2);
  EXPECT_EQ(j[0]["gpu_hours_freed"], 60.0);
  EXPECT_NE(RightSizingText(rows, 0.95).find("request 2 GPUs per pod instead of 8"),
            std::string::npos);
}

}  // namespace
}  // namespace steward::diagnose

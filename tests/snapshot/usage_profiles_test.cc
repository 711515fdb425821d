// FitUsageProfiles (snapshot/usage_profiles.h): DCGM readings per GPU become each workload's
// usage profile; the figures are worked out by hand.
#include "snapshot/usage_profiles.h"

#include <gtest/gtest.h>

namespace steward::snapshot {
namespace {

GpuReading Gpu(const std::string& pod, int index, double util, std::optional<double> sm,
               double util_recent, std::optional<double> sm_recent) {
  GpuReading g;
  g.namespace_name = "ml";
  g.pod = pod;
  g.gpu = "node-1/" + std::to_string(index);
  g.util_mean = util;
  g.sm_mean = sm;
  g.util_recent = util_recent;
  g.sm_recent = sm_recent;
  return g;
}

SnapshotWorkload Running(const std::string& name, std::vector<std::string> pods) {
  SnapshotWorkload w;
  w.name = name;
  w.namespace_name = "ml";
  w.pod_names = std::move(pods);
  w.running = true;
  return w;
}

TEST(UsageProfilesTest, OverRequestBusyAndSmActiveOverTheUsedGpus) {
  // 8 GPUs over two pods, 2 of them driven: util 80 and 60 %, SM-active 0.5 and 0.3.
  std::vector<GpuReading> r;
  for (int i = 0; i < 4; ++i) {
    const bool used = i < 2;
    r.push_back(
        Gpu("train-0", i, used ? (i == 0 ? 80 : 60) : 0, used ? (i == 0 ? 0.5 : 0.3) : 0, 50, 0.3));
    r.push_back(Gpu("train-1", 4 + i, 0.5, 0, 0, 0));  // Below 1 %: not used.
  }
  SnapshotWorkloads w;
  w.workloads.push_back(Running("train", {"train-0", "train-1"}));
  UsageFit fit = FitUsageProfiles(r, &w);
  ASSERT_TRUE(w.workloads[0].usage);
  const model::UsageProfile& u = *w.workloads[0].usage;
  EXPECT_DOUBLE_EQ(u.used_gpu_fraction, 2.0 / 8);
  EXPECT_DOUBLE_EQ(u.busy, 0.7);       // (80 + 60) / 2 / 100.
  EXPECT_DOUBLE_EQ(u.sm_active, 0.4);  // (0.5 + 0.3) / 2.
  // Recent SM-active (4 x 0.3 + 4 x 0) / 8 = 0.15: not idle.
  EXPECT_TRUE(u.active_duration.is_infinite());
  EXPECT_EQ(fit.profiled, 1);
  EXPECT_EQ(fit.idle_now, 0);
}

TEST(UsageProfilesTest, IdleNowIdlesFromTheStart) {
  // A notebook that computed earlier (util 30 %, SM 0.2 over the window) and polls at 2 % now.
  SnapshotWorkloads w;
  w.workloads.push_back(Running("nb", {"nb-0"}));
  UsageFit fit = FitUsageProfiles({Gpu("nb-0", 0, 30, 0.2, 2, 0.0)}, &w);
  ASSERT_TRUE(w.workloads[0].usage);
  const model::UsageProfile& u = *w.workloads[0].usage;
  EXPECT_EQ(u.active_duration.micros(), 0);
  EXPECT_DOUBLE_EQ(u.idle_busy, 0.02);
  EXPECT_DOUBLE_EQ(u.busy, 0.3);
  EXPECT_EQ(fit.idle_now, 1);
}

TEST(UsageProfilesTest, AWorkloadWithAPodWithoutDataKeepsTheDefaults) {
  SnapshotWorkloads w;
  w.workloads.push_back(Running("train", {"train-0", "train-1"}));
  SnapshotWorkload waiting = Running("queued", {});
  waiting.running = false;
  w.workloads.push_back(waiting);
  UsageFit fit = FitUsageProfiles({Gpu("train-0", 0, 90, 0.6, 90, 0.6)}, &w);
  EXPECT_FALSE(w.workloads[0].usage);
  EXPECT_FALSE(w.workloads[1].usage);
  EXPECT_EQ(fit.without_data, 1);
  ASSERT_FALSE(fit.notes.empty());
  EXPECT_NE(fit.notes[0].find("1 running workload"), std::string::npos) << fit.notes[0];
}

TEST(UsageProfilesTest, WithoutProfilingMetricsSmActiveIsCappedByUtilization) {
  SnapshotWorkloads w;
  w.workloads.push_back(Running("svc", {"svc-0"}));
  UsageFit fit = FitUsageProfiles({Gpu("svc-0", 0, 40, std::nullopt, 40, std::nullopt)}, &w);
  ASSERT_TRUE(w.workloads[0].usage);
  EXPECT_DOUBLE_EQ(w.workloads[0].usage->busy, 0.4);
  EXPECT_DOUBLE_EQ(w.workloads[0].usage->sm_active, 0.4);            // min(default 0.5, busy).
  EXPECT_TRUE(w.workloads[0].usage->active_duration.is_infinite());  // 40 % now: not idle.
  EXPECT_TRUE(fit.sm_active_missing);
}

}  // namespace
}  // namespace steward::snapshot

// The report's paired comparison against FGD, on hand-made results with hand-computed
// statistics.
#include "place/report.h"

#include <gtest/gtest.h>

#include <cmath>

namespace steward::place {
namespace {

ExperimentResult Run(std::string policy, std::string workload, uint64_t seed, double final_alloc,
                     double decision_seconds) {
  ExperimentResult r;
  r.policy = std::move(policy);
  r.workload = std::move(workload);
  r.seed = seed;
  r.tune = 1.3;
  r.pods = 1000;
  r.decision_seconds = decision_seconds;
  r.alloc_ratio.assign(kCurvePoints, 0.0);
  r.frag_ratio.assign(kCurvePoints, 0.0);
  r.frag_amount.assign(kCurvePoints, 0.0);
  r.failed_at.assign(kCurvePoints, 0.0);
  r.alloc_ratio[kCurvePoints - 1] = final_alloc;
  return r;
}

std::vector<ExperimentResult> TwoWorkloadsThreeSeeds() {
  std::vector<ExperimentResult> runs;
  const double fgd_a[] = {90, 91, 92}, ours_a[] = {91, 91.5, 93};
  const double fgd_b[] = {90, 90, 90}, ours_b[] = {89, 90.5, 90};
  for (int s = 0; s < 3; ++s) {
    runs.push_back(Run("fgd", "openb_pod_list_default", 42 + s, fgd_a[s], 1.0));
    runs.push_back(Run("fgd", "openb_pod_list_w2", 42 + s, fgd_b[s], 1.0));
    runs.push_back(Run("ours", "openb_pod_list_default", 42 + s, ours_a[s], 2.0));
    runs.push_back(Run("ours", "openb_pod_list_w2", 42 + s, ours_b[s], 2.0));
  }
  return runs;
}

TEST(ReportTest, PairsSeedsAndTestsTheMeanDifference) {
  PairedComparison c = CompareWith(TwoWorkloadsThreeSeeds(), "ours");
  ASSERT_EQ(c.workloads.size(), 2u);
  // default: diffs 1, 0.5, 1 -> mean 5/6; squares of deviations 1/36 + 4/36 + 1/36 = 1/6,
  // sd² = 1/12, SE = sqrt(1/36) = 1/6, t = 5 > 4.303 (df 2): a significant win on 3 seeds.
  const PairedWorkload& a = c.workloads[0];
  EXPECT_EQ(a.workload, "default");
  EXPECT_NEAR(a.diff, 5.0 / 6, 1e-12);
  EXPECT_NEAR(a.se, 1.0 / 6, 1e-12);
  EXPECT_NEAR(a.t, 5.0, 1e-9);
  EXPECT_EQ(a.won, 3);
  EXPECT_TRUE(a.significant);
  EXPECT_NEAR(a.mean - a.baseline_mean, a.diff, 1e-12);
  // w2: diffs −1, 0.5, 0 -> mean −1/6; deviations −5/6, 4/6, 1/6 -> 42/36, sd² = 7/12,
  // SE = sqrt(7/36), t = −(1/6)/sqrt(7/36) = −1/sqrt(7): a loss, not significant; 1 seed won.
  const PairedWorkload& b = c.workloads[1];
  EXPECT_NEAR(b.diff, -1.0 / 6, 1e-12);
  EXPECT_NEAR(b.se, std::sqrt(7.0 / 36), 1e-12);
  EXPECT_NEAR(b.t, -1 / std::sqrt(7.0), 1e-9);
  EXPECT_EQ(b.won, 1);
  EXPECT_FALSE(b.significant);
  EXPECT_EQ(c.wins, 1);
  EXPECT_EQ(c.significant_wins, 1);
  EXPECT_EQ(c.significant_losses, 0);
  // 2 s vs 1 s for the same 1000 pods per run.
  EXPECT_DOUBLE_EQ(c.decision_time_ratio, 2.0);
}

TEST(ReportTest, SummariesStateWinsOfWorkloadsAndSpeed) {
  std::vector<ExperimentResult> runs = TwoWorkloadsThreeSeeds();
  std::string md = MarkdownSummary(runs);
  EXPECT_NE(md.find("ours allocates more than fgd on **1 of 2** workloads"), std::string::npos)
      << md;
  EXPECT_NE(md.find("1 of these wins and 0 losses are significant"), std::string::npos);
  EXPECT_NE(md.find("2.00× fgd's time"), std::string::npos);
  EXPECT_NE(md.find("| default | 91.00 | 91.83 | +0.83* | 0.167 | +5.0 | 3/3 |"),
            std::string::npos);
  // fgd's made-up allocation curve is 0 before 130%: §8.1 publishes 80.02 at 80% arrived.
  EXPECT_NE(md.find("fgd allocation at 80% (0.00 vs 80.02, -80.02)"), std::string::npos);
  std::string html = HtmlReport(runs, "t");
  EXPECT_NE(html.find("<td>1 of 2</td><td>1 / 0</td><td>2.00×</td>"), std::string::npos);
}

TEST(ReportTest, StudentCriticalValues) {
  EXPECT_DOUBLE_EQ(StudentT975(9), 2.262);
  EXPECT_DOUBLE_EQ(StudentT975(1), 12.706);
  EXPECT_DOUBLE_EQ(StudentT975(100), 1.96);
  EXPECT_TRUE(std::isinf(StudentT975(0)));
}

}  // namespace
}  // namespace steward::place

// Comparing two reports: KPI deltas (after - before) with missing keys as 0, and the writers.
#include "twin/report_compare.h"

#include <gtest/gtest.h>

#include "twin/compare_verdict.h"

namespace steward::twin {
namespace {

Report MakeReport(double alloc, double team_b_p99, int preempted_training, double lost_a,
                  bool alert) {
  Report r;
  r.scenario = "s";
  r.allocation_rate = alloc;
  r.queue_wait_seconds_by_team["team-b"].p99 = team_b_p99;
  r.preemptions["training"] = preempted_training;
  r.lost_gpu_hours_by_team["team-a"] = lost_a;
  if (alert) r.tenant_alerts.push_back({"team-a", 2.0, 0.9, 17.5});
  r.pending_by_reason["quota_exhausted"] = 3;
  return r;
}

const KpiDelta& Find(const std::vector<KpiDelta>& v, const std::string& group,
                     const std::string& name) {
  for (const auto& k : v)
    if (k.group == group && k.name == name) return k;
  throw std::runtime_error("no KPI " + group + "/" + name);
}

TEST(ReportCompareTest, DeltasAreAfterMinusBefore) {
  const Report before = MakeReport(0.555, 22012.8, 0, 0, true);
  Report after = MakeReport(0.495, 794.3, 19, 179.7, false);
  after.pending_by_reason["blocked_behind_head"] = 2;  // Absent before: counts as 0 there.
  const auto k = CompareKpis(before, after);
  EXPECT_NEAR(Find(k, "utilization", "allocation_rate").delta(), -0.06, 1e-12);
  EXPECT_NEAR(Find(k, "queue_wait_seconds_by_team.team-b", "p99").delta(), -21218.5, 1e-9);
  EXPECT_EQ(Find(k, "preemptions", "training").after, 19);
  EXPECT_NEAR(Find(k, "lost_gpu_hours_by_team", "team-a").delta(), 179.7, 1e-9);
  EXPECT_EQ(Find(k, "alerts", "tenant_alerts").delta(), -1);
  EXPECT_EQ(Find(k, "alert_hours_over", "team-a").before, 17.5);
  EXPECT_EQ(Find(k, "pending_by_reason", "blocked_behind_head").before, 0);
  EXPECT_EQ(Find(k, "pending_by_reason", "blocked_behind_head").after, 2);

  ComparedRun b{"no-limits", "case2/scenario.yaml", {"case2/no-limits.yaml"}, before};
  ComparedRun a{"with-limits", "case2/scenario.yaml", {"case2/with-limits.yaml"}, after};
  const nlohmann::json j = CompareToJson(b, a);
  EXPECT_EQ(j["before"]["label"], "no-limits");
  EXPECT_EQ(j["after"]["policy"][0], "case2/with-limits.yaml");
  EXPECT_EQ(j["after"]["report"]["preemptions"]["training"], 19);
  EXPECT_EQ(j["delta"]["queue_wait_seconds_by_team.team-b"]["p99"], -21218.5);
  EXPECT_EQ(j["delta"]["alerts"]["tenant_alerts"], -1);
  const std::string text = CompareToText(b, a);
  // Waits as durations with the relative change: 21218.5 s = 5h 53m, 96% of 22012.8 s.
  EXPECT_NE(text.find("-5h 53m (-96%)"), std::string::npos) << text;
  const std::string html = CompareToHtml(b, a);
  // Both full reports, escaped into iframes.
  size_t frames = 0;
  for (size_t at = 0; (at = html.find("<iframe", at)) != std::string::npos; ++at) ++frames;
  EXPECT_EQ(frames, 2u);
  EXPECT_NE(html.find("srcdoc=\"&lt;!doctype html&gt;"), std::string::npos);
}

TEST(ReportCompareTest, TheVerdictJudgesEachChangeByItsDirectionInItsUnit) {
  // The example: team-b's p99 wait -96 %, allocation -6 pp, team-a lost 180 GPU-hours
  // to 19 preemptions, and the tenant alert gone.
  const Report before = MakeReport(0.555, 22012.8, 0, 0, true);
  const Report after = MakeReport(0.495, 794.3, 19, 179.7, false);
  const auto k = CompareKpis(before, after);
  EXPECT_EQ(Judge(Find(k, "utilization", "allocation_rate")), -1);            // Lower is worse.
  EXPECT_EQ(Judge(Find(k, "queue_wait_seconds_by_team.team-b", "p99")), +1);  // Shorter.
  EXPECT_EQ(Judge(Find(k, "preemptions", "training")), -1);
  EXPECT_EQ(Judge(Find(k, "alerts", "tenant_alerts")), +1);
  EXPECT_EQ(Judge(Find(k, "pending_by_reason", "quota_exhausted")), 0);  // Unchanged.
  EXPECT_EQ(Judge(Find(k, "lost_gpu_hours", "total")), 0);               // 0 in both.
  EXPECT_EQ(FormatDelta(Find(k, "utilization", "allocation_rate")), "-6.0 pp");
  EXPECT_EQ(FormatValue(Find(k, "utilization", "allocation_rate"), 0.555), "55.5%");
  EXPECT_EQ(FormatDelta(Find(k, "preemptions", "training")), "+19");
  EXPECT_EQ(FormatDelta(Find(k, "lost_gpu_hours_by_team", "team-a")), "+179.7 GPU-h");
  EXPECT_EQ(FormatValue(Find(k, "queue_wait_seconds_by_team.team-b", "p99"), 794.3), "13m");
  // Better: team-b p99, tenant alerts, team-a's hours over the threshold (17.5 -> 0).
  // Worse: allocation, training preemptions, team-a's lost GPU-hours.
  const Verdict v = JudgeKpis(k);
  EXPECT_EQ(v.better, 3);
  EXPECT_EQ(v.worse, 3);
  EXPECT_EQ(v.gains,
            (std::vector<std::string>{"team-b p99 wait -5h 53m (-96%)", "tenant alerts -1"}));
  EXPECT_EQ(v.costs, (std::vector<std::string>{"allocation -6.0 pp", "preemptions (training) +19",
                                               "team-a lost +179.7 GPU-h"}));
  ComparedRun b{"no-limits", "", {}, before}, a{"with-limits", "", {}, after};
  const nlohmann::json j = CompareToJson(b, a);
  EXPECT_EQ(j["verdict"]["summary"], v.summary);
  EXPECT_EQ(j["verdict"]["by_kpi"]["utilization"]["allocation_rate"], "worse");
  EXPECT_NE(CompareToText(b, a).find(v.summary), std::string::npos);
}

}  // namespace
}  // namespace steward::twin

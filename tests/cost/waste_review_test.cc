#include "cost/waste_review.h"

#include <gtest/gtest.h>

#include "ledger_fixture.h"

namespace steward::cost {
namespace {

using namespace steward::cost::testing;

TEST(WasteReviewTest, RanksByUnusedCostAllocatedVsRealCompute) {
  TempLedgerPath tmp;
  auto ledger = OpenFixtureLedger(tmp.path());
  ASSERT_NE(ledger, nullptr);
  auto review = ReviewWaste(*ledger, "month", *ParseAggregate("team"), 2, kW2.end);
  ASSERT_TRUE(review.ok()) << review.status().ToString();
  // month with now = 02:00 on 2026-01-01: [2026-01-01, now).
  EXPECT_EQ(review->window, (Window{kT0, kW2.end}));
  EXPECT_EQ(review->total_aggregates, 3);
  ASSERT_EQ(review->rows.size(), 2u);
  // ml: 14 allocated, 8.5 SM-active, 5.5 unused at 25/14 $/h = 9.82143.
  const WasteReviewRow& ml = review->rows[0];
  EXPECT_EQ(ml.rank, 1);
  EXPECT_EQ(ml.name, "ml");
  EXPECT_DOUBLE_EQ(ml.unused_gpu_hours, 5.5);
  EXPECT_NEAR(ml.unused_cost, 25.0 * 5.5 / 14, 1e-12);
  EXPECT_EQ(ml.top_cause, "over_request");  // 1 h beats zombie's 0.5 h.
  // __unallocated__ (d): 1 h allocated, 0 computed, 0.5 $; web: 1/7 - 0.1 h at 2 $/h = 0.0857.
  EXPECT_EQ(review->rows[1].name, kUnallocatedName);
  EXPECT_DOUBLE_EQ(review->rows[1].unused_cost, 0.5);
  // Totals cover every aggregate, not only the top N.
  EXPECT_NEAR(review->allocated_gpu_hours, 15 + 1.0 / 7, 1e-12);
  EXPECT_NEAR(review->sm_active_gpu_hours, 8.6, 1e-12);
  EXPECT_NEAR(review->unused_cost, 25.0 * 5.5 / 14 + 0.5 + 2 * (1.0 / 7 - 0.1), 1e-12);
  EXPECT_NEAR(review->idle_cost, 27.0 / 7 * 2 + 1 + 1.5, 1e-12);

  const auto j = WasteReviewToJson(*review);
  EXPECT_EQ(j["rows"][0]["name"], "ml");
  EXPECT_DOUBLE_EQ(j["rows"][0]["unused_cost"].get<double>(), 9.82143);
  EXPECT_NE(WasteReviewToTable(*review, "USD").find("over_request (1.0 GPU-h)"), std::string::npos);
}

TEST(WasteReviewTest, TopZeroKeepsAll) {
  TempLedgerPath tmp;
  auto ledger = OpenFixtureLedger(tmp.path());
  ASSERT_NE(ledger, nullptr);
  auto review = ReviewWaste(*ledger, "1d", *ParseAggregate("namespace"), 0, kW2.end);
  ASSERT_TRUE(review.ok());
  ASSERT_EQ(review->rows.size(), 3u);
  EXPECT_EQ(review->rows[0].name, "research");
  EXPECT_EQ(review->rows[2].name, "serving");
}

}  // namespace
}  // namespace steward::cost

#include "cost/waste_review.h"

#include <gtest/gtest.h>

#include "ledger_fixture.h"

namespace steward::cost {
namespace {

using namespace steward::cost::testing;

TEST(WasteReviewTest, RanksByWasteCostAllocatedVsRealCompute) {
  TempLedgerPath tmp;
  auto ledger = OpenFixtureLedger(tmp.path());
  ASSERT_NE(ledger, nullptr);
  auto review = ReviewWaste(*ledger, "month", *ParseAggregate("team"), 2, kW2.end);
  ASSERT_TRUE(review.ok()) << review.status().ToString();
  // month with now = 02:00 on 2026-01-01: [2026-01-01, now).
  EXPECT_EQ(review->window, (Window{kT0, kW2.end}));
  EXPECT_EQ(review->total_aggregates, 3);
  ASSERT_EQ(review->rows.size(), 2u);
  // ml: 14 allocated, 8.5 SM-active, 5.5 not SM-active; waste over_request 1 + zombie 0.5 H100
  // GPU-h = 1.5 GPU-h at 2 $/h = $3; the other 4 GPU-h are unattributed (efficiency).
  const WasteReviewRow& ml = review->rows[0];
  EXPECT_EQ(ml.rank, 1);
  EXPECT_EQ(ml.name, "ml");
  EXPECT_DOUBLE_EQ(ml.unused_gpu_hours, 5.5);
  EXPECT_DOUBLE_EQ(ml.waste_gpu_hours, 1.5);
  EXPECT_DOUBLE_EQ(ml.waste_cost, 3.0);
  EXPECT_DOUBLE_EQ(ml.unattributed_gpu_hours, 4.0);
  EXPECT_EQ(ml.top_cause, "over_request");  // 1 h beats zombie's 0.5 h.
  // web and __unallocated__ waste nothing: tied at $0 and 0 h, by name ('_' before 'w').
  EXPECT_EQ(review->rows[1].name, kUnallocatedName);
  EXPECT_DOUBLE_EQ(review->rows[1].waste_cost, 0);
  EXPECT_DOUBLE_EQ(review->rows[1].unattributed_gpu_hours, 1.0);
  // Totals cover every aggregate, not only the top N.
  EXPECT_NEAR(review->allocated_gpu_hours, 15 + 1.0 / 7, 1e-12);
  EXPECT_NEAR(review->sm_active_gpu_hours, 8.6, 1e-12);
  EXPECT_DOUBLE_EQ(review->waste_gpu_hours, 1.5);
  EXPECT_DOUBLE_EQ(review->waste_cost, 3.0);
  EXPECT_NEAR(review->idle_cost, 27.0 / 7 * 2 + 1 + 1.5, 1e-12);

  const auto j = WasteReviewToJson(*review);
  EXPECT_EQ(j["rows"][0]["name"], "ml");
  EXPECT_DOUBLE_EQ(j["rows"][0]["waste_cost"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(j["rows"][0]["unattributed_gpu_hours"].get<double>(), 4.0);
  EXPECT_FALSE(j["rows"][0].contains("unused_cost"));
  EXPECT_NE(WasteReviewToTable(*review, "USD").find("over_request (1.0 GPU-h)"), std::string::npos);
}

// The first-day finding: an efficient team that computes a lot (many GPU-hours not
// SM-active, none of them waste) must not outrank a small team that holds idle GPUs.
TEST(WasteReviewTest, EfficientComputeIsNotWaste) {
  TempLedgerPath tmp;
  LedgerOptions options;
  options.cost_model = FixtureCostModel();
  auto ledger = Ledger::Open(tmp.path(), options);
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  // pretraining: 100 GPU-h at 68 % SM-active, nothing classified (32 GPU-h not SM-active).
  // research: 10 GPU-h, 1 SM-active, 8 GPU-h zombie notebooks.
  ASSERT_TRUE(
      (*ledger)
          ->WriteWindow(kW1,
                        {Rec("p", "pretraining", "pt", {}, "H100", 1, 100, 90, 68),
                         Rec("r", "research", "rs", {}, "H100", 1, 10, 1, 1, {{"zombie", 8}})},
                        {{"H100", 120}})
          .ok());
  auto review = ReviewWaste(**ledger, "month", *ParseAggregate("team"), 0, kW1.end);
  ASSERT_TRUE(review.ok()) << review.status().ToString();
  ASSERT_EQ(review->rows.size(), 2u);
  EXPECT_EQ(review->rows[0].name, "research");
  EXPECT_DOUBLE_EQ(review->rows[0].waste_gpu_hours, 8);
  EXPECT_DOUBLE_EQ(review->rows[0].waste_cost, 16);
  EXPECT_DOUBLE_EQ(review->rows[0].unattributed_gpu_hours, 1);
  EXPECT_EQ(review->rows[1].name, "pretraining");
  EXPECT_DOUBLE_EQ(review->rows[1].waste_gpu_hours, 0);
  EXPECT_DOUBLE_EQ(review->rows[1].unattributed_gpu_hours, 32);
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

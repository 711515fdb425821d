#include "cost/allocation_query.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ledger_fixture.h"

namespace steward::cost {
namespace {

using ::testing::HasSubstr;
using namespace steward::cost::testing;

// Idle in the fixture: W1 H100 8 - 4 - 1/7 = 27/7 h at 2.0, W1 L4 4 - 2 = 2 h at 0.5,
// W2 H100 8 - 8 = 0, W2 L4 4 - 1 = 3 h at 0.5.
constexpr double kIdleHours = 27.0 / 7 + 2 + 3;
constexpr double kIdleCost = 27.0 / 7 * 2 + 2 * 0.5 + 3 * 0.5;
// Allocated cost: ml = 4*2 + 2*0.5 + 8*2 = 25; web = 1/7*2; unallocated (d) = 1*0.5.
constexpr double kMlCost = 25;
constexpr double kWebCost = 2.0 / 7;
constexpr double kUnallocCost = 0.5;
constexpr double kAllCost = kMlCost + kWebCost + kUnallocCost;

const std::string kBothWindows = "2026-01-01T00:00:00Z,2026-01-01T02:00:00Z";

class AllocationQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ledger_ = OpenFixtureLedger(tmp_.path());
    ASSERT_NE(ledger_, nullptr);
  }
  AllocationResult Run(AllocationQuery q) {
    auto r = QueryAllocations(*ledger_, q, kW2.end);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : AllocationResult{};
  }
  static AllocationQuery Q(const std::string& window, const std::string& aggregate) {
    AllocationQuery q;
    q.window = window;
    q.aggregate = *ParseAggregate(aggregate);
    return q;
  }
  static const AllocationRow& Row(const AllocationSet& set, const std::string& name) {
    for (const AllocationRow& r : set.rows) {
      if (r.name == name) return r;
    }
    ADD_FAILURE() << "no row " << name;
    static AllocationRow none;
    return none;
  }
  TempLedgerPath tmp_;
  std::unique_ptr<Ledger> ledger_;
};

TEST_F(AllocationQueryTest, ByTeamSumsAllocatedUsedCostAndWaste) {
  const AllocationResult r = Run(Q(kBothWindows, "team"));
  ASSERT_EQ(r.sets.size(), 1u);
  const AllocationSet& s = r.sets[0];
  ASSERT_EQ(s.rows.size(), 3u);  // __unallocated__, ml, web (no idle row unless asked).
  EXPECT_EQ(s.rows[0].name, kUnallocatedName);
  const AllocationRow& ml = Row(s, "ml");
  EXPECT_DOUBLE_EQ(ml.allocated_gpu_hours, 14);   // 4 + 2 + 8
  EXPECT_DOUBLE_EQ(ml.busy_gpu_hours, 12);        // 3 + 1 + 8
  EXPECT_DOUBLE_EQ(ml.sm_active_gpu_hours, 8.5);  // 2 + 0.5 + 6
  EXPECT_DOUBLE_EQ(ml.gpu_cost(), kMlCost);
  EXPECT_DOUBLE_EQ(ml.sm_efficiency(), 8.5 / 14);
  EXPECT_DOUBLE_EQ(ml.waste_gpu_hours_by_cause.at("over_request"), 1);
  EXPECT_DOUBLE_EQ(ml.waste_cost_by_cause.at("over_request"), 2);
  EXPECT_DOUBLE_EQ(ml.waste_gpu_hours_by_cause.at("zombie"), 0.5);
  EXPECT_DOUBLE_EQ(ml.gpu_hours_by_model.at("L4"), 2);
  EXPECT_EQ(ml.namespace_name, "research");  // Shared by all of ml's records.
  EXPECT_TRUE(ml.labels.empty());            // app differs (llm, vision).
  EXPECT_EQ(ml.start, kW1.start);
  EXPECT_EQ(ml.end, kW2.end);
  // The MIG slice is charged by its physical share, not 0 and not a whole GPU.
  EXPECT_NEAR(Row(s, "web").gpu_cost(), kWebCost, 1e-12);
  EXPECT_DOUBLE_EQ(s.idle_cost, kIdleCost);
  EXPECT_DOUBLE_EQ(s.idle_gpu_hours, kIdleHours);
  EXPECT_DOUBLE_EQ(s.capacity_gpu_hours, 24);
}

TEST_F(AllocationQueryTest, IncludeIdleAddsIdleRow) {
  AllocationQuery q = Q(kBothWindows, "team");
  q.include_idle = true;
  const AllocationSet s = Run(q).sets[0];
  ASSERT_EQ(s.rows.size(), 4u);
  const AllocationRow& idle = Row(s, kIdleName);
  EXPECT_TRUE(idle.is_idle);
  EXPECT_DOUBLE_EQ(idle.gpu_cost(), kIdleCost);
  EXPECT_DOUBLE_EQ(idle.gpu_hours(), kIdleHours);
  // Everything adds up to the cluster's cost: capacity priced.
  double total = 0;
  for (const AllocationRow& row : s.rows) total += row.total_cost();
  EXPECT_NEAR(total, 16 * 2.0 + 8 * 0.5, 1e-12);
}

TEST_F(AllocationQueryTest, ShareIdleWeightedByCostLikeOpenCost) {
  AllocationQuery q = Q(kBothWindows, "team");
  q.share_idle = IdleSharing::kWeighted;
  q.include_idle = true;  // Shared idle replaces the __idle__ row.
  const AllocationSet s = Run(q).sets[0];
  ASSERT_EQ(s.rows.size(), 3u);
  const AllocationRow& ml = Row(s, "ml");
  EXPECT_NEAR(ml.idle_cost, kIdleCost * kMlCost / kAllCost, 1e-12);
  EXPECT_NEAR(ml.gpu_cost(), kMlCost + kIdleCost * kMlCost / kAllCost, 1e-12);
  EXPECT_NEAR(ml.gpu_hours(), 14 + kIdleHours * kMlCost / kAllCost, 1e-12);
  EXPECT_DOUBLE_EQ(ml.sm_efficiency(), 8.5 / 14);  // Efficiency ignores shared idle.
  double total = 0;
  for (const AllocationRow& row : s.rows) total += row.total_cost();
  EXPECT_NEAR(total, 36, 1e-12);  // Nothing lost, nothing doubled.
}

TEST_F(AllocationQueryTest, ShareIdleEvenly) {
  AllocationQuery q = Q(kBothWindows, "team");
  q.share_idle = IdleSharing::kEven;
  const AllocationSet s = Run(q).sets[0];
  for (const char* name : {"ml", "web", kUnallocatedName}) {
    EXPECT_NEAR(Row(s, name).idle_cost, kIdleCost / 3, 1e-12) << name;
  }
}

TEST_F(AllocationQueryTest, StepsSplitWindowsAndAccumulateSumsThem) {
  AllocationQuery q = Q(kBothWindows, "team");
  q.step_seconds = 3600;
  q.share_idle = IdleSharing::kWeighted;
  const AllocationResult r = Run(q);
  ASSERT_EQ(r.sets.size(), 2u);
  EXPECT_EQ(r.sets[0].window, kW1);
  EXPECT_DOUBLE_EQ(Row(r.sets[0], "ml").allocated_gpu_hours, 6);
  EXPECT_DOUBLE_EQ(Row(r.sets[1], "ml").allocated_gpu_hours, 8);
  // Step 1 idle 27/7*2 + 1 shared over ml (9) and web (2/7); step 2 idle 1.5 over ml (16), d (0.5).
  const double ml_idle = (54.0 / 7 + 1) * 9 / (9 + 2.0 / 7) + 1.5 * 16 / 16.5;
  q.accumulate = true;
  const AllocationResult acc = Run(q);
  ASSERT_EQ(acc.sets.size(), 1u);
  EXPECT_NEAR(Row(acc.sets[0], "ml").idle_cost, ml_idle, 1e-12);
  EXPECT_DOUBLE_EQ(Row(acc.sets[0], "ml").allocated_gpu_hours, 14);
  EXPECT_EQ(acc.sets[0].window, (Window{kW1.start, kW2.end}));
}

TEST_F(AllocationQueryTest, PartialWindowsCountProRata) {
  // [00:30, 01:30): half of W1 and half of W2.
  const AllocationSet s = Run(Q("2026-01-01T00:30:00Z,2026-01-01T01:30:00Z", "team")).sets[0];
  EXPECT_DOUBLE_EQ(Row(s, "ml").allocated_gpu_hours, 0.5 * 6 + 0.5 * 8);
  EXPECT_DOUBLE_EQ(Row(s, "ml").gpu_cost(), 0.5 * 9 + 0.5 * 16);
  EXPECT_DOUBLE_EQ(s.idle_cost, kIdleCost / 2);
  EXPECT_EQ(Row(s, "ml").start, kT0 + 1800);
  EXPECT_EQ(Row(s, "ml").end, kT0 + 5400);
}

TEST_F(AllocationQueryTest, ByLabelAndNamespaceAndMultiProperty) {
  const AllocationSet by_app = Run(Q(kBothWindows, "label:app")).sets[0];
  ASSERT_EQ(by_app.rows.size(), 3u);
  const AllocationRow& llm = Row(by_app, "llm");
  EXPECT_NEAR(llm.allocated_gpu_hours, 4 + 1.0 / 7 + 8, 1e-12);
  EXPECT_FALSE(llm.team.has_value());  // ml and web.
  EXPECT_EQ(llm.labels.at("app"), "llm");
  EXPECT_DOUBLE_EQ(Row(by_app, kUnallocatedName).allocated_gpu_hours, 1);  // d has no label.

  const AllocationSet by_ns = Run(Q(kBothWindows, "namespace")).sets[0];
  EXPECT_DOUBLE_EQ(Row(by_ns, "research").allocated_gpu_hours, 14);
  EXPECT_DOUBLE_EQ(Row(by_ns, "default").allocated_gpu_hours, 1);

  const AllocationSet multi = Run(Q(kBothWindows, "team,label:app")).sets[0];
  EXPECT_DOUBLE_EQ(Row(multi, "ml/llm").allocated_gpu_hours, 12);
  EXPECT_DOUBLE_EQ(Row(multi, "ml/vision").allocated_gpu_hours, 2);
  EXPECT_DOUBLE_EQ(Row(multi, kUnallocatedName).allocated_gpu_hours, 1);

  const AllocationSet by_workload = Run(Q(kBothWindows, "")).sets[0];
  EXPECT_EQ(by_workload.rows.size(), 4u);  // a, b, c, d.
}

TEST_F(AllocationQueryTest, RelativeWindowsResolveAgainstLedgerEnd) {
  // "1d" with now = the ledger's end (01:00 + 1 h = 02:00 on 2026-01-01) is that whole day.
  const AllocationResult r = Run(Q("1d", "team"));
  EXPECT_EQ(r.window, (Window{kT0, kT0 + 86400}));
  EXPECT_DOUBLE_EQ(Row(r.sets[0], "ml").allocated_gpu_hours, 14);
  EXPECT_EQ(*LedgerNow(*ledger_, 0), kW2.end);
}

TEST_F(AllocationQueryTest, RejectsBadQueries) {
  auto r = QueryAllocations(*ledger_, Q("nonsense", "team"), kW2.end);
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  AllocationQuery q = Q("30d", "team");
  q.step_seconds = 60;  // 43,200 steps.
  EXPECT_THAT(QueryAllocations(*ledger_, q, kW2.end).status().message(), HasSubstr("steps"));
  EXPECT_FALSE(ParseAggregate("team,pods").ok());
  EXPECT_FALSE(ParseAggregate("label:").ok());
}

TEST(AllocationQueryParamsTest, ParsesOpenCostParameters) {
  auto q = AllocationQueryFromParams({{"window", "7d"},
                                      {"aggregate", "namespace,label:app"},
                                      {"step", "1d"},
                                      {"accumulate", "true"},
                                      {"includeIdle", "true"},
                                      {"shareIdle", "true"},
                                      {"resolution", "1m"}});
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->window, "7d");
  ASSERT_EQ(q->aggregate.size(), 2u);
  EXPECT_EQ(q->aggregate[1].ToString(), "label:app");
  EXPECT_EQ(q->step_seconds, 86400);
  EXPECT_TRUE(q->accumulate);
  EXPECT_TRUE(q->include_idle);
  EXPECT_EQ(q->share_idle, IdleSharing::kWeighted);
  EXPECT_EQ(AllocationQueryFromParams({{"window", "1d"}, {"shareIdle", "even"}})->share_idle,
            IdleSharing::kEven);
  EXPECT_FALSE(AllocationQueryFromParams({{"aggregate", "team"}}).ok());  // window required.
  EXPECT_FALSE(AllocationQueryFromParams({{"window", "1d"}, {"shareIdle", "maybe"}}).ok());
  EXPECT_FALSE(AllocationQueryFromParams({{"window", "1d"}, {"step", "soon"}}).ok());
}

}  // namespace
}  // namespace steward::cost

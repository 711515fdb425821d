#include "cost/allocation_format.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "ledger_fixture.h"

namespace steward::cost {
namespace {

using ::testing::HasSubstr;
using namespace steward::cost::testing;
using nlohmann::json;

AllocationResult Query(const Ledger& ledger, const std::string& aggregate, bool include_idle,
                       IdleSharing share = IdleSharing::kNone) {
  AllocationQuery q;
  q.window = "2026-01-01T00:00:00Z,2026-01-01T02:00:00Z";
  q.aggregate = *ParseAggregate(aggregate);
  q.include_idle = include_idle;
  q.share_idle = share;
  auto r = QueryAllocations(ledger, q, kW2.end);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return *r;
}

TEST(OpenCostNumberTest, RoundsToFiveDecimalsAndNullsNonFinite) {
  EXPECT_EQ(OpenCostNumber(1.234567).dump(), "1.23457");
  EXPECT_EQ(OpenCostNumber(2.0 / 7).dump(), "0.28571");
  EXPECT_TRUE(OpenCostNumber(std::nan("")).is_null());
  EXPECT_TRUE(OpenCostNumber(1.0 / 0.0).is_null());
  EXPECT_EQ(OpenCostNumber(-0.000001).dump(), "0.0");
}

TEST(AllocationJsonTest, OpenCostEnvelopeAndFields) {
  TempLedgerPath tmp;
  auto ledger = OpenFixtureLedger(tmp.path());
  ASSERT_NE(ledger, nullptr);
  const json j = AllocationResultToOpenCostJson(Query(*ledger, "team", true));
  EXPECT_EQ(j["code"], 200);
  EXPECT_EQ(j["status"], "success");
  ASSERT_TRUE(j["data"].is_array());
  ASSERT_EQ(j["data"].size(), 1u);
  const json& set = j["data"][0];
  for (const char* name : {"ml", "web", "__unallocated__", "__idle__"}) {
    EXPECT_TRUE(set.contains(name)) << name;
  }
  const json& ml = set["ml"];
  EXPECT_EQ(ml["name"], "ml");
  EXPECT_EQ(ml["start"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(ml["end"], "2026-01-01T02:00:00Z");
  EXPECT_EQ(ml["window"]["start"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(ml["window"]["end"], "2026-01-01T02:00:00Z");
  EXPECT_DOUBLE_EQ(ml["minutes"].get<double>(), 120);
  EXPECT_DOUBLE_EQ(ml["gpuHours"].get<double>(), 14);
  EXPECT_DOUBLE_EQ(ml["gpuCount"].get<double>(), 7);  // 14 GPU-h over 2 h.
  EXPECT_DOUBLE_EQ(ml["gpuRequestAverage"].get<double>(), 7);
  EXPECT_DOUBLE_EQ(ml["gpuUsageAverage"].get<double>(), 4.25);  // 8.5 SM-active GPU-h / 2 h.
  EXPECT_DOUBLE_EQ(ml["gpuAllocation"]["gpuUsageAverage"].get<double>(), 4.25);
  EXPECT_EQ(ml["gpuAllocation"]["isGPUShared"], false);
  EXPECT_EQ(set["web"]["gpuAllocation"]["isGPUShared"], true);  // The MIG slice.
  EXPECT_DOUBLE_EQ(ml["gpuCost"].get<double>(), 25);
  EXPECT_DOUBLE_EQ(ml["totalCost"].get<double>(), 25);
  EXPECT_DOUBLE_EQ(ml["gpuEfficiency"].get<double>(), 0.60714);  // 8.5 / 14.
  EXPECT_DOUBLE_EQ(ml["totalEfficiency"].get<double>(), 0.60714);
  EXPECT_DOUBLE_EQ(ml["cpuCost"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(ml["ramCost"].get<double>(), 0);
  EXPECT_EQ(ml["properties"]["cluster"], "cluster-one");
  EXPECT_EQ(ml["properties"]["namespace"], "research");
  EXPECT_EQ(ml["properties"]["team"], "ml");
  // Steward's GPU fields.
  EXPECT_DOUBLE_EQ(ml["gpuSmActiveHours"].get<double>(), 8.5);
  EXPECT_DOUBLE_EQ(ml["gpuBusyHours"].get<double>(), 12);
  EXPECT_DOUBLE_EQ(ml["gpuSmActiveEfficiency"].get<double>(), 0.60714);
  EXPECT_DOUBLE_EQ(ml["gpuBusyEfficiency"].get<double>(), 0.85714);
  EXPECT_DOUBLE_EQ(ml["gpuWasteHoursByCause"]["over_request"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(ml["gpuWasteCostByCause"]["zombie"].get<double>(), 1);  // 0.5 h x 2.0.
  EXPECT_DOUBLE_EQ(ml["gpuHoursByModel"]["H100"].get<double>(), 12);
  // The idle row carries the unallocated capacity: 27/7*2 + 2*0.5 + 3*0.5 = 10.21429.
  EXPECT_DOUBLE_EQ(set["__idle__"]["gpuCost"].get<double>(), 10.21429);
  EXPECT_DOUBLE_EQ(set["__idle__"]["gpuEfficiency"].get<double>(), 0);
  // Every OpenCost field name is present.
  for (const char* k :
       {"cpuCores", "cpuCoreHours", "cpuEfficiency", "gpuCostAdjustment", "gpuCostIdle",
        "networkCost", "loadBalancerCost", "pvCost", "pvs", "ramBytes", "ramEfficiency",
        "externalCost", "sharedCost", "rawAllocationOnly", "proportionalAssetResourceCosts",
        "sharedCostBreakdown", "lbAllocations"}) {
    EXPECT_TRUE(ml.contains(k)) << k;
  }
}

TEST(AllocationJsonTest, SharedIdleShowsInGpuCostIdle) {
  TempLedgerPath tmp;
  auto ledger = OpenFixtureLedger(tmp.path());
  ASSERT_NE(ledger, nullptr);
  const json set =
      AllocationResultToOpenCostJson(Query(*ledger, "team", false, IdleSharing::kEven))["data"][0];
  EXPECT_FALSE(set.contains("__idle__"));
  const double idle = (27.0 / 7 * 2 + 2 * 0.5 + 3 * 0.5) / 3;
  EXPECT_NEAR(set["web"]["gpuCostIdle"].get<double>(), idle, 1e-5);
  EXPECT_NEAR(set["web"]["totalCost"].get<double>(), 2.0 / 7 + idle, 1e-5);
}

TEST(AllocationCsvTest, HeaderPlusOneRowPerAggregate) {
  TempLedgerPath tmp;
  auto ledger = OpenFixtureLedger(tmp.path());
  ASSERT_NE(ledger, nullptr);
  const std::string csv = AllocationResultToCsv(Query(*ledger, "team", false));
  std::istringstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "window_start,window_end,name,gpu_hours,allocated_gpu_hours,idle_gpu_hours,"
            "busy_gpu_hours,sm_active_gpu_hours,gpu_cost,idle_cost,total_cost,sm_efficiency,"
            "busy_efficiency,waste_gpu_hours,waste_gpu_hours:over_request,waste_gpu_hours:zombie");
  EXPECT_EQ(lines[2],
            "2026-01-01T00:00:00Z,2026-01-01T02:00:00Z,ml,14.0,14.0,0.0,12.0,8.5,25.0,0.0,25.0,"
            "0.60714,0.85714,1.5,1.0,0.5");
}

TEST(AllocationCsvTest, QuotesNamesWithCommas) {
  TempLedgerPath tmp;
  LedgerOptions options;
  options.cost_model = FixtureCostModel();
  auto ledger = Ledger::Open(tmp.path(), options);
  ASSERT_TRUE(ledger.ok());
  ASSERT_TRUE((*ledger)
                  ->WriteWindow(kW1, {Rec("x", "a,\"b\"", "n", {}, "L4", 1, 1, 1, 1)}, {{"L4", 1}})
                  .ok());
  const std::string csv = AllocationResultToCsv(Query(**ledger, "team", false));
  EXPECT_THAT(csv, HasSubstr(",\"a,\"\"b\"\"\",1.0,"));
}

TEST(AllocationTableTest, HasTotals) {
  TempLedgerPath tmp;
  auto ledger = OpenFixtureLedger(tmp.path());
  ASSERT_NE(ledger, nullptr);
  const std::string t = AllocationResultToTable(Query(*ledger, "team", true), "USD");
  EXPECT_THAT(t, HasSubstr("capacity 24.00 GPU-h, idle 8.86 GPU-h (10.21 USD)"));
  EXPECT_THAT(t, HasSubstr("total"));
}

}  // namespace
}  // namespace steward::cost

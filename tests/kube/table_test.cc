// Server-side printing: kubectl's AGE column is apimachinery's duration.HumanDuration
// (k8s.io/apimachinery/pkg/util/duration), whose rules each test below walks at its edges:
//   < -1s "<invalid>"; < 0 "0s"; < 2m "Ns"; < 10m "NmSs" (s dropped when 0); < 3h "Nm";
//   < 8h "NhMm" (m dropped when 0); < 2d "Nh"; < 8d "NdHh" (h dropped when 0); < 2y "Nd";
//   < 8y "NyDd" (d dropped when 0); else "Ny" (a year is 365 days).
#include "kube/table.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kube/json_decoder.h"

namespace steward::kube {
namespace {

using nlohmann::json;

constexpr int64_t kS = 1'000'000;
constexpr int64_t kM = 60 * kS;
constexpr int64_t kH = 60 * kM;
constexpr int64_t kD = 24 * kH;
constexpr int64_t kY = 365 * kD;

TEST(HumanDurationTest, ClockSkewAndSeconds) {
  EXPECT_EQ(HumanDuration(-2 * kS), "<invalid>");
  EXPECT_EQ(HumanDuration(-1 * kS - 1), "0s");  // -1.000001s truncates to -1s: tolerated.
  EXPECT_EQ(HumanDuration(-1), "0s");
  EXPECT_EQ(HumanDuration(0), "0s");
  EXPECT_EQ(HumanDuration(kS - 1), "0s");  // Truncated, not rounded.
  EXPECT_EQ(HumanDuration(5 * kS), "5s");
  EXPECT_EQ(HumanDuration(119 * kS + kS - 1), "119s");
}

TEST(HumanDurationTest, MinutesWithSecondsUpToTen) {
  EXPECT_EQ(HumanDuration(2 * kM), "2m");
  EXPECT_EQ(HumanDuration(2 * kM + 30 * kS), "2m30s");
  EXPECT_EQ(HumanDuration(9 * kM + 59 * kS), "9m59s");
  EXPECT_EQ(HumanDuration(10 * kM + 59 * kS), "10m");
  EXPECT_EQ(HumanDuration(179 * kM + 59 * kS), "179m");
}

TEST(HumanDurationTest, HoursWithMinutesUpToEight) {
  EXPECT_EQ(HumanDuration(3 * kH), "3h");
  EXPECT_EQ(HumanDuration(3 * kH + 5 * kM + 59 * kS), "3h5m");
  EXPECT_EQ(HumanDuration(7 * kH + 59 * kM), "7h59m");
  EXPECT_EQ(HumanDuration(8 * kH + 30 * kM), "8h");
  EXPECT_EQ(HumanDuration(47 * kH + 59 * kM), "47h");
}

TEST(HumanDurationTest, DaysWithHoursUpToEight) {
  EXPECT_EQ(HumanDuration(2 * kD), "2d");
  EXPECT_EQ(HumanDuration(2 * kD + 5 * kH + 59 * kM), "2d5h");
  EXPECT_EQ(HumanDuration(7 * kD + 23 * kH), "7d23h");
  EXPECT_EQ(HumanDuration(8 * kD + 23 * kH), "8d");
  EXPECT_EQ(HumanDuration(2 * kY - kS), "729d");
}

TEST(HumanDurationTest, YearsWithDaysUpToEight) {
  EXPECT_EQ(HumanDuration(2 * kY), "2y");
  EXPECT_EQ(HumanDuration(2 * kY + 30 * kD + 23 * kH), "2y30d");
  EXPECT_EQ(HumanDuration(8 * kY - kS), "7y364d");
  EXPECT_EQ(HumanDuration(8 * kY + 200 * kD), "8y");
  EXPECT_EQ(HumanDuration(100 * kY), "100y");
}

TablePrinter Printer() {
  return TablePrinter{{{"Name", "string", "name", "", 0},
                       {"Ready", "boolean", "", "", 0},
                       {"Age", "date", "", "", 0}},
                      [](const json& o) {
                        return json::array({o["name"], true, o["t"]});
                      }};
}

TEST(TableTest, RenderCellsTurnsDatesIntoAges) {
  const int64_t now = 1'796'332'018 * kS;
  const json cells = json::array({"gpu-1", true, now - 90 * kS});
  EXPECT_EQ(RenderCells(Printer(), cells, now), json::array({"gpu-1", true, "90s"}));
  // A date cell without a time prints as kubectl does for a missing one.
  EXPECT_EQ(RenderCells(Printer(), json::array({"gpu-1", true, nullptr}), now)[2], "<unknown>");
  // Fewer cells than columns: what is there is rendered, nothing is invented.
  EXPECT_EQ(RenderCells(Printer(), json::array({"x"}), now), json::array({"x"}));
}

TEST(TableTest, ColumnDefinitionsCarryEveryField) {
  TablePrinter p = Printer();
  p.columns[1].priority = 1;
  p.columns[1].description = "Ready condition";
  const json defs = ColumnDefinitions(p);
  ASSERT_EQ(defs.size(), 3u);
  EXPECT_EQ(defs[0], (json{{"name", "Name"},
                           {"type", "string"},
                           {"format", "name"},
                           {"description", ""},
                           {"priority", 0}}));
  EXPECT_EQ(defs[1]["priority"], 1);
  EXPECT_EQ(defs[2]["type"], "date");
}

TEST(TableTest, DefaultPrinterShowsNameAndCreation) {
  const TablePrinter& p = DefaultTablePrinter();
  ASSERT_EQ(p.columns.size(), 2u);
  EXPECT_EQ(p.columns[1].name, "Created At");
  const json cells =
      p.cells(json{{"metadata", {{"name", "x"}, {"creationTimestamp", "2026-12-03T21:06:58Z"}}}});
  EXPECT_EQ(cells, json::array({"x", 1'796'332'018 * kS}));
  // A missing or bad timestamp is a null cell (then "<unknown>"), not an exception.
  EXPECT_TRUE(p.cells(json{{"metadata", {{"name", "x"}}}})[1].is_null());
  EXPECT_TRUE(p.cells(json{{"metadata", {{"creationTimestamp", "soon"}}}})[1].is_null());
}

}  // namespace
}  // namespace steward::kube

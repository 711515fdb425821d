#include "cost/window.h"

#include <gtest/gtest.h>

#include "case_name.h"

namespace steward::cost {
namespace {

int64_t T(const char* rfc3339) {
  auto t = ParseRfc3339(rfc3339);
  EXPECT_TRUE(t.ok()) << rfc3339;
  return t.ok() ? *t : 0;
}

TEST(WindowTest, Rfc3339RoundTripsAndEpochIsNewYear2026) {
  EXPECT_EQ(T("2026-01-01T00:00:00Z"), kDefaultScenarioEpoch);
  EXPECT_EQ(FormatRfc3339(kDefaultScenarioEpoch), "2026-01-01T00:00:00Z");
  EXPECT_EQ(T("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(T("2024-02-29T12:34:56Z"), 1709210096);
  EXPECT_EQ(FormatRfc3339(1709210096), "2024-02-29T12:34:56Z");
  EXPECT_EQ(T("2026-01-01T02:00:00+02:00"), kDefaultScenarioEpoch);
  EXPECT_EQ(T("2025-12-31T19:00:00.75-05:00"), kDefaultScenarioEpoch);
  EXPECT_FALSE(ParseRfc3339("2026-01-01").ok());
  EXPECT_FALSE(ParseRfc3339("2026-13-01T00:00:00Z").ok());
  EXPECT_FALSE(ParseRfc3339("2026-01-01T00:00:00").ok());
}

TEST(WindowTest, SimTimeMapsOntoTheScenarioEpoch) {
  EXPECT_EQ(SimToUnixSeconds(kSimStart), kDefaultScenarioEpoch);
  EXPECT_EQ(SimToUnixSeconds(kSimStart + Hours(25)), kDefaultScenarioEpoch + 90000);
  EXPECT_EQ(SimToUnixSeconds(kSimStart + Micros(1'999'999)), kDefaultScenarioEpoch + 1);
  const Window w = SimWindow(kSimStart + Hours(1), kSimStart + Hours(2), 1000);
  EXPECT_EQ(w, (Window{4600, 8200}));
  EXPECT_DOUBLE_EQ(w.hours(), 1.0);
}

TEST(WindowTest, Durations) {
  EXPECT_EQ(*ParseDurationSeconds("30m"), 1800);
  EXPECT_EQ(*ParseDurationSeconds("1h30m"), 5400);
  EXPECT_EQ(*ParseDurationSeconds("1d"), 86400);
  EXPECT_EQ(*ParseDurationSeconds("1w"), 604800);
  EXPECT_EQ(*ParseDurationSeconds("90s"), 90);
  for (const char* bad : {"", "h", "10", "0h", "1y", "-1h"}) {
    EXPECT_FALSE(ParseDurationSeconds(bad).ok()) << bad;
  }
}

struct WindowCase {
  const char* text;
  const char* start;
  const char* end;
};

class OpenCostWindowTest : public ::testing::TestWithParam<WindowCase> {};

// `now` = 2026-01-02T00:00:00Z: the exclusive end of a ledger holding 2026-01-01, a Thursday.
TEST_P(OpenCostWindowTest, ResolvesLikeOpenCost) {
  const int64_t now = T("2026-01-02T00:00:00Z");
  auto w = ParseOpenCostWindow(GetParam().text, now);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(FormatRfc3339(w->start), GetParam().start);
  EXPECT_EQ(FormatRfc3339(w->end), GetParam().end);
}

INSTANTIATE_TEST_SUITE_P(
    Grammar, OpenCostWindowTest,
    ::testing::Values(
        WindowCase{"today", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"},
        WindowCase{"1d", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"},
        WindowCase{"7d", "2025-12-26T00:00:00Z", "2026-01-02T00:00:00Z"},
        WindowCase{"1w", "2025-12-26T00:00:00Z", "2026-01-02T00:00:00Z"},
        WindowCase{"yesterday", "2025-12-31T00:00:00Z", "2026-01-01T00:00:00Z"},
        WindowCase{"24h", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"},
        WindowCase{"30m", "2026-01-01T23:30:00Z", "2026-01-02T00:00:00Z"},
        WindowCase{"week", "2025-12-28T00:00:00Z", "2026-01-02T00:00:00Z"},
        WindowCase{"lastweek", "2025-12-21T00:00:00Z", "2025-12-28T00:00:00Z"},
        WindowCase{"month", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"},
        WindowCase{"lastmonth", "2025-12-01T00:00:00Z", "2026-01-01T00:00:00Z"},
        WindowCase{"2h offset 1h", "2026-01-01T21:00:00Z", "2026-01-01T23:00:00Z"},
        WindowCase{"1767225600,1767229200", "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z"},
        WindowCase{"1767225600-1767229200", "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z"},
        WindowCase{"2026-11-01T00:00:00Z,2026-11-02T00:00:00Z", "2026-11-01T00:00:00Z",
                   "2026-11-02T00:00:00Z"}),
    CaseName<WindowCase>);

TEST(OpenCostWindowTest, MidDayNowAndBadWindows) {
  const int64_t now = T("2026-03-15T10:20:00Z");
  EXPECT_EQ(FormatRfc3339(ParseOpenCostWindow("today", now)->start), "2026-03-15T00:00:00Z");
  EXPECT_EQ(FormatRfc3339(ParseOpenCostWindow("lastmonth", now)->start), "2026-02-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339(ParseOpenCostWindow("2d", now)->start), "2026-03-14T00:00:00Z");
  for (const char* bad :
       {"", "forever", "5y", "2026-01-02T00:00:00Z,2026-01-01T00:00:00Z", "10,5", "1d,2d"}) {
    EXPECT_FALSE(ParseOpenCostWindow(bad, now).ok()) << bad;
  }
}

}  // namespace
}  // namespace steward::cost

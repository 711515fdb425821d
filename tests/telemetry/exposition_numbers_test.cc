// Number syntax exactly as Prometheus reads it (issue 16 item 3): sample values through Go's
// strconv.ParseFloat minus 'p', 'P' and '_' (model/textparse parseFloat, expfmt parseFloat),
// 0.0.4 timestamps through strconv.ParseInt, OpenMetrics timestamps as the ABNF's realnumber.
// The expectations for values were checked against promtool check metrics (Go's strconv).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "telemetry/exposition.h"
#include "telemetry/exposition_syntax.h"

namespace steward::telemetry {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct NumberCase {
  const char* text;
  bool ok;
  double value;  // When ok; NaN compares by isnan.
};

const NumberCase kValues[] = {
    {"1", true, 1},
    {"-1.5", true, -1.5},
    {"+0", true, 0},
    {"007", true, 7},
    {".5", true, 0.5},
    {"5.", true, 5},
    {"+.5", true, 0.5},
    {"-5.e3", true, -5000},
    {"1E5", true, 1e5},
    {"1.e5", true, 1e5},
    {"1e-400", true, 0},  // Below the double range: Go rounds to zero.
    {"5e-324", true, 5e-324},
    {"1e308", true, 1e308},
    {"NaN", true, kNaN},
    {"nan", true, kNaN},
    {"NAN", true, kNaN},
    {"Inf", true, kInf},
    {"+Inf", true, kInf},
    {"-Inf", true, -kInf},
    {"inf", true, kInf},
    {"INF", true, kInf},
    {"infinity", true, kInf},
    {"+Infinity", true, kInf},
    {"-infINITY", true, -kInf},
    // Refused by Go's ParseFloat or by Prometheus' 'p'/'P'/'_' check.
    {"-NaN", false, 0},
    {"+NaN", false, 0},
    {"+nan", false, 0},
    {"infin", false, 0},
    {"+-5", false, 0},
    {"-+5", false, 0},
    {"--5", false, 0},
    {"++5", false, 0},
    {"5-", false, 0},
    {"1e", false, 0},
    {"1e+", false, 0},
    {"e1", false, 0},
    {".", false, 0},
    {"+.", false, 0},
    {".e1", false, 0},
    {"1.2.3", false, 0},
    {"1e5.0", false, 0},
    {"0x10", false, 0},
    {"0x1p-3", false, 0},
    {"0X1P3", false, 0},
    {"0b1", false, 0},
    {"1_000", false, 0},
    {"1e400", false, 0},  // Past the double range: Go's ErrRange.
    {"-1e400", false, 0},
    {"1.8e308", false, 0},
    {"", false, 0},
    {"+", false, 0},
    {"true", false, 0},
};

TEST(ExpositionNumbersTest, ParseNumberMatchesGoParseFloat) {
  for (const NumberCase& c : kValues) {
    double v = -12345;
    bool ok = expo::ParseNumber(c.text, &v);
    EXPECT_EQ(ok, c.ok) << "\"" << c.text << "\"";
    if (!ok || !c.ok) continue;
    if (std::isnan(c.value)) {
      EXPECT_TRUE(std::isnan(v)) << c.text;
    } else {
      EXPECT_EQ(v, c.value) << c.text;
    }
  }
}

TEST(ExpositionNumbersTest, SampleValuesInBothDialects) {
  for (const NumberCase& c : kValues) {
    if (std::string_view(c.text).empty()) continue;  // "a " is a missing value, tested apart.
    std::string text = std::string("a ") + c.text + "\n";
    Scrape p = ParseExposition(text, {.dialect = Dialect::kPrometheusText});
    EXPECT_EQ(p.ok(), c.ok) << "0.0.4 value \"" << c.text << "\"";
    // OpenMetrics' "number" rule is the same set (its ABNF is case-insensitive).
    Scrape om =
        ParseExposition("# TYPE a gauge\n" + text + "# EOF\n", {.dialect = Dialect::kOpenMetrics});
    EXPECT_EQ(om.ok(), c.ok) << "OpenMetrics value \"" << c.text << "\"";
    if (c.ok && p.ok() && !std::isnan(c.value)) {
      EXPECT_EQ(p.samples[0].value, c.value) << c.text;
    }
  }
}

TEST(ExpositionNumbersTest, TextTimestampsAreGoParseInt) {
  struct Case {
    const char* text;
    bool ok;
    int64_t ms;
  };
  const Case cases[] = {
      {"1700000000000", true, 1700000000000},
      {"-3982045", true, -3982045},  // The format's own example ("something_weird").
      {"+5", true, 5},
      {"007", true, 7},
      {"9223372036854775807", true, std::numeric_limits<int64_t>::max()},
      {"-9223372036854775808", true, std::numeric_limits<int64_t>::min()},
      {"9223372036854775808", false, 0},
      {"1.5", false, 0},
      {"1e3", false, 0},
      {"0x10", false, 0},
      {"+-5", false, 0},
      {"--5", false, 0},
      {"-", false, 0},
      {"1_0", false, 0},
      {"NaN", false, 0},
  };
  for (const Case& c : cases) {
    Scrape s =
        ParseExposition(std::string("a 1 ") + c.text + "\n", {.dialect = Dialect::kPrometheusText});
    EXPECT_EQ(s.ok(), c.ok) << "timestamp \"" << c.text << "\"";
    if (c.ok && s.ok()) {
      EXPECT_EQ(s.samples[0].timestamp_ms, c.ms) << c.text;
    }
  }
}

TEST(ExpositionNumbersTest, OpenMetricsTimestampsAreRealNumbers) {
  struct Case {
    const char* text;
    bool ok;
    int64_t ms;
  };
  const Case cases[] = {
      {"1.5", true, 1500}, {".5", true, 500},  {"-1", true, -1000}, {"1e3", true, 1000000},
      {"NaN", false, 0},   {"+Inf", false, 0}, {"-Inf", false, 0},  {"+-1", false, 0},
      {"1e", false, 0},    {"0x10", false, 0}, {"1e400", false, 0},
  };
  for (const Case& c : cases) {
    Scrape s = ParseExposition(std::string("# TYPE a gauge\na 1 ") + c.text + "\n# EOF\n",
                               {.dialect = Dialect::kOpenMetrics});
    EXPECT_EQ(s.ok(), c.ok) << "timestamp \"" << c.text << "\"";
    if (c.ok && s.ok()) {
      EXPECT_EQ(s.samples[0].timestamp_ms, c.ms) << c.text;
    }
  }
}

TEST(ExpositionNumbersTest, LeAndQuantileLabelsUseTheSameSyntax) {
  EXPECT_FALSE(ParseExposition("# TYPE h histogram\nh_bucket{le=\"+-1\"} 1\n"
                               "h_bucket{le=\"+Inf\"} 1\n")
                   .ok());
  EXPECT_FALSE(ParseExposition("# TYPE s summary\ns{quantile=\"-NaN\"} 1\n").ok());
  EXPECT_TRUE(ParseExposition("# TYPE s summary\ns{quantile=\".5\"} 1\n").ok());
}

}  // namespace
}  // namespace steward::telemetry

// The parser's work is linear in the number of families and labels (issue 16 item 3). Checked by
// counting steps (expo::ParseWork), not by timing: many labels on one line used to be compared
// pairwise (n²/2 name comparisons) and every OpenMetrics TYPE line scanned all families before
// it (F²/2 family visits).
#include <gtest/gtest.h>

#include <string>

#include "telemetry/exposition_parser.h"

namespace steward::telemetry {
namespace {

expo::ParseWork Work(const std::string& text, Dialect d, Scrape* out = nullptr) {
  Scrape local;
  Scrape& s = out ? *out : local;
  expo::ParseWork work;
  ParseOptions o;
  o.dialect = d;
  expo::RunParser(text, o, s, &work);
  return work;
}

std::string ManyLabels(int n, bool duplicate_last) {
  std::string line = "m{";
  for (int i = 0; i < n; ++i) line += "l" + std::to_string(i) + "=\"v\",";
  if (duplicate_last) line += "l0=\"again\",";
  line += "} 1\n";
  return line;
}

TEST(ExpositionLinearTest, DuplicateLabelCheckIsLinearInLabels) {
  for (int n : {1000, 8000}) {
    Scrape s;
    expo::ParseWork w = Work(ManyLabels(n, false), Dialect::kPrometheusText, &s);
    ASSERT_TRUE(s.ok()) << s.errors[0].ToString();
    ASSERT_EQ(s.samples[0].label_count, static_cast<uint32_t>(n));
    // Pairwise comparison would be n(n-1)/2 (about 500k and 32M here).
    EXPECT_LE(w.label_name_compares, 3u * n) << n << " labels";
  }
  // Still a duplicate found at the end of a long list.
  Scrape dup;
  Work(ManyLabels(8000, true), Dialect::kPrometheusText, &dup);
  ASSERT_EQ(dup.error_count, 1u);
  EXPECT_NE(dup.errors[0].message.find("duplicate label l0"), std::string::npos);
}

TEST(ExpositionLinearTest, OpenMetricsTypeLinesAreLinearInFamilies) {
  for (int f : {1000, 8000}) {
    std::string text;
    for (int i = 0; i < f; ++i) {
      std::string name = "fam" + std::to_string(i);
      text += "# TYPE " + name + " counter\n# HELP " + name + " h\n" + name + "_total 1\n";
    }
    text += "# EOF\n";
    Scrape s;
    expo::ParseWork w = Work(text, Dialect::kOpenMetrics, &s);
    ASSERT_TRUE(s.ok()) << s.errors[0].ToString();
    ASSERT_EQ(s.families.size(), static_cast<size_t>(f));
    // A scan of every earlier family per TYPE line would be f²/2 (500k and 32M here).
    EXPECT_LE(w.family_probes, 20u * f) << f << " families";
  }
  // The clash check still sees a clash with a family declared long before.
  std::string clash = "# TYPE a counter\na_total 1\n";
  for (int i = 0; i < 5000; ++i) clash += "# TYPE g" + std::to_string(i) + " gauge\n";
  clash += "# TYPE a_created gauge\n# EOF\n";
  Scrape s;
  Work(clash, Dialect::kOpenMetrics, &s);
  ASSERT_EQ(s.error_count, 1u);
  EXPECT_NE(s.errors[0].message.find("clashes"), std::string::npos);
}

TEST(ExpositionLinearTest, TextFamiliesAreLinearToo) {
  for (int f : {1000, 8000}) {
    std::string text;
    for (int i = 0; i < f; ++i) {
      std::string name = "h" + std::to_string(i);
      text += "# TYPE " + name + " histogram\n" + name + "_bucket{le=\"+Inf\"} 1\n" + name +
              "_count 1\n" + name + "_sum 1\n";
    }
    Scrape s;
    expo::ParseWork w = Work(text, Dialect::kPrometheusText, &s);
    ASSERT_TRUE(s.ok()) << s.errors[0].ToString();
    EXPECT_LE(w.family_probes, 20u * f) << f << " families";
  }
}

}  // namespace
}  // namespace steward::telemetry

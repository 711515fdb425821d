// Prometheus 3.x quoted UTF-8 metric and label names (issue 16 item 3): the forms Prometheus'
// parsers read (prometheus/prometheus model/textparse promlex.l/promparse.go and
// openmetricsparse.go; prometheus/common expfmt/text_parse.go), and the legacy forms unchanged.
#include <gtest/gtest.h>

#include <string>

#include "telemetry/exposition.h"

namespace steward::telemetry {
namespace {

Scrape Parse(std::string_view text, Dialect d = Dialect::kPrometheusText) {
  ParseOptions o;
  o.dialect = d;
  return ParseExposition(text, o);
}

std::string FirstError(const Scrape& s) { return s.errors.empty() ? "" : s.errors[0].ToString(); }

TEST(ExpositionNamesTest, QuotedMetricAndLabelNamesInsideTheBraces) {
  Scrape s = Parse("{\"my.metric\", \"label.with.dots\"=\"v\", plain=\"w\"} 1\n");
  ASSERT_TRUE(s.ok()) << FirstError(s);
  ASSERT_EQ(s.samples.size(), 1u);
  EXPECT_EQ(s.samples[0].name, "my.metric");
  ASSERT_EQ(s.families.size(), 1u);
  EXPECT_EQ(s.families[0].name, "my.metric");
  ASSERT_EQ(s.samples[0].label_count, 2u);
  EXPECT_EQ(s.LabelsOf(s.samples[0])[0].name, "label.with.dots");
  EXPECT_EQ(s.LabelValue(s.samples[0], "label.with.dots"), "v");
  EXPECT_EQ(s.LabelValue(s.samples[0], "plain"), "w");
}

TEST(ExpositionNamesTest, QuotedNamesInMetadataJoinTheirSamples) {
  Scrape s = Parse(
      "# HELP \"my.metric\" Requests, by \"code\".\n"
      "# TYPE \"my.metric\" counter\n"
      "{\"my.metric\",code=\"200\"} 3\n"
      "{\"my.metric\",code=\"500\"} 1\n");
  ASSERT_TRUE(s.ok()) << FirstError(s);
  ASSERT_EQ(s.families.size(), 1u);
  EXPECT_EQ(s.families[0].name, "my.metric");
  EXPECT_EQ(s.families[0].type, MetricType::kCounter);
  EXPECT_EQ(s.families[0].help, "Requests, by \"code\".");
  EXPECT_EQ(s.families[0].sample_count, 2u);
}

TEST(ExpositionNamesTest, QuotedNameBeforeTheBracesIsTextFormatOnly) {
  // prometheus/common expfmt reads a quoted name before the braces; Prometheus' OpenMetrics
  // parser and the OpenMetrics 2.0 ABNF put it inside them.
  Scrape s = Parse("\"my.metric\"{a=\"b\"} 1\n\"my.metric\" {a=\"c\"} 2\n\"other.metric\" 3\n");
  ASSERT_TRUE(s.ok()) << FirstError(s);
  ASSERT_EQ(s.samples.size(), 3u);
  EXPECT_EQ(s.samples[0].name, "my.metric");
  EXPECT_EQ(s.LabelValue(s.samples[1], "a"), "c");
  EXPECT_EQ(s.samples[2].name, "other.metric");
  EXPECT_EQ(s.families.size(), 2u);
  Scrape om = Parse("\"my.metric\"{a=\"b\"} 1\n# EOF\n", Dialect::kOpenMetrics);
  EXPECT_EQ(om.error_count, 1u);
  EXPECT_TRUE(om.samples.empty());
}

TEST(ExpositionNamesTest, EscapesInQuotedNames) {
  // \\ \" \n are decoded; any other escape keeps both bytes, as textparse's unreplace does.
  Scrape s = Parse(
      "# TYPE \"a\\\"b\\\\c\\nd\" gauge\n"
      "{\"a\\\"b\\\\c\\nd\", \"x\\\\y\"=\"1\", \"t\\tz\"=\"2\"} 1\n");
  ASSERT_TRUE(s.ok()) << FirstError(s);
  ASSERT_EQ(s.families.size(), 1u);
  EXPECT_EQ(s.families[0].name, "a\"b\\c\nd");
  EXPECT_EQ(s.families[0].type, MetricType::kGauge);
  EXPECT_EQ(s.samples[0].name, "a\"b\\c\nd");
  EXPECT_EQ(s.LabelsOf(s.samples[0])[0].name, "x\\y");
  EXPECT_EQ(s.LabelsOf(s.samples[0])[1].name, "t\\tz");
  // A quote inside a quoted name does not end it when escaped.
  Scrape q = Parse("{\"say \\\"hi\\\"\"} 1\n");
  ASSERT_TRUE(q.ok()) << FirstError(q);
  EXPECT_EQ(q.samples[0].name, "say \"hi\"");
}

TEST(ExpositionNamesTest, NonAsciiUtf8Names) {
  Scrape s = Parse("{\"température.°C\", \"größe\"=\"groß\"} 21.5\n");
  ASSERT_TRUE(s.ok()) << FirstError(s);
  EXPECT_EQ(s.samples[0].name, "température.°C");
  EXPECT_EQ(s.LabelValue(s.samples[0], "größe"), "groß");
}

TEST(ExpositionNamesTest, LegacyNamesQuotedOrNotAreTheSameFamily) {
  Scrape s = Parse(
      "# TYPE up gauge\n"
      "{\"up\"} 1\n"
      "up{\"job\"=\"a\"} 0\n"
      "{\"up\", job=\"b\"} 1\n");
  ASSERT_TRUE(s.ok()) << FirstError(s);
  ASSERT_EQ(s.families.size(), 1u);
  EXPECT_EQ(s.families[0].type, MetricType::kGauge);
  EXPECT_EQ(s.families[0].sample_count, 3u);
  EXPECT_EQ(s.LabelValue(s.samples[1], "job"), "a");
  // Suffixed sample names resolve through the quoted family name too (promparse_test.go's
  // go.gc_duration_seconds summary).
  Scrape sum = Parse(
      "# TYPE \"go.gc_duration_seconds\" summary\n"
      "{\"go.gc_duration_seconds\",quantile=\"0\"} 4.9e-05\n"
      "{ \"go.gc_duration_seconds\", quantile = \"1.0\", a = \"b\" , } 8.3e-05\n"
      "{\"go.gc_duration_seconds_count\"} 99\n"
      "{\"go.gc_duration_seconds_sum\"} 0.1\n");
  ASSERT_TRUE(sum.ok()) << FirstError(sum);
  ASSERT_EQ(sum.families.size(), 1u);
  EXPECT_EQ(sum.families[0].sample_count, 4u);
}

TEST(ExpositionNamesTest, QuotedNameMayStandAnywhereInTheBracesOnce) {
  Scrape s = Parse("{a=\"1\", \"m.x\"} 1\n");
  ASSERT_TRUE(s.ok()) << FirstError(s);
  EXPECT_EQ(s.samples[0].name, "m.x");
  EXPECT_EQ(s.LabelValue(s.samples[0], "a"), "1");
}

TEST(ExpositionNamesTest, MalformedQuotedNamesAreRefused) {
  const char* bad[] = {
      "{} 1\n",                             // No name at all.
      "{a=\"b\"} 1\n",                      // Labels but no name.
      "x{\"y\"} 1\n",                       // Name before the braces and inside them.
      "{\"a\", \"b\"} 1\n",                 // Two names.
      "{\"\"} 1\n",                         // Empty name.
      "{\"a\", \"\"=\"v\"} 1\n",            // Empty label name.
      "{\"a\xff\"} 1\n",                    // Not UTF-8.
      "{\"a\", \"l\xc0\xaf\"=\"v\"} 1\n",   // Overlong UTF-8 form.
      "{\"a} 1\n",                          // Unterminated.
      "{\"a.b\", \"__name__\"=\"x\"} 1\n",  // Reserved, quoted or not.
      "{\"a\", \"l\"=\"1\", l=\"2\"} 1\n",  // Duplicate label, quoted and plain.
      "{\"a\"}x 1\n",                       // Junk after the braces.
      "\"a\"x 1\n",                         // Junk after a quoted name.
      "{a} 1\n",                            // An unquoted name is no name in braces (promparse).
      "# TYPE \"a.b\"counter\n",            // No blank after the quoted name.
      "# TYPE \"\" counter\n",              // Empty name in metadata.
      "# HELP \"a.b help\n",                // Unterminated in metadata.
  };
  for (const char* text : bad) {
    EXPECT_FALSE(Parse(text).ok()) << "accepted: " << text;
  }
}

TEST(ExpositionNamesTest, OpenMetricsQuotedNames) {
  Scrape s = Parse(
      "# TYPE \"process.cpu_seconds\" counter\n"
      "# UNIT \"process.cpu_seconds\" seconds\n"
      "# HELP \"process.cpu_seconds\" Total CPU time.\n"
      "{\"process.cpu_seconds_total\",\"node.name\"=\"n1\"} 4.2 # {\"trace.id\"=\"abc\"} 1\n"
      "# EOF\n",
      Dialect::kOpenMetrics);
  ASSERT_TRUE(s.ok()) << FirstError(s);
  ASSERT_EQ(s.families.size(), 1u);
  EXPECT_EQ(s.families[0].name, "process.cpu_seconds");
  EXPECT_EQ(s.families[0].type, MetricType::kCounter);
  EXPECT_EQ(s.families[0].unit, "seconds");
  EXPECT_EQ(s.LabelValue(s.samples[0], "node.name"), "n1");
  // An exemplar's label set has no metric name; OpenMetrics keeps its one-space rule.
  EXPECT_FALSE(
      Parse("# TYPE a counter\na_total 1 # {\"x.y\"} 1\n# EOF\n", Dialect::kOpenMetrics).ok());
  EXPECT_FALSE(Parse("{\"a.b\", x=\"1\"} 1\n# EOF\n", Dialect::kOpenMetrics).ok());
  EXPECT_TRUE(Parse("{\"a.b\",x=\"1\"} 1\n# EOF\n", Dialect::kOpenMetrics).ok());
}

TEST(ExpositionNamesTest, InvalidUtf8ValuesAndHelpAreRefused) {
  // Both Prometheus parsers refuse them (promparse.go: "invalid UTF-8 label value", "help text
  // ... is not a valid utf8 string"; expfmt: model.LabelValue.IsValid).
  EXPECT_FALSE(Parse("a{b=\"\xff\"} 1\n").ok());
  EXPECT_FALSE(Parse("# HELP a caf\xe9\na 1\n").ok());
  EXPECT_FALSE(Parse("a{b=\"\xed\xa0\x80\"} 1\n").ok());  // A UTF-16 surrogate.
  EXPECT_TRUE(Parse("a{b=\"caf\xc3\xa9\"} 1\n# HELP b caf\xc3\xa9\nb 1\n").ok());
}

}  // namespace
}  // namespace steward::telemetry

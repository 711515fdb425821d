// Type rules of issue 16 item 3: gaugehistogram in the text format (as prometheus/common expfmt
// reads it), OpenMetrics quantiles in any order, OpenMetrics integer counts.
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

TEST(ExpositionRulesTest, GaugeHistogramInTheTextFormat) {
  // expfmt/text_parse.go readingType tolerates "gaugehistogram"; its samples are named like a
  // histogram's (_bucket, _count, _sum: histogramMetricName) and follow the histogram rules.
  Scrape s = Parse(
      "# HELP q Queue wait.\n"
      "# TYPE q gaugehistogram\n"
      "q_bucket{le=\"1\"} 1\n"
      "q_bucket{le=\"+Inf\"} 3\n"
      "q_count 3\n"
      "q_sum 4.5\n");
  ASSERT_TRUE(s.ok()) << FirstError(s);
  ASSERT_EQ(s.families.size(), 1u);
  EXPECT_EQ(s.families[0].type, MetricType::kGaugeHistogram);
  EXPECT_EQ(s.families[0].sample_count, 4u);
  // Histogram rules apply: +Inf bucket required, _count equal to it, le increasing.
  EXPECT_FALSE(Parse("# TYPE q gaugehistogram\nq_bucket{le=\"1\"} 1\nq_count 1\n").ok());
  Scrape mismatch = Parse("# TYPE q gaugehistogram\nq_bucket{le=\"+Inf\"} 3\nq_count 4\nq_sum 1\n");
  ASSERT_EQ(mismatch.error_count, 1u);
  EXPECT_EQ(mismatch.errors[0].line, 3);
  EXPECT_FALSE(Parse("# TYPE q gaugehistogram\nq_bucket{le=\"2\"} 1\nq_bucket{le=\"1\"} 1\n"
                     "q_bucket{le=\"+Inf\"} 1\n")
                   .ok());
  // A bare sample name is not one of a gauge histogram's.
  EXPECT_FALSE(Parse("# TYPE q gaugehistogram\nq 1\n").ok());
  // OpenMetrics keeps its own names (_gcount, _gsum).
  EXPECT_TRUE(Parse("# TYPE q gaugehistogram\nq_bucket{le=\"+Inf\"} 3\nq_gcount 3\nq_gsum 1\n"
                    "# EOF\n",
                    Dialect::kOpenMetrics)
                  .ok());
}

TEST(ExpositionRulesTest, OpenMetricsQuantilesInAnyOrder) {
  // OpenMetrics.md, Summary: "Quantiles MAY be in any order."
  const std::string om =
      "# TYPE s summary\n"
      "s{quantile=\"0.9\"} 2\n"
      "s{quantile=\"0.5\"} 1\n"
      "s{quantile=\"0.99\"} 3\n"
      "s_count 10\n"
      "s_sum 12\n"
      "# EOF\n";
  Scrape s = Parse(om, Dialect::kOpenMetrics);
  ASSERT_TRUE(s.ok()) << FirstError(s);
  EXPECT_EQ(s.samples.size(), 5u);
  // Still one value per quantile, and within [0, 1].
  EXPECT_FALSE(Parse("# TYPE s summary\ns{quantile=\"0.5\"} 1\ns{quantile=\"0.5\"} 2\n# EOF\n",
                     Dialect::kOpenMetrics)
                   .ok());
  EXPECT_FALSE(
      Parse("# TYPE s summary\ns{quantile=\"1.5\"} 1\n# EOF\n", Dialect::kOpenMetrics).ok());
  // The 0.0.4 format itself asks for increasing quantiles (exposition_formats.md).
  EXPECT_FALSE(Parse("# TYPE s summary\ns{quantile=\"0.9\"} 2\ns{quantile=\"0.5\"} 1\n").ok());
}

TEST(ExpositionRulesTest, OpenMetricsCountsAndBucketsAreIntegers) {
  auto om = [](std::string body) { return Parse(body + "# EOF\n", Dialect::kOpenMetrics); };
  // An integral value may carry a decimal point (the specification's examples write 17.0).
  EXPECT_TRUE(om("# TYPE h histogram\nh_bucket{le=\"1.0\"} 1.0\nh_bucket{le=\"+Inf\"} 17.0\n"
                 "h_count 17.0\nh_sum 3.5\n")
                  .ok());
  Scrape bucket =
      om("# TYPE h histogram\nh_bucket{le=\"1.0\"} 0.5\nh_bucket{le=\"+Inf\"} 2\n"
         "h_count 2\nh_sum 1\n");
  ASSERT_EQ(bucket.error_count, 1u) << FirstError(bucket);
  EXPECT_EQ(bucket.errors[0].line, 2);
  EXPECT_FALSE(om("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2.5\nh_count 2.5\nh_sum 1\n").ok());
  EXPECT_FALSE(om("# TYPE h histogram\nh_bucket{le=\"+Inf\"} +Inf\nh_count +Inf\nh_sum 1\n").ok());
  EXPECT_FALSE(om("# TYPE g gaugehistogram\ng_bucket{le=\"+Inf\"} 0.5\ng_gcount 0.5\n").ok());
  EXPECT_FALSE(om("# TYPE s summary\ns_count 1.5\ns_sum 2\n").ok());
  // Sums and quantile values are not counts.
  EXPECT_TRUE(om("# TYPE s summary\ns{quantile=\"0.5\"} 0.25\ns_count 2\ns_sum 0.75\n").ok());
  // The 0.0.4 format has no such rule (expfmt keeps a float bucket count).
  EXPECT_TRUE(Parse("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2.5\nh_count 2.5\n").ok());
}

}  // namespace
}  // namespace steward::telemetry

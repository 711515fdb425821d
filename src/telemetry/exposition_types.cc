#include "telemetry/exposition_types.h"

namespace steward::telemetry::expo {

std::optional<MetricType> ParseMetricType(std::string_view t, bool om) {
  if (t == "counter") return MetricType::kCounter;
  if (t == "gauge") return MetricType::kGauge;
  if (t == "histogram") return MetricType::kHistogram;
  if (t == "summary") return MetricType::kSummary;
  // expfmt tolerates "gaugehistogram" in the text format (the Prometheus server's scrape
  // parser, textparse/promparse.go, does not; docs/telemetry.md).
  if (t == "gaugehistogram") return MetricType::kGaugeHistogram;
  if (!om) {
    if (t == "untyped") return MetricType::kUntyped;
    return std::nullopt;
  }
  if (t == "stateset") return MetricType::kStateset;
  if (t == "info") return MetricType::kInfo;
  if (t == "unknown") return MetricType::kUnknown;
  return std::nullopt;
}

SuffixRule SuffixesFor(MetricType type, bool om) {
  static constexpr std::string_view kOmCounter[] = {"_total", "_created"};
  static constexpr std::string_view kHistogram[] = {"_bucket", "_count", "_sum"};
  static constexpr std::string_view kOmHistogram[] = {"_bucket", "_count", "_sum", "_created"};
  static constexpr std::string_view kSummary[] = {"_count", "_sum"};
  static constexpr std::string_view kOmSummary[] = {"_count", "_sum", "_created"};
  static constexpr std::string_view kOmGaugeHistogram[] = {"_bucket", "_gcount", "_gsum"};
  static constexpr std::string_view kInfo[] = {"_info"};
  switch (type) {
    case MetricType::kCounter:
      if (om) return {false, kOmCounter};
      return {true, {}};
    case MetricType::kHistogram:
      return {false, om ? std::span<const std::string_view>(kOmHistogram)
                        : std::span<const std::string_view>(kHistogram)};
    case MetricType::kGaugeHistogram:
      // In 0.0.4 a gauge histogram is written like a histogram (expfmt's histogramMetricName).
      return {false, om ? std::span<const std::string_view>(kOmGaugeHistogram)
                        : std::span<const std::string_view>(kHistogram)};
    case MetricType::kSummary:
      return {true, om ? std::span<const std::string_view>(kOmSummary)
                       : std::span<const std::string_view>(kSummary)};
    case MetricType::kInfo:
      return {false, kInfo};
    default:
      return {true, {}};
  }
}

std::optional<std::string_view> OwnedSuffix(std::string_view family, MetricType type, bool om,
                                            std::string_view sample) {
  if (sample.size() < family.size() || sample.compare(0, family.size(), family) != 0) {
    return std::nullopt;
  }
  std::string_view rest = sample.substr(family.size());
  SuffixRule rule = SuffixesFor(type, om);
  if (rest.empty()) return rule.bare ? std::optional<std::string_view>("") : std::nullopt;
  for (std::string_view s : rule.suffixes) {
    if (rest == s) return s;
  }
  return std::nullopt;
}

std::span<const std::string_view> AllSuffixes() {
  static constexpr std::string_view kAll[] = {"_bucket",  "_count",  "_sum",  "_total",
                                              "_created", "_gcount", "_gsum", "_info"};
  return kAll;
}

}  // namespace steward::telemetry::expo

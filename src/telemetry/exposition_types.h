// Metric types and which sample names a family of each type owns, per dialect. Internal to the
// telemetry module (the public API is telemetry/exposition.h).
//
//   std::optional<MetricType> t = expo::ParseMetricType("gaugehistogram", /*om=*/false);
//   expo::OwnedSuffix("x", MetricType::kHistogram, false, "x_bucket")  // == "_bucket"
//   expo::BaseNameCandidates("x_bucket")                            // "x" for each known suffix
//
// Sources: the 0.0.4 types in prometheus/docs exposition_formats.md; gaugehistogram in 0.0.4 as
// prometheus/common expfmt/text_parse.go (readingType, histogramMetricName) reads it, with the
// histogram suffixes _bucket/_count/_sum; OpenMetrics 1.0 specification/OpenMetrics.md
// ("Suffixes": counter _total/_created, gaugehistogram _gcount/_gsum, info _info). Pure
// functions; constant time.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "telemetry/exposition.h"

namespace steward::telemetry::expo {

// The type named by a TYPE line. Prometheus text: counter, gauge, histogram, summary, untyped,
// gaugehistogram. OpenMetrics: counter, gauge, histogram, gaugehistogram, summary, stateset,
// info, unknown. Exact lowercase spelling.
std::optional<MetricType> ParseMetricType(std::string_view t, bool om);

struct SuffixRule {
  bool bare = false;  // The family's own name is a sample name.
  std::span<const std::string_view> suffixes;
};
// Which sample names a family of `type` owns: its bare name and/or name + suffix.
SuffixRule SuffixesFor(MetricType type, bool om);

// The suffix of sample name `sample` relative to `family` if that family (of `type`) owns it
// ("" = the bare name), else nullopt.
std::optional<std::string_view> OwnedSuffix(std::string_view family, MetricType type, bool om,
                                            std::string_view sample);

// Every suffix some type owns: a sample name ending in one of these may belong to the family
// named by the rest (OwnedSuffix decides).
std::span<const std::string_view> AllSuffixes();

}  // namespace steward::telemetry::expo

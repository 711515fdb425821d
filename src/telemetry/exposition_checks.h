// Family-level rules of the exposition formats, checked when a family's group of lines ends:
// histogram buckets, summary quantiles and, in OpenMetrics, value signs, integer counts,
// _sum/_count pairing, per-Metric contiguity and timestamp order. Internal to the telemetry
// module (the public API is telemetry/exposition.h).
//
//   expo::CheckFamily(scrape, scrape.families[i], /*om=*/false, errors);
//
// The samples stay in the Scrape; each error points at the offending sample's line. Sources
// (docs/telemetry.md has the full list): prometheus/docs exposition_formats.md "Histograms and
// summaries" for 0.0.4; OpenObservability/OpenMetrics specification/OpenMetrics.md "Metric
// types" (Histogram, GaugeHistogram, Summary: "Count and bucket values MUST be integers",
// "Quantiles MAY be in any order", buckets "MUST be sorted in number increasing order of le").
// Cost: O(samples × labels) of the family with one ordered map of label-set keys; not
// thread-safe on the same Scrape.
#pragma once

#include "telemetry/exposition.h"
#include "telemetry/exposition_errors.h"

namespace steward::telemetry::expo {

void CheckFamily(const Scrape& scrape, const Family& family, bool om, ErrorSink& errors);

}  // namespace steward::telemetry::expo

// Prometheus text exposition (format 0.0.4) and the OpenMetrics 1.0 points scrapes use:
// a parsed scrape is families, samples and labels in flat vectors.
//
//   std::string text = ReadFile(...);
//   telemetry::Scrape scrape = telemetry::ParseExposition(text);   // text must outlive scrape
//   for (const auto& s : scrape.samples) { ... scrape.LabelValue(s, "UUID") ... }
//   for (const auto& e : scrape.errors) { ... e.line, e.column, e.message ... }
//
// Parsing never stops at a bad line: the line is dropped, an error with its 1-based line and
// column is recorded, and the parser carries on with the next line (a scrape with one broken
// series still yields every other series). Names and label values are string_views into the
// input text; only label values, HELP texts or quoted names with escape sequences are copied
// (unescaped) into storage owned by the Scrape. Prometheus 3's quoted UTF-8 names are read in
// both dialects (`{"my.metric", "label.with.dots"="v"} 1`, `# TYPE "my.metric" counter`) and
// stored unquoted and unescaped, so `{"up"}` and `up` are the same family. See
// docs/telemetry.md for the rules enforced per dialect and their Prometheus sources.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace steward::telemetry {

enum class MetricType : uint8_t {
  kUntyped,
  kCounter,
  kGauge,
  kHistogram,
  kSummary,
  // OpenMetrics types (gaugehistogram is also read in the text format, as expfmt does).
  kGaugeHistogram,
  kStateset,
  kInfo,
  kUnknown,
};
std::string_view MetricTypeName(MetricType type);

enum class Dialect : uint8_t {
  kAuto,            // OpenMetrics if the input's last line is "# EOF", else Prometheus text.
  kPrometheusText,  // text/plain; version=0.0.4 (what dcgm-exporter serves), with UTF-8 names.
  kOpenMetrics,     // application/openmetrics-text; version=1.0.0.
};

struct Label {
  std::string_view name;
  std::string_view value;  // Unescaped.
};

struct Sample {
  std::string_view name;     // The sample's own name, e.g. "x_bucket".
  uint32_t family = 0;       // Index into Scrape::families.
  uint32_t label_begin = 0;  // [label_begin, label_begin + label_count) in Scrape::labels.
  uint32_t label_count = 0;
  double value = 0;
  bool has_timestamp = false;
  int64_t timestamp_ms = 0;  // Milliseconds since the epoch (OpenMetrics seconds are converted).
  int line = 0;              // 1-based line in the input.
};

struct Family {
  std::string_view name;
  MetricType type = MetricType::kUntyped;
  std::string_view help;      // Unescaped.
  std::string_view unit;      // OpenMetrics "# UNIT".
  uint32_t sample_begin = 0;  // Samples of a family are contiguous in Scrape::samples.
  uint32_t sample_count = 0;
  int line = 0;  // Line of its first HELP/TYPE/UNIT or sample.
};

struct ParseError {
  int line = 0;    // 1-based.
  int column = 0;  // 1-based byte column in the line.
  std::string message;
  // "LINE:COL: MESSAGE".
  std::string ToString() const;
};

struct ParseOptions {
  Dialect dialect = Dialect::kAuto;
  // Errors beyond this many are counted (Scrape::error_count) but their messages are not kept,
  // so a garbage input cannot make the parser allocate without bound.
  size_t max_kept_errors = 1000;
};

class Scrape {
 public:
  Scrape() = default;
  Scrape(Scrape&&) = default;
  Scrape& operator=(Scrape&&) = default;
  Scrape(const Scrape&) = delete;
  Scrape& operator=(const Scrape&) = delete;

  std::span<const Label> LabelsOf(const Sample& s) const {
    return {labels.data() + s.label_begin, s.label_count};
  }
  // Value of label `name` on `s`, or `fallback` if the sample has no such label.
  std::string_view LabelValue(const Sample& s, std::string_view name,
                              std::string_view fallback = {}) const;
  bool HasLabel(const Sample& s, std::string_view name) const;
  const Family& FamilyOf(const Sample& s) const { return families[s.family]; }
  bool ok() const { return error_count == 0; }

  Dialect dialect = Dialect::kPrometheusText;  // The dialect actually used.
  std::vector<Family> families;
  std::vector<Sample> samples;
  std::vector<Label> labels;
  std::vector<ParseError> errors;  // At most ParseOptions::max_kept_errors, in line order.
  size_t error_count = 0;          // All errors, kept or not.
  int lines = 0;                   // Lines read.

  // Owns unescaped copies of escaped values (deque: element addresses are stable) and, for
  // ParseExpositionOwned, the input text itself.
  std::deque<std::string> owned_strings;
  std::unique_ptr<std::string> owned_text;
};

// Parses `text`. REQUIRES: `text` outlives the returned Scrape (names and most label values
// point into it). Never fails as a whole: problems are in Scrape::errors.
// Complexity: one pass over the bytes; one hash lookup per family change, not per sample.
Scrape ParseExposition(std::string_view text, const ParseOptions& options = {});

// Like ParseExposition but the Scrape takes ownership of the text.
Scrape ParseExpositionOwned(std::string text, const ParseOptions& options = {});

// Writing: a label value with the text format's escapes (backslash, double quote, newline;
// the same in OpenMetrics), appended to `out` or returned.
void AppendEscapedLabelValue(std::string& out, std::string_view value);
std::string EscapeLabelValue(std::string_view value);

}  // namespace steward::telemetry

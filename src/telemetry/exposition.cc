// The public side of the exposition parser: type names, Scrape accessors, the label-value
// escape for writers, and the entry points. The parser itself is split by concern:
//   exposition_syntax.{h,cc}  numbers, timestamps, quoted strings, escapes, UTF-8;
//   exposition_types.{h,cc}   metric types and the sample names each owns;
//   exposition_labels.{h,cc}  label sets and quoted UTF-8 names;
//   exposition_parser.{h,cc}  the line parser (metadata, samples, exemplars, families);
//   exposition_checks.{h,cc}  family-level rules (histograms, summaries, OpenMetrics values);
//   exposition_errors.h       where errors go (counted, the first N kept).
#include "telemetry/exposition.h"

#include <fmt/format.h>

#include "telemetry/exposition_parser.h"

namespace steward::telemetry {

std::string_view MetricTypeName(MetricType type) {
  switch (type) {
    case MetricType::kUntyped:
      return "untyped";
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
    case MetricType::kSummary:
      return "summary";
    case MetricType::kGaugeHistogram:
      return "gaugehistogram";
    case MetricType::kStateset:
      return "stateset";
    case MetricType::kInfo:
      return "info";
    case MetricType::kUnknown:
      return "unknown";
  }
  return "untyped";
}

std::string ParseError::ToString() const { return fmt::format("{}:{}: {}", line, column, message); }

std::string_view Scrape::LabelValue(const Sample& s, std::string_view name,
                                    std::string_view fallback) const {
  for (const Label& l : LabelsOf(s)) {
    if (l.name == name) return l.value;
  }
  return fallback;
}

bool Scrape::HasLabel(const Sample& s, std::string_view name) const {
  for (const Label& l : LabelsOf(s)) {
    if (l.name == name) return true;
  }
  return false;
}

void AppendEscapedLabelValue(std::string& out, std::string_view value) {
  // Almost every value needs no escape: its clean prefix is appended at once (a dcgm page of
  // 102,400 GPUs escapes about 20 million values).
  size_t clean = 0;
  while (clean < value.size() && value[clean] != '\\' && value[clean] != '"' &&
         value[clean] != '\n')
    ++clean;
  out.append(value.data(), clean);
  for (char c : value.substr(clean)) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out.push_back(c);
    }
  }
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  AppendEscapedLabelValue(out, value);
  return out;
}

Scrape ParseExposition(std::string_view text, const ParseOptions& options) {
  Scrape scrape;
  expo::RunParser(text, options, scrape, nullptr);
  return scrape;
}

Scrape ParseExpositionOwned(std::string text, const ParseOptions& options) {
  auto owned = std::make_unique<std::string>(std::move(text));
  Scrape scrape = ParseExposition(*owned, options);
  scrape.owned_text = std::move(owned);
  return scrape;
}

}  // namespace steward::telemetry

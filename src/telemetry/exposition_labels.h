// Label sets and quoted names of the exposition formats: `{name="value", ...}`, with Prometheus
// 3's quoted UTF-8 names (`{"my.metric", "label.with.dots"="v"}`). Internal to the telemetry
// module (the public API is telemetry/exposition.h).
//
//   expo::LabelReader labels(/*om=*/false, scrape, &work.label_name_compares);
//   expo::SyntaxError err;
//   std::string_view metric_name = "up";        // Empty when the line starts with '{'.
//   if (!labels.ReadSet(line, p, begin, &metric_name, &err)) report(err.column, err.message);
//
// Sources: prometheus/prometheus model/textparse promlex.l (sLabels: a label name is
// [a-zA-Z_][a-zA-Z0-9_]* or a quoted string; a quoted string followed by ',' or '}' is the metric
// name) and promparse.go/openmetricsparse.go parseLVals (one metric name per set; label values
// must be UTF-8); the OpenMetrics 1.0 ABNF for OpenMetrics' one-character separators.
// Cost: linear in the line; the duplicate-name check is pairwise up to 32 labels and a hash
// set past them. Not thread-safe; one per parse.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "telemetry/exposition.h"

namespace steward::telemetry::expo {

// Where and why a line failed: a 0-based byte column in the line and a message.
struct SyntaxError {
  size_t column = 0;
  std::string message;
};

class LabelReader {
 public:
  // Appends labels to out.labels and unescaped copies to out.owned_strings. Counts label name
  // comparisons (and hashings) into *name_compares.
  LabelReader(bool om, Scrape& out, uint64_t* name_compares)
      : om_(om), out_(out), name_compares_(name_compares) {}

  // A quoted metric or label name at line[p] == '"': unescaped, non-empty and valid UTF-8 (what
  // Prometheus' UTF-8 validation scheme asks of a name). On success `p` is past the closing quote.
  bool ReadQuotedName(std::string_view line, size_t& p, std::string_view* name, SyntaxError* err);

  // The label set at line[p] == '{', appended to out.labels (the caller truncates them back to
  // `label_begin` on failure); on success `p` is past '}'. A bare quoted string in the set is
  // the metric name: allowed once, when `metric_name` is non-null and still empty (exemplars
  // pass null: they have no name). Blanks may surround every token in 0.0.4, none in
  // OpenMetrics, which also refuses a trailing comma.
  bool ReadSet(std::string_view line, size_t& p, uint32_t label_begin,
               std::string_view* metric_name, SyntaxError* err);

 private:
  struct SeenNames;
  bool IsDuplicate(uint32_t label_begin, std::string_view name, SeenNames& seen);
  std::string_view Own(std::string s);

  bool om_;
  Scrape& out_;
  uint64_t* name_compares_;
};

}  // namespace steward::telemetry::expo

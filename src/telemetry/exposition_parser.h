// The exposition line parser: metadata lines (# HELP, # TYPE, # UNIT), sample lines with their
// label sets (exposition_labels.h) and (OpenMetrics) exemplars, family resolution; each family
// is checked (exposition_checks.h) when its group of lines ends. Internal to the telemetry module:
// telemetry/exposition.h's ParseExposition is the public entry point.
//
//   expo::ParseWork work;
//   Scrape scrape;
//   expo::RunParser(text, options, scrape, &work);   // work.* grow linearly with the input
//
// Cost: one pass over the bytes; per sample a constant number of hash lookups; per label set a
// duplicate check linear in its labels (a hash set past a few labels); per OpenMetrics TYPE a
// constant number of lookups for name clashes. ParseWork counts these steps so a test can check
// the parser stays linear without timing it. Not thread-safe on one Scrape.
#pragma once

#include <cstdint>
#include <string_view>

#include "telemetry/exposition.h"

namespace steward::telemetry::expo {

// Steps the parser took, by kind (deterministic for a given input).
struct ParseWork {
  uint64_t label_name_compares = 0;  // Label names compared or hashed for the duplicate check.
  uint64_t family_probes = 0;        // Family records looked up or visited.
};

// Parses `text` into `out` (which must be empty). `work` may be null.
void RunParser(std::string_view text, const ParseOptions& options, Scrape& out, ParseWork* work);

}  // namespace steward::telemetry::expo

// The twin report's JSON written to a stream with bounded memory (issue 22): the same bytes as
// ToJson(report).dump(2), but the time series (a year of hourly points is 8,760 objects) is
// built and printed one point at a time instead of as one document.
//
//   twin::WriteJson(report, std::cout);  // == std::cout << twin::ToJson(report).dump(2)
//
// Cost: the report's head as one JSON document plus one series point. Thread-compatible.
#pragma once

#include <ostream>

#include "twin/report.h"

namespace steward::twin {

void WriteJson(const Report& report, std::ostream& out);

}  // namespace steward::twin

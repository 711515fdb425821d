// Ledger time: windows in Unix seconds, OpenCost's `window` grammar, and the mapping from the
// twin's simulated time.
//
// The ledger stores real timestamps (Unix seconds, UTC) so that its `/allocation` answers look
// like OpenCost's. The twin's clock starts at 0, so a simulated instant t maps to
// `epoch + t` where `epoch` is the scenario's start (default 2026-01-01T00:00:00Z, see
// kDefaultScenarioEpoch). Sub-second simulated times are floored to the second.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/status.h"
#include "model/time.h"

namespace steward::cost {

// A half-open interval [start, end) in Unix seconds (UTC).
struct Window {
  int64_t start = 0;
  int64_t end = 0;

  int64_t seconds() const { return end - start; }
  double hours() const { return static_cast<double>(end - start) / 3600.0; }
  bool empty() const { return end <= start; }
  // Seconds shared with `o` (0 when disjoint).
  int64_t OverlapSeconds(const Window& o) const;
  bool operator==(const Window&) const = default;
};

// 2026-01-01T00:00:00Z: where simulated time 0 lands in a ledger unless the scenario says
// otherwise. A fixed, documented date keeps twin ledgers byte-identical between runs.
inline constexpr int64_t kDefaultScenarioEpoch = 1767225600;

int64_t SimToUnixSeconds(SimTime t, int64_t epoch = kDefaultScenarioEpoch);
// The ledger window covering simulated [start, end).
Window SimWindow(SimTime start, SimTime end, int64_t epoch = kDefaultScenarioEpoch);

// "2026-01-01T00:00:00Z".
std::string FormatRfc3339(int64_t unix_seconds);
// Accepts "YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)"; fractions are dropped.
Result<int64_t> ParseRfc3339(std::string_view text);

// A duration such as "30m", "12h", "7d", "1w", "90s" or "1h30m" (OpenCost's step grammar).
Result<int64_t> ParseDurationSeconds(std::string_view text);

// OpenCost's `window` parameter, resolved against `now` (Unix seconds, exclusive: the instant
// just after the last data), with OpenCost's semantics (core/pkg/opencost/window.go):
//   "today", "yesterday"           the UTC day containing now (or the one before)
//   "week", "month"                00:00 Sunday / the 1st of the current month, up to now
//   "lastweek", "lastmonth"        the previous full week (Sunday to Sunday) / month
//   "45m", "24h"                   [now - d, now)
//   "7d", "1w"                     whole UTC days: today plus the 6 days before
//   "45m offset 1h" (any units)    [now - offset - d, now - offset)
//   "1767225600,1767312000"        a Unix-seconds pair (also with '-')
//   "2026-01-01T00:00:00Z,2026-01-02T00:00:00Z"  an RFC 3339 pair
// "The day containing now" is the day of now - 1 s, so that `now` = the exclusive end of a
// ledger whose data stops at midnight selects the day that has the data (OpenCost takes the
// wall clock, where this never matters).
Result<Window> ParseOpenCostWindow(std::string_view text, int64_t now);

}  // namespace steward::cost

#include "cost/window.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ctime>

namespace steward::cost {
namespace {

constexpr int64_t kDay = 86400;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t DayStart(int64_t t) { return FloorDiv(t, kDay) * kDay; }

// Days since 1970-01-01 of a civil date (H. Hinnant's algorithm), so no libc time zone state
// is involved.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

struct Civil {
  int64_t y;
  unsigned m, d;
};
Civil CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp + (mp < 10 ? 3 : -9);
  return {y + (m <= 2), m, d};
}

bool ParseInt(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

int64_t UnitSeconds(char u) {
  switch (u) {
    case 's':
      return 1;
    case 'm':
      return 60;
    case 'h':
      return 3600;
    case 'd':
      return kDay;
    case 'w':
      return 7 * kDay;
    default:
      return 0;
  }
}

// One "<digits><unit>" term, as OpenCost's window durations (no composites).
bool ParseSimpleDuration(std::string_view s, int64_t* n, char* unit) {
  if (s.size() < 2) return false;
  *unit = s.back();
  if (UnitSeconds(*unit) == 0 || *unit == 's') return false;
  return ParseInt(s.substr(0, s.size() - 1), n) && *n >= 0;
}

}  // namespace

int64_t Window::OverlapSeconds(const Window& o) const {
  return std::max<int64_t>(0, std::min(end, o.end) - std::max(start, o.start));
}

int64_t SimToUnixSeconds(SimTime t, int64_t epoch) {
  return epoch + FloorDiv(t.micros(), 1'000'000);
}

Window SimWindow(SimTime start, SimTime end, int64_t epoch) {
  return {SimToUnixSeconds(start, epoch), SimToUnixSeconds(end, epoch)};
}

std::string FormatRfc3339(int64_t t) {
  const int64_t days = FloorDiv(t, kDay);
  const int64_t secs = t - days * kDay;
  const Civil c = CivilFromDays(days);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", c.y, c.m, c.d, secs / 3600,
                     (secs / 60) % 60, secs % 60);
}

Result<int64_t> ParseRfc3339(std::string_view text) {
  const std::string_view s = Trim(text);
  auto bad = [&] {
    return Status::InvalidArgument(
        fmt::format("'{}' is not an RFC 3339 time like 2026-01-01T00:00:00Z", text));
  };
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
      s[13] != ':' || s[16] != ':') {
    return bad();
  }
  int64_t y, mo, d, h, mi, se;
  if (!ParseInt(s.substr(0, 4), &y) || !ParseInt(s.substr(5, 2), &mo) ||
      !ParseInt(s.substr(8, 2), &d) || !ParseInt(s.substr(11, 2), &h) ||
      !ParseInt(s.substr(14, 2), &mi) || !ParseInt(s.substr(17, 2), &se)) {
    return bad();
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return bad();
  size_t i = 19;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  int64_t offset = 0;
  const std::string_view zone = s.substr(i);
  if (zone == "Z" || zone == "z") {
    offset = 0;
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
    int64_t oh, om;
    if (!ParseInt(zone.substr(1, 2), &oh) || !ParseInt(zone.substr(4, 2), &om)) return bad();
    offset = (oh * 3600 + om * 60) * (zone[0] == '-' ? -1 : 1);
  } else {
    return bad();
  }
  return DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * kDay + h * 3600 +
         mi * 60 + se - offset;
}

Result<int64_t> ParseDurationSeconds(std::string_view text) {
  std::string_view s = Trim(text);
  auto bad = [&] {
    return Status::InvalidArgument(
        fmt::format("'{}' is not a duration like 30m, 1h, 1d or 1w", text));
  };
  if (s.empty()) return bad();
  int64_t total = 0;
  while (!s.empty()) {
    size_t i = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == 0 || i == s.size()) return bad();
    int64_t n = 0;
    if (!ParseInt(s.substr(0, i), &n)) return bad();
    const int64_t unit = UnitSeconds(s[i]);
    if (unit == 0) return bad();
    total += n * unit;
    s.remove_prefix(i + 1);
  }
  if (total <= 0) return Status::InvalidArgument(fmt::format("duration '{}' must be > 0", text));
  return total;
}

Result<Window> ParseOpenCostWindow(std::string_view text, int64_t now) {
  const std::string_view w = Trim(text);
  // The day that holds the last data: see the header.
  const int64_t today = DayStart(now - 1);
  if (w == "today") return Window{today, today + kDay};
  if (w == "yesterday") return Window{today - kDay, today};
  // 1970-01-01 was a Thursday: weekday (0 = Sunday) of a day number is (days + 4) mod 7.
  const int64_t weekday = (FloorDiv(today, kDay) % 7 + 7 + 4) % 7;
  if (w == "week") return Window{today - weekday * kDay, now};
  if (w == "lastweek") {
    const int64_t start = today - (weekday + 7) * kDay;
    return Window{start, start + 7 * kDay};
  }
  const Civil c = CivilFromDays(FloorDiv(today, kDay));
  const int64_t month_start = DaysFromCivil(c.y, c.m, 1) * kDay;
  if (w == "month") return Window{month_start, now};
  if (w == "lastmonth") {
    const Civil p = c.m == 1 ? Civil{c.y - 1, 12, 1} : Civil{c.y, c.m - 1, 1};
    return Window{DaysFromCivil(p.y, p.m, 1) * kDay, month_start};
  }
  int64_t n = 0;
  char unit = 0;
  if (ParseSimpleDuration(w, &n, &unit)) {
    const int64_t dur = n * UnitSeconds(unit);
    if (unit == 'd' || unit == 'w') {
      // OpenCost: "the past X days" is today plus the X-1 whole days before it.
      return Window{today + kDay - dur, today + kDay};
    }
    return Window{now - dur, now};
  }
  if (auto pos = w.find(" offset "); pos != std::string_view::npos) {
    int64_t on = 0;
    char ou = 0;
    if (ParseSimpleDuration(Trim(w.substr(0, pos)), &n, &unit) &&
        ParseSimpleDuration(Trim(w.substr(pos + 8)), &on, &ou)) {
      const int64_t end = now - on * UnitSeconds(ou);
      return Window{end - n * UnitSeconds(unit), end};
    }
  }
  // Pairs: "a,b" (or "a-b" for Unix seconds).
  if (auto comma = w.find(','); comma != std::string_view::npos) {
    const std::string_view a = Trim(w.substr(0, comma)), b = Trim(w.substr(comma + 1));
    int64_t s = 0, e = 0;
    if (ParseInt(a, &s) && ParseInt(b, &e)) {
      if (e < s)
        return Status::InvalidArgument(fmt::format("window '{}' ends before it starts", text));
      return Window{s, e};
    }
    auto rs = ParseRfc3339(a);
    auto re = ParseRfc3339(b);
    if (rs.ok() && re.ok()) {
      if (*re < *rs)
        return Status::InvalidArgument(fmt::format("window '{}' ends before it starts", text));
      return Window{*rs, *re};
    }
  }
  if (auto dash = w.find('-'); dash != std::string_view::npos && dash > 0) {
    int64_t s = 0, e = 0;
    if (ParseInt(w.substr(0, dash), &s) && ParseInt(w.substr(dash + 1), &e) && e >= s) {
      return Window{s, e};
    }
  }
  return Status::InvalidArgument(fmt::format(
      "illegal window '{}': use today, yesterday, week, lastweek, month, lastmonth, a duration "
      "(30m, 24h, 7d, 1w), 'D offset D', a Unix-seconds pair or an RFC 3339 pair",
      text));
}

}  // namespace steward::cost

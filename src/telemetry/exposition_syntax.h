// Lexical pieces of the exposition formats, shared by the line parser and the family checks:
// name characters, numbers and timestamps as Prometheus reads them, quoted strings, escapes.
// Internal to the telemetry module (the public API is telemetry/exposition.h).
//
//   double v;
//   if (!expo::ParseNumber("+Inf", &v)) ...                    // Go ParseFloat minus hex/_.
//   expo::QuotedString q = expo::ScanQuoted(line, p);          // line[p] == '"'
//   std::string name = expo::Unescape(q.raw);
//
// Sources: Go's strconv.ParseFloat/ParseInt as prometheus/prometheus model/textparse
// (promparse.go, openmetricsparse.go: parseFloat refuses 'p', 'P' and '_') and prometheus/common
// expfmt/text_parse.go call them; the OpenMetrics 1.0 ABNF (specification/OpenMetrics.md,
// "number", "realnumber", "escaped-string"). Pure functions: thread-safe, no allocation except
// Unescape's result; each is linear in its input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace steward::telemetry::expo {

constexpr bool IsBlank(char c) { return c == ' ' || c == '\t'; }
constexpr bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool IsDigit(char c) { return c >= '0' && c <= '9'; }
// Legacy (unquoted) names: metric [A-Za-z_:][A-Za-z0-9_:]*, label [A-Za-z_][A-Za-z0-9_]*.
constexpr bool IsMetricNameStart(char c) { return IsAlpha(c) || c == '_' || c == ':'; }
constexpr bool IsMetricNameChar(char c) { return IsMetricNameStart(c) || IsDigit(c); }
constexpr bool IsLabelNameStart(char c) { return IsAlpha(c) || c == '_'; }
constexpr bool IsLabelNameChar(char c) { return IsLabelNameStart(c) || IsDigit(c); }

bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// A sample value as Go's strconv.ParseFloat reads it with Prometheus' extra refusal of 'p', 'P'
// and '_' (so no hex floats and no digit separators): an optional sign, then digits with at most
// one '.' and at least one digit, then an optional exponent [eE][+-]?digits; or, in any case,
// [+-]inf, [+-]infinity, or nan without a sign. A magnitude past the double range is refused
// (Go's ErrRange); one below it reads as zero, as Go rounds it. This is also exactly the
// OpenMetrics "number" rule. Refused: "-NaN", "+nan", "+-5", "1e", ".", "0x10", "1_0", "1e400".
bool ParseNumber(std::string_view s, double* out);

// The decimal part of the above without inf/nan: OpenMetrics' "realnumber" (its timestamps).
bool ParseRealNumber(std::string_view s, double* out);

// A decimal int64 as Go's strconv.ParseInt(s, 10, 64) reads it: [+-]?[0-9]+ within range.
bool ParseInt64(std::string_view s, int64_t* out);

// A double-quoted string starting at line[p] == '"'. `raw` is the bytes between the quotes,
// escapes undecoded; `end` is just past the closing quote. ok = false when the line ends first
// (then `end` is line.size()). A backslash always takes the next byte with it, so \" does not
// close the string.
struct QuotedString {
  bool ok = false;
  bool escaped = false;    // raw contains a backslash.
  bool non_ascii = false;  // raw contains a byte >= 0x80 (UTF-8 validity worth checking).
  std::string_view raw;
  size_t end = 0;
};
QuotedString ScanQuoted(std::string_view line, size_t p);

// Decodes \\, \" and \n (label values, quoted names, HELP texts; in 0.0.4 HELP too, as
// prometheus/common expfmt reads it). Any other escape keeps both bytes, as Prometheus' scrape
// parser (textparse's unreplace) does.
std::string Unescape(std::string_view raw);

// Whether `s` is well-formed UTF-8 (as Go's utf8.ValidString: no overlong forms, surrogates or
// code points past U+10FFFF).
bool IsValidUtf8(std::string_view s);

}  // namespace steward::telemetry::expo

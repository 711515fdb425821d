#include "telemetry/exposition_syntax.h"

#include <charconv>
#include <limits>

namespace steward::telemetry::expo {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

namespace {

// Digits, one optional '.', at least one digit, then an optional [eE][+-]?digits. No sign.
bool IsDecimalSyntax(std::string_view s) {
  size_t i = 0, digits = 0;
  while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && IsDigit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

// For a decimal that from_chars found out of range: true if it is too large (Go: ErrRange),
// false if too small (Go rounds it to zero). Decided from the position of the first non-zero
// digit plus the exponent; out-of-range values are hundreds of decades from the boundary.
bool IsOverflow(std::string_view s) {
  int64_t magnitude = 0;  // Decimal exponent of the first significant digit, roughly.
  bool seen_nonzero = false, after_point = false;
  size_t i = 0;
  for (; i < s.size() && (IsDigit(s[i]) || s[i] == '.'); ++i) {
    if (s[i] == '.') {
      after_point = true;
    } else if (!seen_nonzero) {
      if (s[i] != '0') {
        seen_nonzero = true;
        if (!after_point) magnitude = 1;
      } else if (after_point) {
        --magnitude;
      }
    } else if (!after_point) {
      if (magnitude < 100000) ++magnitude;
    }
  }
  if (!seen_nonzero) return false;
  int64_t exp = 0;
  bool neg = false;
  if (i < s.size()) {  // 'e' or 'E'.
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    for (; i < s.size(); ++i) {
      if (exp < 100000) exp = exp * 10 + (s[i] - '0');  // Capped, as Go caps it.
    }
  }
  return magnitude + (neg ? -exp : exp) > 0;
}

bool ParseDecimal(std::string_view s, bool neg, double* out) {
  if (!IsDecimalSyntax(s)) return false;
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) {
    if (IsOverflow(s)) return false;
    v = 0;
  } else if (ec != std::errc() || ptr != s.data() + s.size()) {
    return false;
  }
  *out = neg ? -v : v;
  return true;
}

}  // namespace

bool ParseNumber(std::string_view s, double* out) {
  if (s.empty()) return false;
  std::string_view rest = s;
  bool neg = false, signed_ = false;
  if (rest[0] == '+' || rest[0] == '-') {
    neg = rest[0] == '-';
    signed_ = true;
    rest.remove_prefix(1);
  }
  if (rest.empty()) return false;
  if (!IsDigit(rest[0]) && rest[0] != '.') {
    if (EqualsIgnoreCase(rest, "inf") || EqualsIgnoreCase(rest, "infinity")) {
      *out =
          neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
      return true;
    }
    // Go reads "nan" only unsigned (strconv's special()); so does the OpenMetrics ABNF.
    if (!signed_ && EqualsIgnoreCase(rest, "nan")) {
      *out = std::numeric_limits<double>::quiet_NaN();
      return true;
    }
    return false;
  }
  return ParseDecimal(rest, neg, out);
}

bool ParseRealNumber(std::string_view s, double* out) {
  if (s.empty()) return false;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  return ParseDecimal(s, neg, out);
}

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  bool plus = s[0] == '+';
  if (plus) s.remove_prefix(1);
  // from_chars takes a '-' itself; after a '+' nothing but digits may follow.
  if (s.empty() || (plus && !IsDigit(s[0]))) return false;
  if (s[0] == '-' && (s.size() == 1 || !IsDigit(s[1]))) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

QuotedString ScanQuoted(std::string_view line, size_t p) {
  QuotedString q;
  size_t start = ++p;  // Past the opening quote.
  unsigned char high = 0;
  while (p < line.size() && line[p] != '"') {
    high |= static_cast<unsigned char>(line[p]);
    if (line[p] == '\\') {
      q.escaped = true;
      ++p;
      if (p < line.size()) high |= static_cast<unsigned char>(line[p]);
    }
    ++p;
  }
  q.non_ascii = (high & 0x80) != 0;
  if (p >= line.size()) {
    q.raw = line.substr(start);
    q.end = line.size();
    return q;
  }
  q.ok = true;
  q.raw = line.substr(start, p - start);
  q.end = p + 1;
  return q;
}

std::string Unescape(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '\\' && i + 1 < raw.size()) {
      char n = raw[i + 1];
      if (n == '\\' || n == '"') {
        out.push_back(n);
        ++i;
        continue;
      }
      if (n == 'n') {
        out.push_back('\n');
        ++i;
        continue;
      }
    }
    out.push_back(c);
  }
  return out;
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;  // Continuation byte, or a lead byte of an overlong/out-of-range form.
    }
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += len;
  }
  return true;
}

}  // namespace steward::telemetry::expo

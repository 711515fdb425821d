#include "govern/quantity.h"

#include <fmt/format.h>

#include <cctype>

namespace steward::govern {
namespace {

using Int128 = __int128;
constexpr Int128 kMax = std::numeric_limits<Amount>::max();

// Multiplier of a suffix as (numerator, denominator), so "m" is 1/1000 without floating point.
bool SuffixScale(std::string_view s, Int128* num, Int128* den) {
  *num = 1;
  *den = 1;
  if (s.empty()) return true;
  auto pow = [](Int128 b, int e) {
    Int128 r = 1;
    for (int i = 0; i < e; ++i) r *= b;
    return r;
  };
  static constexpr std::string_view kBin[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  static constexpr std::string_view kDec[] = {"k", "M", "G", "T", "P", "E"};
  for (int i = 0; i < 6; ++i) {
    if (s == kBin[i]) return *num = pow(1024, i + 1), true;
    if (s == kDec[i]) return *num = pow(1000, i + 1), true;
  }
  if (s == "m") return *den = 1000, true;
  if (s == "u") return *den = 1000000, true;
  if (s == "n") return *den = 1000000000, true;
  return false;
}

}  // namespace

bool IsMilliResource(std::string_view resource) { return resource == "cpu"; }

Result<Amount> ParseQuantity(std::string_view text, std::string_view resource) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(fmt::format("invalid quantity \"{}\": {}", text, why));
  };
  size_t i = 0;
  if (i < text.size() && text[i] == '+') ++i;
  if (i < text.size() && text[i] == '-') return bad("negative");
  Int128 mantissa = 0;
  int frac_digits = 0;
  bool any_digit = false, seen_dot = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      any_digit = true;
      if (mantissa > kMax * 10) return bad("too large");
      mantissa = mantissa * 10 + (c - '0');
      if (seen_dot) ++frac_digits;
      if (frac_digits > 18) return bad("too many decimals");
    } else if (c == '.' && !seen_dot) {
      seen_dot = true;
    } else {
      break;
    }
  }
  if (!any_digit) return bad("no digits");
  std::string_view rest = text.substr(i);
  Int128 num = 1, den = 1;
  // Decimal exponent "1e3" / "1E3"; a bare "E" is the exa suffix.
  if (rest.size() >= 2 && (rest[0] == 'e' || rest[0] == 'E') &&
      (std::isdigit(static_cast<unsigned char>(rest[1])) || rest[1] == '-' || rest[1] == '+')) {
    int sign = 1;
    size_t j = 1;
    if (rest[j] == '-' || rest[j] == '+') sign = rest[j++] == '-' ? -1 : 1;
    int e = 0;
    if (j >= rest.size()) return bad("empty exponent");
    for (; j < rest.size(); ++j) {
      if (!std::isdigit(static_cast<unsigned char>(rest[j]))) return bad("bad exponent");
      e = e * 10 + (rest[j] - '0');
      if (e > 30) return bad("exponent out of range");
    }
    for (int k = 0; k < e; ++k) (sign > 0 ? num : den) *= 10;
  } else if (!SuffixScale(rest, &num, &den)) {
    return bad(fmt::format("unknown suffix \"{}\"", rest));
  }
  for (int k = 0; k < frac_digits; ++k) den *= 10;
  if (IsMilliResource(resource)) num *= 1000;
  // value = mantissa * num / den, rounded up.
  if (num != 0 && mantissa > (kMax * den) / num + 1) return bad("too large");
  Int128 v = mantissa * num;
  Int128 q = v / den + (v % den != 0 ? 1 : 0);
  if (q > kMax) return bad("too large");
  return static_cast<Amount>(q);
}

std::string FormatQuantity(Amount amount, std::string_view resource) {
  if (amount == kUnlimited) return "unlimited";
  if (IsMilliResource(resource)) {
    if (amount % 1000 == 0) return fmt::format("{}", amount / 1000);
    return fmt::format("{}m", amount);
  }
  if (resource == "memory" || resource == "ephemeral-storage" ||
      resource.starts_with("hugepages-")) {
    static constexpr std::string_view kBin[] = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
    for (int i = 0; i < 6; ++i) {
      Amount unit = Amount{1} << (10 * (6 - i));
      if (amount != 0 && amount % unit == 0) return fmt::format("{}{}", amount / unit, kBin[i]);
    }
  }
  return fmt::format("{}", amount);
}

double CanonicalValue(Amount amount, std::string_view resource) {
  if (IsMilliResource(resource)) return static_cast<double>(amount) / 1000.0;
  return static_cast<double>(amount);
}

}  // namespace steward::govern

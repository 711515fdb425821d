#include "cli/flag_checks.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>

namespace steward::cli {
namespace {

// A validator that parses the flag's value as a number and asks `ok`; `want` completes
// "must be ...". NaN is refused everywhere a range is meant.
CLI::Validator NumberCheck(std::string name, std::string want, std::function<bool(double)> ok) {
  return CLI::Validator(
      [want, ok = std::move(ok)](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v)) return fmt::format("'{}' is not a number", text);
        if (std::isnan(v) || !ok(v)) return fmt::format("must be {}, got {}", want, text);
        return "";
      },
      want, std::move(name));
}

}  // namespace

CLI::Validator NonNegative() {
  return NumberCheck("NONNEGATIVE", "at least 0", [](double v) { return v >= 0; });
}

CLI::Validator Positive() {
  return NumberCheck("POSITIVE", "greater than 0", [](double v) { return v > 0; });
}

CLI::Validator Between(double lo, double hi) {
  return NumberCheck("RANGE", fmt::format("between {:g} and {:g}", lo, hi),
                     [lo, hi](double v) { return v >= lo && v <= hi; });
}

}  // namespace steward::cli

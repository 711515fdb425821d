// Range checks for numeric flags whose errors read like a person wrote them.
//
// CLI11's PositiveNumber and NonNegativeNumber are Ranges up to DBL_MAX: `--days -5` printed
// "Value -5 not in range 0.000000 to 1797693134862315708145274237317043567980705675258449965...".
// These say "--days: must be greater than 0, got -5" instead.
//
//   cmd->add_option("--days", days, "Simulated days")->check(NonNegative());
//   cmd->add_option("--fraction", f, "Share of nodes")->check(Between(0, 1));
//
// Cost: one number parse per flag use. Thread-safety: none needed (runs while parsing flags).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace steward::cli {

// value >= 0.
CLI::Validator NonNegative();
// value > 0.
CLI::Validator Positive();
// lo <= value <= hi.
CLI::Validator Between(double lo, double hi);

}  // namespace steward::cli

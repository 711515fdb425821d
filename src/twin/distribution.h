// A random quantity in a scenario: a constant, or a distribution to draw from.
//   duration_hours: 4                                   -> constant
//   duration_hours: {dist: lognormal, median: 2, sigma: 1.2, min: 0.1, max: 72}
//   gpus_per_pod:   {dist: choice, values: [1, 2, 4, 8], weights: [60, 15, 10, 15]}
//   sm_active:      {dist: uniform, min: 0.2, max: 0.6}
//   duration_hours: {dist: exponential, mean: 3}
#pragma once

#include <string>
#include <vector>

#include "twin/rng.h"

namespace steward::twin {

struct Distribution {
  enum class Kind { kConstant, kUniform, kExponential, kLogNormal, kChoice };
  Kind kind = Kind::kConstant;
  double value = 0;                     // kConstant.
  double mean = 0;                      // kExponential.
  double median = 0, sigma = 0;         // kLogNormal.
  std::vector<double> values, weights;  // kChoice (weights need not sum to 1).
  // Bounds: the range of kUniform, and a clamp for every other kind when set.
  double min = -1e300, max = 1e300;

  static Distribution Constant(double v) {
    Distribution d;
    d.value = v;
    return d;
  }
  double Sample(Rng& rng) const;
  // The distribution's mean (for documentation and sanity checks; clamping ignored).
  double Mean() const;
};

}  // namespace steward::twin

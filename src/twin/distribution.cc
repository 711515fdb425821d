#include "twin/distribution.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace steward::twin {

double Distribution::Sample(Rng& rng) const {
  double x = 0;
  switch (kind) {
    case Kind::kConstant:
      return value;
    case Kind::kUniform:
      return min + (max - min) * rng.Uniform();
    case Kind::kExponential:
      x = rng.Exponential(mean);
      break;
    case Kind::kLogNormal:
      x = rng.LogNormal(median, sigma);
      break;
    case Kind::kChoice: {
      const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
      double r = rng.Uniform() * total;
      for (size_t i = 0; i < values.size(); ++i) {
        r -= weights[i];
        if (r < 0) return values[i];
      }
      return values.back();
    }
  }
  return std::clamp(x, min, max);
}

double Distribution::Mean() const {
  switch (kind) {
    case Kind::kConstant:
      return value;
    case Kind::kUniform:
      return (min + max) / 2;
    case Kind::kExponential:
      return mean;
    case Kind::kLogNormal:
      return median * std::exp(sigma * sigma / 2);
    case Kind::kChoice: {
      double total = 0, sum = 0;
      for (size_t i = 0; i < values.size(); ++i) {
        total += weights[i];
        sum += weights[i] * values[i];
      }
      return total > 0 ? sum / total : 0;
    }
  }
  return 0;
}

}  // namespace steward::twin

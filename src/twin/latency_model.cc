#include "twin/latency_model.h"

#include <algorithm>

namespace steward::twin {

double P99LatencyMs(const LatencySpec& spec, double rps, double replicas, double capacity) {
  if (rps <= 0) return spec.base_p99_ms;
  if (replicas <= 0) return spec.timeout_ms;
  const double rho = rps / (replicas * capacity);
  if (rho >= 1) return spec.timeout_ms;
  return std::min(spec.timeout_ms, spec.base_p99_ms / (1 - rho));
}

}  // namespace steward::twin

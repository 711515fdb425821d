#include "twin/latency_model.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace steward::twin {

double P99LatencyMs(const LatencySpec& spec, double rps, double replicas, double capacity) {
  if (rps <= 0) return spec.base_p99_ms;
  if (replicas <= 0) return spec.timeout_ms;
  const double rho = rps / (replicas * capacity);
  if (rho >= 1) return spec.timeout_ms;
  return std::min(spec.timeout_ms, spec.base_p99_ms / (1 - rho));
}

double MixtureP99LatencyMs(const LatencySpec& spec, double rps,
                           std::span<const ReplicaGroup> groups, double capacity) {
  int replicas = 0;
  for (const ReplicaGroup& g : groups) replicas += std::max(0, g.replicas);
  if (replicas <= 0) return rps > 0 ? spec.timeout_ms : spec.base_p99_ms;
  // Per replica, in ms: the idle replica's rate ln(100) / base_p99_ms, scaled by its factor,
  // less the arrivals it gets.
  const double per_replica = rps / replicas;
  const double ln100 = std::log(100.0);
  struct Part {
    double weight, rate, wait, wait_share;  // rate <= 0: times out.
  };
  std::vector<Part> parts;
  double lo = spec.timeout_ms, hi = 0;
  for (const ReplicaGroup& g : groups) {
    if (g.replicas <= 0) continue;
    const double rho = per_replica / (g.rate_factor * capacity);
    const double rate = rho >= 1 ? 0 : g.rate_factor * ln100 / spec.base_p99_ms * (1 - rho);
    const double share = std::clamp(g.wait_share, 0.0, 1.0);
    parts.push_back({static_cast<double>(g.replicas) / replicas, rate, g.wait_ms, share});
    // The mixture's quantile lies between its parts' own p99s.
    const double own = rate <= 0 ? spec.timeout_ms : ln100 / rate;
    lo = std::min(lo, own);
    hi = std::max(hi, own + (share > 0 ? g.wait_ms : 0));
  }
  auto tail = [&](double t) {  // P(T > t) of the fleet.
    double s = 0;
    for (const Part& p : parts) {
      if (p.rate <= 0) {
        s += p.weight;
        continue;
      }
      double part = (1 - p.wait_share) * std::exp(-p.rate * t);
      if (p.wait_share > 0)
        part += p.wait_share * (t < p.wait ? 1.0 : std::exp(-p.rate * (t - p.wait)));
      s += p.weight * part;
    }
    return s;
  };
  hi = std::min(hi, spec.timeout_ms);
  if (tail(hi) > 0.01) return spec.timeout_ms;  // Timed-out replicas hold more than 1 %.
  lo = std::min(lo, hi);
  for (int i = 0; i < 64 && hi - lo > 1e-9 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (tail(mid) > 0.01 ? lo : hi) = mid;
  }
  return std::min(spec.timeout_ms, hi);
}

}  // namespace steward::twin

// The latency of an inference service as its per-replica load rises (LatencySpec, "mm1").
//
//   double p99 = P99LatencyMs(spec.latency, rps, ready_replicas, spec.capacity_per_replica);
//   double p99 = MixtureP99LatencyMs(spec.latency, rps, groups, spec.capacity_per_replica);
//
// Each ready replica is an M/M/1 queue fed rps / replicas: its response time is exponential
// with rate mu (1 - rho), so p99 = ln(100) / (mu (1 - rho)) = base_p99_ms / (1 - rho), with
// rho = rps / (replicas x capacity). Convex in the load: a service sized for 60 % has 2.5x its
// idle p99; at 90 %, 10x. At rho >= 1 (or with no ready replica while requests arrive) the
// queue grows without bound and requests time out: timeout_ms. O(1), pure.
//
// Replicas that are not alike (a noisy neighbour slows some, twin/interference.h): the load
// balancer still sends each ready replica rps / replicas (round robin), and replica i, an
// M/M/1 queue with rate f_i mu, answers in Exp(a_i) time, a_i = f_i mu (1 - rho_i),
// rho_i = rps / (replicas f_i mu), plus wait_ms for a wait_share of its requests. The fleet's
// response time is the mixture of those, and its p99 is the t solving
// sum_i w_i P(T_i > t) = 0.01 (w_i = 1 / replicas; bisection). A replica at rho_i >= 1 times out
// (P(T_i > t) = 1 below timeout_ms). O(groups x 64), pure.
#pragma once

#include <span>

#include "twin/serving_spec.h"

namespace steward::twin {

// REQUIRES: capacity > 0, rps >= 0, replicas >= 0.
double P99LatencyMs(const LatencySpec& spec, double rps, double replicas, double capacity);

// Ready replicas alike under interference: their service-rate factor (in (0, 1]) and the extra
// wait a share of their requests meets.
struct ReplicaGroup {
  int replicas = 0;
  double rate_factor = 1;
  double wait_ms = 0;
  double wait_share = 0;  // In [0, 1].
  bool slowed() const { return rate_factor < 1 || (wait_share > 0 && wait_ms > 0); }
};

// The p99 of a fleet of unlike replicas (above). With one group of factor 1 and no wait it
// equals P99LatencyMs up to the bisection's precision (1e-9 relative).
// REQUIRES: capacity > 0, rps >= 0, every rate_factor > 0.
double MixtureP99LatencyMs(const LatencySpec& spec, double rps,
                           std::span<const ReplicaGroup> groups, double capacity);

}  // namespace steward::twin

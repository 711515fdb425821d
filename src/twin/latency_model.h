// The latency of an inference service as its per-replica load rises (LatencySpec, "mm1").
//
//   double p99 = P99LatencyMs(spec.latency, rps, ready_replicas, spec.capacity_per_replica);
//
// Each ready replica is an M/M/1 queue fed rps / replicas: its response time is exponential
// with rate mu (1 - rho), so p99 = ln(100) / (mu (1 - rho)) = base_p99_ms / (1 - rho), with
// rho = rps / (replicas x capacity). Convex in the load: a service sized for 60 % has 2.5x its
// idle p99; at 90 %, 10x. At rho >= 1 (or with no ready replica while requests arrive) the
// queue grows without bound and requests time out: timeout_ms. O(1), pure.
#pragma once

#include "twin/serving_spec.h"

namespace steward::twin {

// REQUIRES: capacity > 0, rps >= 0, replicas >= 0.
double P99LatencyMs(const LatencySpec& spec, double rps, double replicas, double capacity);

}  // namespace steward::twin

// What an inference service does with its traffic (issue 19, docs/tidal.md): the request-rate
// curve, what one replica serves, how latency rises with load, the latency objective and the
// autoscaler that sizes it. Opt-in per generator (`traffic:` in the scenario); a service without
// it keeps the twin's hourly diurnal replica curve. Plain data: parsed once in
// scenario_serving.cc, read by twin/traffic.h, twin/latency_model.h and twin/hpa.h.
#pragma once

#include <filesystem>
#include <utility>
#include <vector>

namespace steward::twin {

// The request rate over time: a day curve (cosine between the trough and the peak), a weekly
// factor, multiplicative noise and random bursts; or a replayed CSV.
struct TrafficSpec {
  double peak_rps = 0;           // Requests per second at the daily peak (0 = no traffic model).
  double trough_fraction = 0.4;  // Rate at the trough / rate at the peak, in (0, 1].
  double peak_hour = 14;         // Hour of the peak; the trough is twelve hours later.
  double weekend_factor = 1;     // Saturdays and Sundays (days 5 and 6 of a week) scale by this.
  double noise = 0;              // Std. deviation of the multiplicative noise, per noise step.
  double noise_minutes = 5;      // The noise is redrawn every this many minutes.
  double bursts_per_day = 0;     // Poisson bursts per day ...
  double burst_factor = 1.5;     // ... multiply the rate by this ...
  double burst_minutes = 20;     // ... for this long.
  // Replay: `seconds,rps` rows (header required), held from one row to the next; the last row
  // holds to the end. Relative to the scenario. Replaces the curve above.
  std::filesystem::path csv;
  double csv_scale = 1;                           // Multiplies the replayed rates.
  std::vector<std::pair<double, double>> points;  // (seconds, rps), loaded from csv.
  bool enabled() const { return peak_rps > 0 || !csv.empty(); }
};

// Latency of one replica as its load rises. "mm1": each replica is an M/M/1 queue, so its
// response time is exponential with rate mu(1 - rho) and every quantile scales with
// 1 / (1 - rho): p99(rho) = base_p99_ms / (1 - rho), rho = rps / (ready replicas x capacity).
// At rho >= 1 (or no ready replica) requests queue without bound: p99 = timeout_ms.
struct LatencySpec {
  double base_p99_ms = 50;  // p99 of an idle replica (ln(100) x the mean service time).
  double timeout_ms = 30000;
};

// The Horizontal Pod Autoscaler, with its upstream defaults (kubernetes/kubernetes
// pkg/apis/autoscaling/v2/defaults.go and the controller flags, ../shared/docs/tidal-facts.md
// §1.2): sync every 15 s, tolerance 0.1, scale-up max(4 pods, 100 %) per 15 s, scale-down
// stabilized over 300 s (100 % per 15 s). The metric is requests per second per ready replica;
// its target is target_utilization x capacity_per_replica.
struct AutoscalerSpec {
  double target_utilization = 0.6;  // Per-replica load the autoscaler aims for, in (0, 1].
  double sync_seconds = 15;
  double tolerance = 0.1;
  int scale_up_pods = 4;
  double scale_up_percent = 100;
  double scale_up_period_seconds = 15;
  double scale_down_stabilization_seconds = 300;
};

struct ServingSpec {
  TrafficSpec traffic;
  double capacity_per_replica = 0;  // Requests per second one replica sustains (mu).
  LatencySpec latency;
  double slo_p99_ms = 0;  // The p99 latency objective; 0 = none (no SLO minutes counted).
  AutoscalerSpec autoscaler;
  bool enabled() const { return traffic.enabled(); }
};

}  // namespace steward::twin

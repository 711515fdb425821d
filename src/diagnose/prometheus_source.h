// Prometheus as a diagnosis source: PromQL range queries (telemetry::PrometheusClient) for the
// DCGM fields and the kube-state-metrics families of kube_state_metrics.h, assembled into one
// snapshot per step.
//
// Every query reads `last_over_time(SERIES[lookback])` at each step: the latest sample within
// the lookback, never older. The lookback must cover the scrape interval and stay below the
// step, so that a series that ended (a pod gone, its GPU relabelled) is not seen a step later,
// which Prometheus' default 5-minute lookback would do to backfilled data without staleness
// markers. Steps are fetched in chunks to bound each answer.
//
// An empty answer is not a zero. When no GPU activity series (DCGM_FI_PROF_SM_ACTIVE,
// DCGM_FI_PROF_GR_ENGINE_ACTIVE, DCGM_FI_DEV_GPU_UTIL) matched anything in the window, the
// source fails (NotFound) naming those series, every other empty one, the URL and the window.
// When an optional series matched nothing (no kube-state-metrics, no profiling counters), the
// diagnosis goes on and the part it could not compute is reported in `not_computed`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "diagnose/diagnosis.h"
#include "diagnose/frame.h"
#include "telemetry/prometheus_client.h"

namespace steward::diagnose {

struct PrometheusSourceOptions {
  std::string url;
  int64_t start_ms = 0;  // First step (Unix milliseconds).
  int64_t end_ms = 0;    // Last step is the last start + k x step <= end.
  int64_t step_ms = 300'000;
  int64_t lookback_ms = 60'000;
  int chunk_steps = 96;  // Steps per range query.
  // Timeout, TLS, credentials and headers (--prometheus-config).
  telemetry::PrometheusClientOptions client;
  Attribution attribution;  // Which KSM label_<key> series name teams and workloads.
};

// Feeds `builder` one snapshot per step; `not_computed` (may be null) receives the parts of
// the diagnosis whose series matched nothing.
Status RunPrometheusSource(const PrometheusSourceOptions& options, FrameBuilder& builder,
                           std::vector<Diagnosis::NotComputed>* not_computed = nullptr);

}  // namespace steward::diagnose

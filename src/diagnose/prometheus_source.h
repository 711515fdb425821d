// Prometheus as a diagnosis source: PromQL range queries (telemetry::PrometheusClient) for the
// DCGM fields and the kube-state-metrics families of kube_state_metrics.h, assembled into one
// snapshot per step.
//
// Every query reads `last_over_time(SERIES[lookback])` at each step: the latest sample within
// the lookback, never older. The lookback must cover the scrape interval and stay below the
// step, so that a series that ended (a pod gone, its GPU relabelled) is not seen a step later,
// which Prometheus' default 5-minute lookback would do to backfilled data without staleness
// markers. Steps are fetched in chunks to bound each answer.
#pragma once

#include <cstdint>
#include <string>

#include "diagnose/frame.h"

namespace steward::diagnose {

struct PrometheusSourceOptions {
  std::string url;
  int64_t start_ms = 0;  // First step (Unix milliseconds).
  int64_t end_ms = 0;    // Last step is the last start + k x step <= end.
  int64_t step_ms = 300'000;
  int64_t lookback_ms = 60'000;
  int chunk_steps = 96;  // Steps per range query.
  double timeout_seconds = 30;
  Attribution attribution;  // Which KSM label_<key> series name teams and workloads.
};

Status RunPrometheusSource(const PrometheusSourceOptions& options, FrameBuilder& builder);

}  // namespace steward::diagnose

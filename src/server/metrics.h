// Steward's own KPIs as Prometheus text exposition (format 0.0.4), rendered from a Snapshot:
// GPUs by state, allocation / busy / SM-active ratios, workloads by state and pending reason,
// per-team quota, usage, pending work, GPU-hours and cost. Every series is `steward_*`; the
// names and labels are listed in docs/api.md ("GET /metrics").
#pragma once

#include <string>

#include "server/snapshot.h"

namespace steward::server {

// Content type of RenderMetrics' output.
inline constexpr char kPrometheusContentType[] = "text/plain; version=0.0.4; charset=utf-8";

std::string RenderMetrics(const Snapshot& snapshot);

}  // namespace steward::server

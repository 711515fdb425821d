// The tidal controller's configuration on a live cluster (`steward operate --tidal FILE`,
// docs/tidal.md "On a live cluster"): the scenario's `tidal:` section, read by the twin's own
// parser (twin/tidal_yaml.h), plus what a cluster does not say about its services: the PromQL
// of each one's request rate, what one replica serves, its GPUs and the HPA's bounds.
//
//   tidal: {lend_from: serving, lend_to: training, reserve: hpa-step,
//           forecast: {days: 3, bucket_minutes: 15},
//           lead_time: {save_seconds: 120, restart_seconds: 90}, period_minutes: 1}
//   static_split: {lend_from_gpus: 96, lend_to_gpus: 32}
//   reclaim_after_hold_minutes: 10   # optional: take the loan back after 10 minutes blind
//   services:
//     - name: serving/chat
//       query: sum(rate(http_requests_total{namespace="serving",service="chat"}[1m]))
//       replicas_query: kube_horizontalpodautoscaler_status_desired_replicas{...}  # optional
//       capacity_per_replica: 20
//       gpus_per_replica: 2
//       min_replicas: 2
//       max_replicas: 24
//       autoscaler: {target_utilization: 0.5}
//
//   STEWARD_ASSIGN_OR_RETURN(LiveTidalConfig c, LoadTidalConfig("tidal.yaml"));
//
// Every problem names the file, line and field. Plain data; thread-compatible.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"
#include "tidal/tidal_controller.h"
#include "twin/serving_spec.h"

namespace steward::operate {

// One autoscaled service as the configuration names it.
struct LiveService {
  std::string name;                 // namespace/name: the Deployment its HPA scales.
  std::string query;                // PromQL: its requests per second now (one series or a scalar).
  std::string replicas_query;       // PromQL: its HPA's desired replicas ("" = from the rate).
  double capacity_per_replica = 0;  // Requests per second one replica sustains.
  int gpus_per_replica = 1;
  int min_replicas = 1, max_replicas = 1;  // The HPA's spec.minReplicas / maxReplicas.
  twin::AutoscalerSpec autoscaler;         // target_utilization and the scale-up policy.
  int line = 0;
};

struct LiveTidalConfig {
  std::string source;
  bool enabled = true;  // tidal.enabled.
  // Lend_from/lend_to, reserve, forecast, lead time (restart default 90 s), period, and the
  // static split (static_split: required, so a restart while lending knows what to return to).
  tidal::TidalOptions options;
  std::vector<LiveService> services;
  // Prime each forecast from its query's history in Prometheus on start (query_range over the
  // forecast's days), so lending need not wait a day after every restart.
  bool prime_from_history = true;
  // The fail-safe of a hold: after this long without a usable demand reading, take every lent
  // GPU back (TidalController::ReclaimAll), each period until the demand reads again. Zero (the
  // default): a hold keeps the loan as it stands, as serving's safety then rests on the reserve.
  SimDuration reclaim_after_hold;
};

Result<LiveTidalConfig> ParseTidalConfig(std::string_view yaml_text, std::string_view source);
Result<LiveTidalConfig> LoadTidalConfig(const std::filesystem::path& path);

}  // namespace steward::operate

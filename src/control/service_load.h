// An autoscaled inference service as a request-rate metric and its autoscaler's status show it
// now: what the tidal controller forecasts from. The twin fills it from its traffic model
// (twin::ServingLoad adds the workload id); a live cluster would from Prometheus and the HPA.
//
//   ServiceLoad s{.name = "serving/chat", .rps = 420, .capacity_per_replica = 50};
//
// A plain value; no cost, no thread-safety concerns.
#pragma once

#include <string>

namespace steward::control {

struct ServiceLoad {
  std::string name;  // namespace/name.
  double rps = 0;    // Requests per second at the last autoscaler sync.
  double capacity_per_replica = 1;
  double target_utilization = 0.6;
  int desired_replicas = 0;
  int ready_replicas = 0;
  int min_replicas = 1, max_replicas = 1;
  int gpus_per_replica = 1;
  int scale_up_pods = 4;
  double scale_up_percent = 100;
};

}  // namespace steward::control

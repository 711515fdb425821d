// PrometheusXids: the rollout's XID and job-failure metrics on a live cluster, from the
// DCGM_FI_DEV_XID_ERRORS series dcgm-exporter exports (the last XID per GPU, as `steward
// operate` reads it): every change of a GPU's value to a non-zero XID is one XID event on its
// node (label Hostname, else kubernetes_node). Events are kept in memory from the first poll
// on; the values found at the first poll are the baseline, not events.
//
//   PrometheusXids xids(prometheus, control);
//   xids.Poll(now);  engine.Step();   // before every step
//
// JobFailureRate: XIDs whose catalog action stops workloads, over those plus the GPU pods on the
// nodes now (the twin's definition, rollout/twin_rollout.h). Thread-safety: one thread.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "control/cluster_control.h"
#include "rollout/metrics.h"
#include "telemetry/prometheus_client.h"

namespace steward::cli {

class PrometheusXids final : public rollout::MetricSource {
 public:
  PrometheusXids(telemetry::PrometheusClient& prometheus, const control::ClusterControl& control)
      : prometheus_(prometheus), control_(control) {}

  // One query; a failure leaves the metrics unavailable (Errors) until a poll succeeds.
  Status Poll(SimTime now);

  std::optional<double> Xids(const std::string& node, SimTime from, SimTime to) override;
  std::optional<double> JobFailureRate(const std::vector<std::string>& nodes, SimTime from,
                                       SimTime to) override;

 private:
  telemetry::PrometheusClient& prometheus_;
  const control::ClusterControl& control_;
  bool healthy_ = false, baseline_ = false;
  std::map<std::pair<std::string, std::string>, int> last_;  // (node, gpu) -> last XID.
  std::map<std::string, std::vector<SimTime>> xids_, job_failures_;
};

}  // namespace steward::cli

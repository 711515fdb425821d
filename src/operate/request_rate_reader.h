// RequestRateReader: the live demand signal of the tidal controller (tidal/tidal_controller.h).
// Each configured service's request rate is one PromQL instant query through Steward's
// Prometheus client; with the service's configured capacity, GPUs and HPA bounds it becomes the
// control::ServiceLoad the controller takes, as the twin's traffic model gives it in the twin.
//
//   RequestRateReader reader(prometheus, config.services);
//   Result<std::vector<control::ServiceLoad>> loads = reader.Read();
//   if (!loads.ok()) { /* hold: no step on missing data */ }
//
// A reading is taken only when it is a number one can act on: the query must answer a scalar or
// exactly one series (aggregate with sum(...), as KEDA's Prometheus trigger asks), with a
// finite value >= 0. Prometheus unreachable, an error envelope, an empty vector (the metric is
// not scraped, or the rate window holds fewer than two scrapes), several series, NaN, ±Inf, a
// negative or a string result are each an error naming the service and its query; the caller
// holds (never lends on missing data). The desired replicas come from `replicas_query` when
// given (kube-state-metrics' HPA status), with the same checks; else the controller derives
// them from the rate.
//
// Cost: one or two HTTP queries per service per Read; History is one range query per service.
// Thread-safety: const methods only; the client opens a connection per call.
#pragma once

#include <utility>
#include <vector>

#include "control/service_load.h"
#include "model/status.h"
#include "model/time.h"
#include "operate/tidal_config.h"
#include "telemetry/prometheus_client.h"

namespace steward::operate {

// The one number a query answered, or why there is none (`what` names the query's use in the
// message: "service serving/chat: query ...").
Result<double> SingleValue(const telemetry::PromQueryResult& result, std::string_view what);

class RequestRateReader {
 public:
  // `prometheus` must outlive the reader.
  RequestRateReader(const telemetry::PrometheusClient& prometheus,
                    std::vector<LiveService> services);

  // Every service's load now, in configuration order; the first service without a usable
  // reading is the error.
  Result<std::vector<control::ServiceLoad>> Read() const;

  // A past reading of one service, for priming its forecast.
  struct Past {
    SimTime at;
    control::ServiceLoad load;
  };
  // Each service's readings over [start, end] every `step` (range queries; NaN and missing
  // points are skipped, as a gap in the history is no demand reading), in time order.
  // An unreachable Prometheus or an error answer is the error.
  Result<std::vector<Past>> History(SimTime start, SimTime end, SimDuration step) const;

  const std::vector<LiveService>& services() const { return services_; }

 private:
  control::ServiceLoad LoadOf(const LiveService& s, double rps) const;

  const telemetry::PrometheusClient& prometheus_;
  std::vector<LiveService> services_;
};

}  // namespace steward::operate

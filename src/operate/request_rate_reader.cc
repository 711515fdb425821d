#include "operate/request_rate_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace steward::operate {

Result<double> SingleValue(const telemetry::PromQueryResult& r, std::string_view what) {
  double v = 0;
  switch (r.type) {
    case telemetry::PromResultType::kScalar:
      v = r.scalar.value;
      break;
    case telemetry::PromResultType::kVector:
      if (r.vector.empty())
        return Status::NotFound(fmt::format(
            "{}: no series (is the metric scraped? a rate over a window shorter than two "
            "scrapes is empty)",
            what));
      if (r.vector.size() > 1)
        return Status::InvalidArgument(fmt::format(
            "{}: {} series, expected one (aggregate them with sum(...))", what, r.vector.size()));
      v = r.vector[0].point.value;
      break;
    default:
      return Status::InvalidArgument(
          fmt::format("{}: a {} result, expected a number (an instant vector of one series or a "
                      "scalar)",
                      what, telemetry::PromResultTypeName(r.type)));
  }
  if (std::isnan(v))
    return Status::InvalidArgument(
        fmt::format("{}: NaN (a ratio of zeros, or a series marked stale)", what));
  if (!std::isfinite(v)) return Status::InvalidArgument(fmt::format("{}: {}", what, v));
  if (v < 0) return Status::InvalidArgument(fmt::format("{}: {} is negative", what, v));
  return v;
}

RequestRateReader::RequestRateReader(const telemetry::PrometheusClient& prometheus,
                                     std::vector<LiveService> services)
    : prometheus_(prometheus), services_(std::move(services)) {}

control::ServiceLoad RequestRateReader::LoadOf(const LiveService& s, double rps) const {
  control::ServiceLoad l;
  l.name = s.name;
  l.rps = rps;
  l.capacity_per_replica = s.capacity_per_replica;
  l.target_utilization = s.autoscaler.target_utilization;
  l.min_replicas = s.min_replicas;
  l.max_replicas = s.max_replicas;
  l.gpus_per_replica = s.gpus_per_replica;
  l.scale_up_pods = s.autoscaler.scale_up_pods;
  l.scale_up_percent = s.autoscaler.scale_up_percent;
  return l;
}

Result<std::vector<control::ServiceLoad>> RequestRateReader::Read() const {
  std::vector<control::ServiceLoad> out;
  for (const LiveService& s : services_) {
    const std::string what = fmt::format("service {}: query {}", s.name, s.query);
    Result<telemetry::PromQueryResult> r = prometheus_.Query(s.query);
    if (!r.ok()) return r.status().WithContext(what);
    STEWARD_ASSIGN_OR_RETURN(double rps, SingleValue(*r, what));
    control::ServiceLoad l = LoadOf(s, rps);
    if (!s.replicas_query.empty()) {
      const std::string rwhat =
          fmt::format("service {}: replicas_query {}", s.name, s.replicas_query);
      Result<telemetry::PromQueryResult> rr = prometheus_.Query(s.replicas_query);
      if (!rr.ok()) return rr.status().WithContext(rwhat);
      STEWARD_ASSIGN_OR_RETURN(double replicas, SingleValue(*rr, rwhat));
      l.desired_replicas = static_cast<int>(std::min(replicas, 1e6));
    }
    out.push_back(std::move(l));
  }
  return out;
}

Result<std::vector<RequestRateReader::Past>> RequestRateReader::History(SimTime start, SimTime end,
                                                                        SimDuration step) const {
  std::vector<Past> out;
  for (const LiveService& s : services_) {
    Result<telemetry::PromQueryResult> r = prometheus_.QueryRange(
        s.query, start.micros() / 1e6, end.micros() / 1e6, std::max(1.0, step.ToSeconds()));
    if (!r.ok())
      return r.status().WithContext(fmt::format("service {}: history of {}", s.name, s.query));
    if (r->matrix.size() > 1)
      return Status::InvalidArgument(
          fmt::format("service {}: history of {}: {} series, expected one (aggregate them with "
                      "sum(...))",
                      s.name, s.query, r->matrix.size()));
    if (r->matrix.empty()) continue;  // No history: the forecast waits a day.
    for (const telemetry::PromPoint& p : r->matrix[0].points) {
      if (!std::isfinite(p.value) || p.value < 0) continue;
      out.push_back({SimTime::FromMicros(static_cast<int64_t>(p.time * 1e6)), LoadOf(s, p.value)});
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Past& a, const Past& b) { return a.at < b.at; });
  return out;
}

}  // namespace steward::operate

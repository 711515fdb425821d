#include "cli/prometheus_xids.h"

#include <algorithm>
#include <cmath>

#include "model/xid_catalog.h"

namespace steward::cli {
namespace {

int CountIn(const std::vector<SimTime>& times, SimTime from, SimTime to) {
  return static_cast<int>(
      std::count_if(times.begin(), times.end(), [&](SimTime t) { return from <= t && t < to; }));
}

}  // namespace

Status PrometheusXids::Poll(SimTime now) {
  Result<telemetry::PromQueryResult> r = prometheus_.Query("DCGM_FI_DEV_XID_ERRORS");
  if (!r.ok()) {
    healthy_ = false;
    return r.status();
  }
  for (const telemetry::PromSample& s : r->vector) {
    auto host = s.metric.find("Hostname");
    if (host == s.metric.end()) host = s.metric.find("kubernetes_node");
    if (host == s.metric.end() || !std::isfinite(s.point.value)) continue;
    auto gpu = s.metric.find("gpu");
    const int xid = static_cast<int>(s.point.value);
    int& last = last_[{host->second, gpu == s.metric.end() ? "" : gpu->second}];
    const bool changed = xid != last;
    last = xid;
    if (!baseline_ || !changed || xid == 0) continue;
    xids_[host->second].push_back(now);
    const model::XidEntry* e = model::XidCatalog::Builtin().Find(xid);
    if (e != nullptr && e->action != model::XidAction::kNone)
      job_failures_[host->second].push_back(now);
  }
  baseline_ = healthy_ = true;
  return Status::Ok();
}

std::optional<double> PrometheusXids::Xids(const std::string& node, SimTime from, SimTime to) {
  if (!healthy_) return std::nullopt;
  auto it = xids_.find(node);
  return it == xids_.end() ? 0.0 : CountIn(it->second, from, to);
}

std::optional<double> PrometheusXids::JobFailureRate(const std::vector<std::string>& nodes,
                                                     SimTime from, SimTime to) {
  if (!healthy_) return std::nullopt;
  int failures = 0, jobs = 0;
  for (const std::string& name : nodes) {
    auto it = job_failures_.find(name);
    if (it != job_failures_.end()) failures += CountIn(it->second, from, to);
    jobs += static_cast<int>(control_.PodsOnNode(name).size());
  }
  if (failures + jobs == 0) return 0.0;
  return static_cast<double>(failures) / (failures + jobs);
}

}  // namespace steward::cli

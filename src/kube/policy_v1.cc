#include "kube/policy_v1.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace steward::kube {

using nlohmann::json;

Result<int64_t> ResolveIntOrPercent(const json& value, int64_t total, bool round_up) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (!value.is_string()) return Status::InvalidArgument("expected an integer or a percentage");
  const std::string s = value.get<std::string>();
  int64_t pct = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), pct);
  if (ec != std::errc() || p + 1 != s.data() + s.size() || *p != '%' || pct < 0)
    return Status::InvalidArgument(fmt::format("'{}' is not an integer or a percentage", s));
  const int64_t scaled = pct * total;
  return round_up ? (scaled + 99) / 100 : scaled / 100;
}

PdbStatus ComputePdbStatus(const PodDisruptionBudget& pdb, int64_t expected, int64_t healthy) {
  PdbStatus s;
  s.observed_generation = pdb.metadata.generation;
  s.expected_pods = expected;
  s.current_healthy = healthy;
  int64_t desired = 0;
  if (pdb.max_unavailable) {
    Result<int64_t> m = ResolveIntOrPercent(*pdb.max_unavailable, expected, true);
    desired = m.ok() ? std::max<int64_t>(0, expected - *m) : expected;
  } else if (pdb.min_available) {
    Result<int64_t> m = ResolveIntOrPercent(*pdb.min_available, expected, true);
    desired = m.ok() ? *m : expected;
  } else {
    desired = expected;
  }
  s.desired_healthy = desired;
  s.disruptions_allowed = std::max<int64_t>(0, healthy - desired);
  return s;
}

json ToJson(const PodDisruptionBudget& p) {
  json spec = json::object();
  if (p.min_available) spec["minAvailable"] = *p.min_available;
  if (p.max_unavailable) spec["maxUnavailable"] = *p.max_unavailable;
  spec["selector"] = p.selector.is_null() ? json::object() : p.selector;
  if (!p.unhealthy_pod_eviction_policy.empty())
    spec["unhealthyPodEvictionPolicy"] = p.unhealthy_pod_eviction_policy;
  const PdbStatus& s = p.status;
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", ToJson(p.metadata)},
          {"spec", spec},
          {"status",
           {{"observedGeneration", s.observed_generation},
            {"disruptionsAllowed", s.disruptions_allowed},
            {"currentHealthy", s.current_healthy},
            {"desiredHealthy", s.desired_healthy},
            {"expectedPods", s.expected_pods}}}};
}

PodDisruptionBudget DecodePdb(JsonDecoder& d, const json& j) {
  PodDisruptionBudget p;
  p.metadata = DecodeMeta(d, j);
  const json& spec = d.Object(j, "", "spec");
  p.min_available = d.IntOrString(spec, "spec", "minAvailable");
  p.max_unavailable = d.IntOrString(spec, "spec", "maxUnavailable");
  p.selector = d.Object(spec, "spec", "selector");
  if (spec.is_object() && spec.contains("selector") && spec["selector"].is_null())
    p.selector = nullptr;
  p.unhealthy_pod_eviction_policy = d.String(spec, "spec", "unhealthyPodEvictionPolicy");
  const json& st = d.Object(j, "", "status");
  p.status.observed_generation = d.Int(st, "status", "observedGeneration");
  p.status.disruptions_allowed = d.Int(st, "status", "disruptionsAllowed");
  p.status.current_healthy = d.Int(st, "status", "currentHealthy");
  p.status.desired_healthy = d.Int(st, "status", "desiredHealthy");
  p.status.expected_pods = d.Int(st, "status", "expectedPods");
  return p;
}

json ToJson(const DeleteOptions& o) {
  json j = json::object();
  if (o.grace_period_seconds) j["gracePeriodSeconds"] = *o.grace_period_seconds;
  if (!o.dry_run.empty()) j["dryRun"] = o.dry_run;
  if (!o.propagation_policy.empty()) j["propagationPolicy"] = o.propagation_policy;
  if (!o.precondition_uid.empty() || !o.precondition_resource_version.empty()) {
    json pre = json::object();
    if (!o.precondition_uid.empty()) pre["uid"] = o.precondition_uid;
    if (!o.precondition_resource_version.empty())
      pre["resourceVersion"] = o.precondition_resource_version;
    j["preconditions"] = pre;
  }
  return j;
}

DeleteOptions DecodeDeleteOptions(JsonDecoder& d, const json& j) {
  DeleteOptions o;
  o.grace_period_seconds = d.OptionalInt(j, "deleteOptions", "gracePeriodSeconds");
  for (const json& v : d.Array(j, "deleteOptions", "dryRun")) {
    if (v.is_string())
      o.dry_run.push_back(v.get<std::string>());
    else
      d.Fail("deleteOptions.dryRun[]", "expected a string");
  }
  o.propagation_policy = d.String(j, "deleteOptions", "propagationPolicy");
  const json& pre = d.Object(j, "deleteOptions", "preconditions");
  o.precondition_uid = d.String(pre, "deleteOptions.preconditions", "uid");
  o.precondition_resource_version = d.String(pre, "deleteOptions.preconditions", "resourceVersion");
  return o;
}

json ToJson(const Eviction& e) {
  json j = {{"apiVersion", "policy/v1"}, {"kind", "Eviction"}, {"metadata", ToJson(e.metadata)}};
  const json o = ToJson(e.delete_options);
  if (!o.empty()) j["deleteOptions"] = o;
  return j;
}

Eviction DecodeEviction(JsonDecoder& d, const json& j) {
  Eviction e;
  e.metadata = DecodeMeta(d, j);
  e.delete_options = DecodeDeleteOptions(d, d.Object(j, "", "deleteOptions"));
  return e;
}

}  // namespace steward::kube

#include "kube/policy_v1.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace steward::kube {

using nlohmann::json;

Result<int64_t> ResolveIntOrPercent(const json& value, int64_t total, bool round_up) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (!value.is_string()) return Status::InvalidArgument("expected an integer or a percentage");
  const std::string s = value.get<std::string>();
  int64_t pct = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), pct);
  if (s.empty() || s[0] == '-' || ec != std::errc() || p + 1 != s.data() + s.size() || *p != '%')
    return Status::InvalidArgument(fmt::format("'{}' is not an integer or a percentage", s));
  if (total < 0 || (pct > 0 && total > INT64_MAX / pct))
    return Status::InvalidArgument(fmt::format("'{}' of {} is out of range", s, total));
  const int64_t scaled = pct * total;
  return round_up ? scaled / 100 + (scaled % 100 != 0) : scaled / 100;
}

PdbStatus ComputePdbStatus(const PodDisruptionBudget& pdb, int64_t expected, int64_t healthy) {
  PdbStatus s;
  s.observed_generation = pdb.metadata.generation;
  s.current_healthy = healthy;
  if (!pdb.max_unavailable && !pdb.min_available) {
    // The disruption controller's getExpectedPodCount leaves both counts at 0 for a budget
    // with neither field, and a budget that expects no pods allows no disruption.
    return s;
  }
  s.expected_pods = expected;
  const bool max_form = pdb.max_unavailable.has_value();
  Result<int64_t> m =
      ResolveIntOrPercent(max_form ? *pdb.max_unavailable : *pdb.min_available, expected, true);
  if (!m.ok()) {
    // The controller's failSafe: a value that does not resolve allows no disruption.
    s.desired_healthy = expected;
    return s;
  }
  s.desired_healthy = max_form ? std::max<int64_t>(0, expected - *m) : *m;
  s.disruptions_allowed = expected <= 0 ? 0 : std::max<int64_t>(0, healthy - s.desired_healthy);
  return s;
}

namespace {

// The API server's validation of a budget's minAvailable / maxUnavailable: a non-negative
// integer, or a percentage from 0% to 100%.
void CheckIntOrPercent(JsonDecoder& d, const std::optional<json>& value, const char* field) {
  if (!value) return;
  const std::string path = std::string("spec.") + field;
  if (value->is_number_integer()) {
    const bool in_range = value->is_number_unsigned()
                              ? value->get<uint64_t>() <= INT32_MAX
                              : value->get<int64_t>() >= 0 && value->get<int64_t>() <= INT32_MAX;
    if (!in_range)
      d.Fail(path, fmt::format("{} must be an integer from 0 to 2147483647", value->dump()));
    return;
  }
  Result<int64_t> pct = ResolveIntOrPercent(*value, 100, false);
  if (!pct.ok())
    d.Fail(path, fmt::format("{} is not an integer or a percentage (\"50%\")", value->dump()));
  else if (*pct > 100)
    d.Fail(path, fmt::format("{} must not be greater than 100%", value->dump()));
}

}  // namespace

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
  CheckIntOrPercent(d, p.min_available, "minAvailable");
  CheckIntOrPercent(d, p.max_unavailable, "maxUnavailable");
  if (p.min_available && p.max_unavailable)
    d.Fail("spec", "minAvailable and maxUnavailable cannot be both set");
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

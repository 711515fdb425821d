#include "kube/lease.h"

namespace steward::kube {

nlohmann::json ToJson(const Lease& l) {
  nlohmann::json spec = nlohmann::json::object();
  if (!l.holder_identity.empty()) spec["holderIdentity"] = l.holder_identity;
  if (l.lease_duration_seconds) spec["leaseDurationSeconds"] = *l.lease_duration_seconds;
  if (l.acquire_time) spec["acquireTime"] = FormatTime(*l.acquire_time, true);
  if (l.renew_time) spec["renewTime"] = FormatTime(*l.renew_time, true);
  if (l.lease_transitions) spec["leaseTransitions"] = l.lease_transitions;
  return {{"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", ToJson(l.metadata)},
          {"spec", spec}};
}

Lease DecodeLease(JsonDecoder& d, const nlohmann::json& j) {
  Lease l;
  l.metadata = DecodeMeta(d, j);
  const nlohmann::json& spec = d.Object(j, "", "spec");
  l.holder_identity = d.String(spec, "spec", "holderIdentity");
  l.lease_duration_seconds = d.OptionalInt(spec, "spec", "leaseDurationSeconds");
  l.acquire_time = d.Time(spec, "spec", "acquireTime");
  l.renew_time = d.Time(spec, "spec", "renewTime");
  l.lease_transitions = d.Int(spec, "spec", "leaseTransitions");
  return l;
}

}  // namespace steward::kube

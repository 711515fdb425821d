// policy/v1 PodDisruptionBudget and Eviction, with the budget arithmetic the API server's
// eviction subresource applies (kube-api-facts.md §3.2) so the twin's front and Steward's own
// drains agree on when an eviction is allowed.
//
//   PdbStatus s = ComputePdbStatus(pdb.spec, /*expected_pods=*/4, /*healthy=*/4);
//   if (s.disruptions_allowed == 0) ... 429
//
// Plain values: thread-compatible.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kube/json_decoder.h"
#include "kube/meta.h"

namespace steward::kube {

struct PdbStatus {
  int64_t observed_generation = 0;
  int64_t disruptions_allowed = 0;
  int64_t current_healthy = 0;
  int64_t desired_healthy = 0;
  int64_t expected_pods = 0;
  bool operator==(const PdbStatus&) const = default;
};

struct PodDisruptionBudget {
  ObjectMeta metadata;
  // Exactly one of these is usually set: an integer or a percentage string ("50%").
  std::optional<nlohmann::json> min_available, max_unavailable;
  nlohmann::json selector;                    // metav1.LabelSelector (kube/selector.h reads it).
  std::string unhealthy_pod_eviction_policy;  // IfHealthyBudget (default) | AlwaysAllow.
  PdbStatus status;
  bool operator==(const PodDisruptionBudget&) const = default;
};

// desiredHealthy and disruptionsAllowed from the spec, the number of pods the budget covers
// and how many of them are healthy (Ready), as the disruption controller computes them:
// minAvailable N or P% (rounded up) of expected; maxUnavailable M or P% (rounded up) gives
// desired = max(0, expected - M); disruptionsAllowed = max(0, healthy - desired), and 0 when
// expected is 0. A budget with neither field expects and allows nothing (all counts 0 but
// currentHealthy); one whose value does not resolve allows nothing and desires every pod.
PdbStatus ComputePdbStatus(const PodDisruptionBudget& pdb, int64_t expected_pods,
                           int64_t healthy_pods);

struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::vector<std::string> dry_run;  // ["All"] for a server-side dry run.
  std::string precondition_uid, precondition_resource_version;
  std::string propagation_policy;
  bool operator==(const DeleteOptions&) const = default;
};

struct Eviction {
  ObjectMeta metadata;  // The pod's name and namespace.
  DeleteOptions delete_options;
  bool operator==(const Eviction&) const = default;
};

nlohmann::json ToJson(const PodDisruptionBudget& pdb);
nlohmann::json ToJson(const Eviction& eviction);
nlohmann::json ToJson(const DeleteOptions& options);
PodDisruptionBudget DecodePdb(JsonDecoder& d, const nlohmann::json& j);
Eviction DecodeEviction(JsonDecoder& d, const nlohmann::json& j);
DeleteOptions DecodeDeleteOptions(JsonDecoder& d, const nlohmann::json& j);

// An int-or-percent value resolved against `total` ("50%" of 5 rounded up = 3), as
// intstr.GetScaledValueFromIntOrPercent. InvalidArgument for a string that is not digits and
// '%' (a bare "5" too), a negative percentage, or a product past int64.
Result<int64_t> ResolveIntOrPercent(const nlohmann::json& value, int64_t total, bool round_up);

}  // namespace steward::kube

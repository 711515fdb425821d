// coordination.k8s.io/v1 Lease: the lock object of leader election (client-go's
// leaderelection uses one per election; `steward operate` too).
//
// Times are MicroTime (microseconds since the epoch, printed with six decimals).
// Plain values: thread-compatible.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "kube/json_decoder.h"
#include "kube/meta.h"

namespace steward::kube {

struct Lease {
  ObjectMeta metadata;
  std::string holder_identity;
  std::optional<int64_t> lease_duration_seconds;
  std::optional<int64_t> acquire_time, renew_time;  // Microseconds since the epoch.
  int64_t lease_transitions = 0;
  bool operator==(const Lease&) const = default;
};

nlohmann::json ToJson(const Lease& lease);
Lease DecodeLease(JsonDecoder& d, const nlohmann::json& j);

}  // namespace steward::kube

// YAML (what `kubectl get -o yaml` prints, Kueue manifests, kubeconfigs) as JSON, with YAML
// 1.2's core schema for plain scalars: `3` is a number, `true` a boolean, `null`/`~` null,
// while quoted scalars stay strings ("3" is the string 3), as Kubernetes' YAML decoding reads
// them.
//
//   Result<nlohmann::json> j = YamlToJson(YAML::Load(text), "clusterqueue.yaml");
//
// Errors (an alias loop, a key that is not a scalar, a duplicate key) name the source and the
// line. Pure function: thread-safe.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string_view>

#include "model/status.h"

namespace steward::kube {

Result<nlohmann::json> YamlToJson(const YAML::Node& node, std::string_view source);

}  // namespace steward::kube

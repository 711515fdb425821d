// YAML (what `kubectl get -o yaml` prints, Kueue manifests, kubeconfigs) as the JSON kubectl
// would send for it. kubectl converts YAML with sigs.k8s.io/yaml, which reads it with goyaml.v2:
// YAML 1.1 resolution of plain scalars, not YAML 1.2's core schema. So, unquoted:
//   - true/false, yes/no, on/off, y/n (three casings each) are booleans; null, Null, NULL, ~
//     and an empty value are null;
//   - integers as Go's strconv.ParseInt(s, 0, 64) reads them after dropping '_': decimal,
//     0x1F, 0o17, 0b101 and the C-style octal 017 (= 15); beyond int64, uint64;
//   - floats of the form [-+]?(.d+|d+(.d*)?)([eE][-+]?d+)?; a float with an integral value
//     below 2^53 becomes a JSON integer, as Go's json.Marshal prints 1000.0 as 1000;
//     .inf and .nan are errors (JSON has no such numbers; sigs.k8s.io/yaml fails too);
//   - timestamps (2024-01-02, 2024-1-2T3:04:05Z, "2024-01-02 03:04:05.5") become RFC 3339
//     strings in UTC or their own offset, as time.Time marshals ("2024-01-02T00:00:00Z");
//   - anything else is a string. Quoted and block scalars are always strings.
// Explicit tags: !!str keeps the text, !!int/!!float/!!bool/!!null/!!timestamp must resolve to
// their type (else an error; !!float accepts an integer), !!binary is base64-decoded, other
// tags are ignored. Mapping keys resolve the same way, then print as JSON object keys
// (`yes:` is the key "true", `0x10:` is "16"); a null key is an error. Merge keys (<<) are not
// expanded.
//
//   Result<nlohmann::json> j = YamlToJson(YAML::Load(text), "clusterqueue.yaml");
//
// Errors (a key that is not a scalar or is null, a duplicate key, a tag the value does not
// fit, .inf/.nan, nesting past 200 levels) name the source, line and column. Pure function:
// thread-safe.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string_view>

#include "model/status.h"

namespace steward::kube {

Result<nlohmann::json> YamlToJson(const YAML::Node& node, std::string_view source);

}  // namespace steward::kube

// The three patch types the Kubernetes API accepts, applied to JSON objects:
//
//   application/merge-patch+json          ApplyMergePatch       (RFC 7386)
//   application/json-patch+json           ApplyJsonPatch        (RFC 6902, with `test`)
//   application/strategic-merge-patch+json ApplyStrategicMergePatch (built-in kinds only)
//
//   Result<json> node = ApplyStrategicMergePatch(current, patch, StrategicSchemaFor("Node"));
//
// Errors: InvalidArgument when the patch document itself is malformed (HTTP 400: not an object,
// an unknown op, a bad JSON pointer); FailedPrecondition when a well-formed patch cannot be
// applied to this object (HTTP 422: a failed `test`, a path that does not exist, a list element
// without its merge key). The input is never modified; the result is a new document.
//
// Strategic merge patch follows Kubernetes' rules for the fields a schema names: maps merge
// key by key, `null` deletes a key, lists are replaced unless the schema gives them a merge
// key (then elements merge by that key) or marks them as a merged set of primitives; the
// directives `$patch: replace|merge|delete`, `$retainKeys`, `$setElementOrder/<list>` and
// `$deleteFromPrimitiveList/<list>` are honoured. Lists a schema does not name are replaced,
// as for fields without a patch strategy.
//
// Cost: O(size of the patch + size of the parts of the object it touches), except list merges,
// which are O(list length x patch elements). Pure functions: thread-safe.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "model/status.h"

namespace steward::kube {

Result<nlohmann::json> ApplyMergePatch(const nlohmann::json& target, const nlohmann::json& patch);
Result<nlohmann::json> ApplyJsonPatch(const nlohmann::json& target, const nlohmann::json& patch);

// How strategic merge patch treats the lists of one kind, by dotted path from the object root
// (list elements are not part of the path: "spec.containers.ports" is the ports list inside
// each container).
struct StrategicSchema {
  // List path -> merge key (e.g. "status.conditions" -> "type").
  std::map<std::string, std::string, std::less<>> merge_keys;
  // Lists of primitives merged as sets (patchStrategy "merge" without a key, e.g.
  // "metadata.finalizers").
  std::map<std::string, bool, std::less<>> primitive_sets;
  // Map fields with patchStrategy "replace" (a patch replaces the map instead of merging it, e.g.
  // a PodDisruptionBudget's "spec.selector").
  std::map<std::string, bool, std::less<>> replaced_maps;
};

// The schema of a built-in kind ("Node", "Pod", "Namespace", "Event", "PodDisruptionBudget",
// "Lease", "ConfigMap", ...); for other kinds a schema with only the ObjectMeta lists.
const StrategicSchema& StrategicSchemaFor(std::string_view kind);

Result<nlohmann::json> ApplyStrategicMergePatch(const nlohmann::json& target,
                                                const nlohmann::json& patch,
                                                const StrategicSchema& schema);

}  // namespace steward::kube

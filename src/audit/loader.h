// Reading cluster objects for the audit: what `kubectl get ... -A -o json` or `-o yaml` prints
// (one object, a `kind: List` of items, or multi-document YAML), from files or directories.
//
//   audit::ObjectSet set;
//   Status s = audit::LoadPaths({"cluster-dump/", "kueue.yaml"}, &set);
//   // s: "cluster-dump/pods.json:41:9: Pod team-a/train-0: spec.containers[0].resources: ..."
//
// JSON is read as YAML (a subset), so every node keeps its line and column. A directory
// contributes its *.json, *.yaml and *.yml files in name order (not recursive). Unknown kinds
// are counted in ObjectSet::ignored_kinds, never an error; a field of the wrong shape is an
// input error naming file, line, column, object and field. Never throws. Cost: linear in the
// input. Thread-safe (no shared state).
//
// Objects read from an API server (audit_live/cluster_reader.h) go through the same reader:
//   STEWARD_RETURN_IF_ERROR(audit::ReadPaths(files, &set));           // no validation yet
//   STEWARD_RETURN_IF_ERROR(audit::ParseApiList(list_json, "https://host/api/v1/pods", &set));
//   STEWARD_RETURN_IF_ERROR(audit::FinishObjects(&set));              // Kueue cross-checks
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "audit/objects.h"
#include "model/status.h"

namespace steward::audit {

// Parses `text` (JSON or YAML; `source` names it in messages) and appends its objects.
Status ParseObjects(std::string_view text, std::string_view source, ObjectSet* set);

// Reads every file (or every *.json|*.yaml|*.yml of a directory) and appends its objects, then
// validates the whole set (FinishObjects).
Status LoadPaths(const std::vector<std::string>& paths, ObjectSet* set);

// LoadPaths without the final validation, for callers that add more objects before it.
Status ReadPaths(const std::vector<std::string>& paths, ObjectSet* set);

// Appends the objects of one document an API server returned (an object or a List, e.g. what
// live::KubeClient::List answers; items need kind and apiVersion). The objects keep no file or
// line: findings name them by Kind/namespace/name. Errors name `source` and the field.
Status ParseApiList(const nlohmann::json& document, std::string_view source, ObjectSet* set);

// Cross-object validation once everything is read (Kueue references, unique names).
Status FinishObjects(ObjectSet* set);

}  // namespace steward::audit

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
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "audit/objects.h"
#include "model/status.h"

namespace steward::audit {

// Parses `text` (JSON or YAML; `source` names it in messages) and appends its objects.
Status ParseObjects(std::string_view text, std::string_view source, ObjectSet* set);

// Reads every file (or every *.json|*.yaml|*.yml of a directory) and appends its objects.
Status LoadPaths(const std::vector<std::string>& paths, ObjectSet* set);

}  // namespace steward::audit

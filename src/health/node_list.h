// Kubernetes nodes as `kubectl get nodes -o json` or `-o yaml` prints them (a v1 List or
// NodeList of Node objects, one Node, or several YAML documents of those), reduced to what the
// GPU stack checks read.
//
//   Result<std::vector<NodeInfo>> nodes = LoadNodeList("nodes.yaml");   // "-" reads stdin
//
// Input is JSON when its first non-blank character is '{' or '[', YAML otherwise (converted as
// kubectl converts it, kube/yaml_json.h). Strict: a duplicate key, a number that is not finite
// or not an integer where a count is meant, a negative count, an item of another kind than Node
// or input holding no object at all (unless NodeListOptions::allow_empty; an empty List is a
// valid list of no nodes) is an error naming the source,
// its line and column or the item and field. Never throws. Pure functions: thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"

namespace steward::health {

// One entry of status.conditions.
struct NodeCondition {
  std::string type;
  std::string status;  // "True", "False" or "Unknown".
  std::string reason;
  std::string message;
  // lastTransitionTime in seconds since the epoch; nullopt when absent.
  std::optional<int64_t> last_transition;
};

// One entry of spec.taints.
struct NodeTaint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule or NoExecute.
};

struct NodeInfo {
  std::string name;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  // Sum of nvidia.com/gpu and nvidia.com/mig-* extended resources.
  int64_t gpu_capacity = 0;
  int64_t gpu_allocatable = 0;
  bool unschedulable = false;  // spec.unschedulable (cordoned).
  bool ready = true;           // Condition Ready is not False/Unknown.
  std::vector<NodeCondition> conditions;
  std::vector<NodeTaint> taints;

  // Value of label `key`, or "" when absent.
  std::string_view Label(std::string_view key) const;
  bool HasLabel(std::string_view key) const;
  // Value of annotation `key`, or "" when absent.
  std::string_view Annotation(std::string_view key) const;
  // The condition of this type, or nullptr.
  const NodeCondition* Condition(std::string_view type) const;
};

struct NodeListOptions {
  // Accept input with no object at all (a diagnose bundle may hold an empty file); a file a
  // person hands over without even an empty List is almost always the wrong file.
  bool allow_empty = false;
};

// Parses NodeList JSON or YAML. Malformed input or a wrongly typed field is an error naming
// `source` and the line and column (or the item and field) where it went wrong.
Result<std::vector<NodeInfo>> ParseNodeList(std::string_view text, std::string_view source,
                                            const NodeListOptions& options = {});
// Reads `path` ("-" = standard input, named "<stdin>" in errors) and parses it.
Result<std::vector<NodeInfo>> LoadNodeList(const std::filesystem::path& path,
                                           const NodeListOptions& options = {});

}  // namespace steward::health

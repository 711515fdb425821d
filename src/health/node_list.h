// Kubernetes nodes as `kubectl get nodes -o json` prints them (a v1 List / NodeList of Node
// objects, or one Node), reduced to what the GPU stack checks read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"

namespace steward::health {

struct NodeInfo {
  std::string name;
  std::map<std::string, std::string> labels;
  // Sum of nvidia.com/gpu and nvidia.com/mig-* extended resources.
  int64_t gpu_capacity = 0;
  int64_t gpu_allocatable = 0;
  bool unschedulable = false;  // spec.unschedulable (cordoned).
  bool ready = true;           // Condition Ready is not False/Unknown.

  // Value of label `key`, or "" when absent.
  std::string_view Label(std::string_view key) const;
  bool HasLabel(std::string_view key) const;
};

// Parses NodeList JSON. Malformed JSON or a wrongly typed field is an error naming `source` and
// the line and column (or the item and field) where it went wrong. Never throws.
Result<std::vector<NodeInfo>> ParseNodeList(std::string_view json, std::string_view source);
Result<std::vector<NodeInfo>> LoadNodeList(const std::filesystem::path& path);

}  // namespace steward::health

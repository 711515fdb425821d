// The placement policy registry: every built-in policy by name, validated early.
//
// One explicit table (policy_registry.cc) maps a name to a factory; "best" is an alias for
// the policy of ours we recommend. An unknown name's error lists the valid ones.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"
#include "place/placement_policy.h"

namespace steward::place {

struct PolicyInfo {
  std::string_view name;
  std::string_view summary;
  bool from_paper = false;  // One of the FGD paper's six.
  // Learns from the whole workload's pods before the first arrives (PolicyContext::population:
  // the distribution of pods not yet arrived, not their order), as the paper's FGD does.
  bool knows_workload = false;
  // Run by default in the FGD matrix (the paper's six and ours); the twin's first-fit and
  // binpack baselines are not, but any policy can be named with --policies.
  bool in_matrix = true;
};

// The policies in registry order (the paper's six first), without aliases.
const std::vector<PolicyInfo>& Policies();
// Names for --list-policies: the policies in order, then the alias "best".
std::vector<std::string> PolicyNames();
// "best" -> the recommended policy's name; other names unchanged.
std::string_view ResolvePolicyAlias(std::string_view name);
Result<std::unique_ptr<PlacementPolicy>> NewPolicy(std::string_view name);
// The registry entry of `name` (aliases resolved), or nullptr.
const PolicyInfo* FindPolicy(std::string_view name);

inline constexpr std::string_view kBestPolicyAlias = "best";

}  // namespace steward::place

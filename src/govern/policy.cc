#include "govern/policy.h"

#include <algorithm>

namespace steward::govern {

std::string_view QueueingStrategyName(QueueingStrategy s) {
  return s == QueueingStrategy::kStrictFIFO ? "StrictFIFO" : "BestEffortFIFO";
}

std::string_view PreemptionPolicyName(PreemptionPolicy p) {
  switch (p) {
    case PreemptionPolicy::kNever:
      return "Never";
    case PreemptionPolicy::kLowerPriority:
      return "LowerPriority";
    case PreemptionPolicy::kLowerOrNewerEqualPriority:
      return "LowerOrNewerEqualPriority";
    case PreemptionPolicy::kAny:
      return "Any";
  }
  return "Never";
}

std::string_view FungibilityPolicyName(FungibilityPolicy p) {
  return p == FungibilityPolicy::kMayStopSearch ? "MayStopSearch" : "TryNextFlavor";
}

std::string_view StopPolicyName(StopPolicy p) {
  switch (p) {
    case StopPolicy::kNone:
      return "None";
    case StopPolicy::kHold:
      return "Hold";
    case StopPolicy::kHoldAndDrain:
      return "HoldAndDrain";
  }
  return "None";
}

bool Toleration::Tolerates(const std::string& taint_key, const std::string& taint_value,
                           const std::string& taint_effect) const {
  if (!effect.empty() && effect != taint_effect) return false;
  if (key.empty()) return op == "Exists";  // Empty key + Exists tolerates everything.
  if (key != taint_key) return false;
  return op == "Exists" || value == taint_value;
}

bool LabelSelector::Matches(const std::map<std::string, std::string>& labels) const {
  for (const auto& [k, v] : match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const auto& req : match_expressions) {
    auto it = labels.find(req.key);
    bool has = it != labels.end();
    bool in =
        has && std::find(req.values.begin(), req.values.end(), it->second) != req.values.end();
    if (req.op == "In" && !in) return false;
    if (req.op == "NotIn" && in) return false;
    if (req.op == "Exists" && !has) return false;
    if (req.op == "DoesNotExist" && has) return false;
  }
  return true;
}

template <typename T>
static const T* FindByName(const std::vector<T>& v, std::string_view name) {
  for (const auto& x : v)
    if (x.name == name) return &x;
  return nullptr;
}

const ClusterQueue* Policy::FindClusterQueue(std::string_view name) const {
  return FindByName(cluster_queues, name);
}
const ResourceFlavor* Policy::FindFlavor(std::string_view name) const {
  return FindByName(flavors, name);
}
const Cohort* Policy::FindCohort(std::string_view name) const { return FindByName(cohorts, name); }
const WorkloadPriorityClass* Policy::FindPriorityClass(std::string_view name) const {
  return FindByName(priority_classes, name);
}

model::Tier TierForPriority(int32_t value) {
  if (value >= 1000) return model::Tier::kProduction;
  if (value >= 100) return model::Tier::kTraining;
  return model::Tier::kDev;
}

}  // namespace steward::govern

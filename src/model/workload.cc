#include "model/workload.h"

#include <algorithm>

namespace steward::model {

std::string_view KindName(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kInference:
      return "inference";
    case WorkloadKind::kTraining:
      return "training";
    case WorkloadKind::kNotebook:
      return "notebook";
    case WorkloadKind::kBatch:
      return "batch";
  }
  return "?";
}

bool ParseKind(std::string_view text, WorkloadKind* kind) {
  if (text == "inference")
    *kind = WorkloadKind::kInference;
  else if (text == "training")
    *kind = WorkloadKind::kTraining;
  else if (text == "notebook")
    *kind = WorkloadKind::kNotebook;
  else if (text == "batch" || text == "ci" || text == "eval")
    *kind = WorkloadKind::kBatch;
  else
    return false;
  return true;
}

std::string_view TierName(Tier tier) {
  switch (tier) {
    case Tier::kProduction:
      return "production";
    case Tier::kTraining:
      return "training";
    case Tier::kDev:
      return "dev";
  }
  return "?";
}

bool ParseTier(std::string_view text, Tier* tier) {
  if (text == "production")
    *tier = Tier::kProduction;
  else if (text == "training")
    *tier = Tier::kTraining;
  else if (text == "dev")
    *tier = Tier::kDev;
  else
    return false;
  return true;
}

std::string_view TopologyName(TopologyPreference topology) {
  switch (topology) {
    case TopologyPreference::kNone:
      return "none";
    case TopologyPreference::kSameNvlinkDomain:
      return "nvlink";
    case TopologyPreference::kSameLeaf:
      return "leaf";
  }
  return "?";
}

bool ParseTopology(std::string_view text, TopologyPreference* topology) {
  if (text == "none")
    *topology = TopologyPreference::kNone;
  else if (text == "nvlink")
    *topology = TopologyPreference::kSameNvlinkDomain;
  else if (text == "leaf")
    *topology = TopologyPreference::kSameLeaf;
  else
    return false;
  return true;
}

UsageRates ActiveRates(const UsageProfile& u) {
  // Stalls zero both signals for stall_fraction of the time; unused GPUs contribute nothing.
  const double computing = u.stall_period.micros() > 0 ? 1.0 - u.stall_fraction : 1.0;
  return UsageRates{u.used_gpu_fraction * u.busy * computing,
                    u.used_gpu_fraction * u.sm_active * computing};
}

UsageRates IdleRates(const UsageProfile& u) {
  return UsageRates{u.used_gpu_fraction * u.idle_busy, 0.0};
}

int Workload::TotalPods() const {
  int n = 0;
  for (const auto& ps : pod_sets) n += ps.count;
  return n;
}

int Workload::ElasticPodSet() const {
  if (!elastic) return -1;
  for (size_t i = 0; i < pod_sets.size(); ++i)
    if (pod_sets[i].min_count > 0) return static_cast<int>(i);
  return -1;
}

int Workload::TotalGpus() const {
  int n = 0;
  for (const auto& ps : pod_sets) n += ps.count * ps.gpus_per_pod;
  return n;
}

}  // namespace steward::model

// The governance policy: Kueue's objects (ResourceFlavor, ClusterQueue, Cohort, LocalQueue,
// WorkloadPriorityClass) as plain structs, plus what Volcano Queues and PodGroups map onto.
//
// Field names, defaults and meanings follow kueue.x-k8s.io/v1beta1 (see docs/governance.md and
// ../shared/docs/queue-semantics.md §1). Quantities are already in internal units
// (govern/quantity.h). A Policy is plain data: policy_io.h reads and writes it, and
// GovernanceEngine (governance_engine.h) is built from it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "govern/quantity.h"
#include "model/time.h"
#include "model/workload.h"

namespace steward::govern {

// Where an object came from, for error messages ("file:line").
struct SourceRef {
  std::string file;
  int line = 0;  // 1-based; 0 = unknown.
};

// Fields Steward does not interpret, kept so export writes them back (never silently dropped).
// Key: dotted path from the object root ("spec.admissionChecks"); value: the YAML text of the
// node (flow style).
using ExtraFields = std::map<std::string, std::string>;

struct Toleration {
  std::string key;
  std::string op = "Equal";  // "Equal" | "Exists".
  std::string value;
  std::string effect;  // Empty = all effects.
  bool Tolerates(const std::string& taint_key, const std::string& taint_value,
                 const std::string& taint_effect) const;
};

struct FlavorTaint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule | NoExecute | PreferNoSchedule.
};

struct ResourceFlavor {
  std::string name;
  std::map<std::string, std::string> node_labels;
  std::vector<FlavorTaint> node_taints;
  std::vector<Toleration> tolerations;
  std::string topology_name;
  ExtraFields extra;
  SourceRef source;
};

struct ResourceQuota {
  std::string resource;
  Amount nominal = 0;
  std::optional<Amount> borrowing_limit;  // nullopt = unlimited.
  std::optional<Amount> lending_limit;    // nullopt = everything is lendable.
};

struct FlavorQuotas {
  std::string flavor;
  std::vector<ResourceQuota> resources;  // Same order as the group's covered_resources.
};

struct ResourceGroup {
  std::vector<std::string> covered_resources;
  std::vector<FlavorQuotas> flavors;  // Tried in this order by flavor assignment.
};

enum class QueueingStrategy : uint8_t { kBestEffortFIFO, kStrictFIFO };
// Kueue's preemption policy values; not every field accepts every value (see Validate).
enum class PreemptionPolicy : uint8_t { kNever, kLowerPriority, kLowerOrNewerEqualPriority, kAny };
enum class FungibilityPolicy : uint8_t { kMayStopSearch, kTryNextFlavor };
enum class StopPolicy : uint8_t { kNone, kHold, kHoldAndDrain };

std::string_view QueueingStrategyName(QueueingStrategy s);
std::string_view PreemptionPolicyName(PreemptionPolicy p);
std::string_view FungibilityPolicyName(FungibilityPolicy p);
std::string_view StopPolicyName(StopPolicy p);

struct PreemptionSpec {
  PreemptionPolicy within_cluster_queue = PreemptionPolicy::kNever;
  PreemptionPolicy reclaim_within_cohort = PreemptionPolicy::kNever;
  PreemptionPolicy borrow_within_cohort = PreemptionPolicy::kNever;  // Never | LowerPriority.
  std::optional<int32_t> max_priority_threshold;  // borrowWithinCohort.maxPriorityThreshold.
};

struct LabelRequirement {
  std::string key;
  std::string op;  // In | NotIn | Exists | DoesNotExist.
  std::vector<std::string> values;
};

// A Kubernetes LabelSelector. Kueue: a null namespaceSelector matches no namespace, {} all.
struct LabelSelector {
  std::map<std::string, std::string> match_labels;
  std::vector<LabelRequirement> match_expressions;
  bool Matches(const std::map<std::string, std::string>& labels) const;
};

struct ClusterQueue {
  std::string name;
  std::string cohort;  // Empty: can neither borrow nor lend.
  std::vector<ResourceGroup> resource_groups;
  QueueingStrategy queueing_strategy = QueueingStrategy::kBestEffortFIFO;
  std::optional<LabelSelector> namespace_selector;  // nullopt = no namespace matches.
  PreemptionSpec preemption;
  FungibilityPolicy when_can_borrow = FungibilityPolicy::kMayStopSearch;
  FungibilityPolicy when_can_preempt = FungibilityPolicy::kTryNextFlavor;
  double fair_weight = 1.0;  // fairSharing.weight.
  StopPolicy stop_policy = StopPolicy::kNone;
  // Steward extensions (annotations steward.io/*), set by the Volcano mapping:
  // other queues may reclaim from this one (Volcano `reclaimable`, default true).
  bool reclaimable = true;
  // Requests for resources no group covers are ignored instead of blocking (Kueue's
  // quotaCheckStrategy IgnoreUndeclared; Volcano treats unset resources as unlimited).
  bool ignore_undeclared = false;
  std::string origin = "kueue";  // "kueue" | "volcano" (for messages only).
  ExtraFields extra;
  SourceRef source;
};

struct Cohort {
  std::string name;
  std::string parent;                          // parentName; empty = root.
  std::vector<ResourceGroup> resource_groups;  // Extra shared pool of this subtree.
  double fair_weight = 1.0;
  ExtraFields extra;
  SourceRef source;
};

struct LocalQueue {
  std::string namespace_name = "default";
  std::string name;
  std::string cluster_queue;
  StopPolicy stop_policy = StopPolicy::kNone;
  ExtraFields extra;
  SourceRef source;
};

struct WorkloadPriorityClass {
  std::string name;
  int32_t value = 0;
  std::string description;
  // Steward tier (label steward.io/tier); nullopt = derived from the value (TierForPriority).
  std::optional<model::Tier> tier;
  ExtraFields extra;
  SourceRef source;
};

// A Volcano PodGroup (scheduling.volcano.sh/v1beta1): a gang and its minimum resources. Kept
// as a workload template the twin can submit (see ToWorkloadRequest in governance_engine.h).
struct PodGroupSpec {
  std::string namespace_name = "default";
  std::string name;
  std::string queue = "default";
  int32_t min_member = 1;
  std::map<std::string, Amount> min_resources;
  std::map<std::string, int32_t> min_task_member;
  std::string priority_class;
  ExtraFields extra;
  SourceRef source;
};

// Kueue's Configuration (config.kueue.x-k8s.io; queue-semantics.md §1.10): the parts the twin
// follows. v1beta1 switches features on with `enable`; v1beta2 with the block's presence, and
// its defaults differ (waitForPodsReady timeout 30 min, blockAdmission false).
struct WaitForPodsReadyConfig {
  bool enable = false;
  SimDuration timeout = Minutes(5);
  bool block_admission = true;
  std::string requeuing_timestamp = "Eviction";  // Eviction | Creation.
  SimDuration backoff_base = Seconds(60);
  SimDuration backoff_max = Seconds(3600);
  std::optional<int32_t> backoff_limit_count;  // nullopt = retry forever.
};

// Where Kueue's manifests keep the manager's Configuration: a ConfigMap whose data key holds the
// Configuration YAML.
inline constexpr const char* kKueueConfigMapNamespace = "kueue-system";
inline constexpr const char* kKueueConfigMapName = "kueue-manager-config";
inline constexpr const char* kKueueConfigMapKey = "controller_manager_config.yaml";

struct KueueConfiguration {
  std::string api_version = "config.kueue.x-k8s.io/v1beta1";
  bool fair_sharing = false;
  WaitForPodsReadyConfig wait_for_pods_ready;
  ExtraFields extra;  // Everything else (integrations, manageJobsWithoutQueueName, ...).
  SourceRef source;
};

// A namespace's labels, for namespaceSelector (imported from core/v1 Namespace objects).
struct NamespaceSpec {
  std::string name;
  std::map<std::string, std::string> labels;
};

struct Policy {
  std::vector<ResourceFlavor> flavors;
  std::vector<Cohort> cohorts;
  std::vector<ClusterQueue> cluster_queues;
  std::vector<LocalQueue> local_queues;
  std::vector<WorkloadPriorityClass> priority_classes;
  std::vector<PodGroupSpec> pod_groups;
  std::vector<NamespaceSpec> namespaces;
  std::optional<KueueConfiguration> configuration;  // From a Kueue Configuration document.
  // Documents of kinds Steward does not model (AdmissionCheck, Topology, Workload, ...),
  // re-emitted verbatim by export.
  std::vector<std::string> passthrough_documents;
  // Things the importer noticed but did not reject (unknown fields kept, inactive queues...).
  std::vector<std::string> warnings;

  const ClusterQueue* FindClusterQueue(std::string_view name) const;
  const ResourceFlavor* FindFlavor(std::string_view name) const;
  const Cohort* FindCohort(std::string_view name) const;
  const WorkloadPriorityClass* FindPriorityClass(std::string_view name) const;
};

// The guide's tiers from a priority value when a class has no steward.io/tier label:
// value >= 1000 production, >= 100 training, else dev (documented in docs/governance.md).
model::Tier TierForPriority(int32_t value);

}  // namespace steward::govern

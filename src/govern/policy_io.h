// Reading and writing governance policy: Kueue and Volcano YAML in, Kueue YAML and JSON out.
//
// Import accepts multi-document YAML with, per document:
//   kueue.x-k8s.io/v1beta1 (also v1beta2, v1alpha1 Cohort): ResourceFlavor, ClusterQueue,
//     LocalQueue, WorkloadPriorityClass, Cohort;
//   scheduling.volcano.sh/v1beta1: Queue (mapped onto a ClusterQueue, see docs/governance.md)
//     and PodGroup (kept as a workload template);
//   v1 Namespace (its labels feed namespaceSelector);
//   config.kueue.x-k8s.io/v1beta1|v1beta2 Configuration (fairSharing, waitForPodsReady; the
//     rest kept).
// Any other document is kept verbatim and re-emitted by export, with a warning. Fields Steward
// does not interpret are kept in the object's ExtraFields (re-emitted by export) and listed in
// Policy::warnings: never silently dropped. Invalid specs fail with "file:line:col: Kind name:
// field: what".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "govern/policy.h"
#include "model/status.h"

namespace YAML {
class Node;
}

namespace steward::govern {

// Parses `text` (one or more YAML documents) and appends its objects to `policy`. `file` only
// names the source in messages. Does not run cross-document validation (ValidatePolicy).
Status ImportYaml(std::string_view text, std::string_view file, Policy* policy);

// Imports one already-parsed document with the same rules as ImportYaml (for readers that
// meet Kueue/Volcano objects inside other input, e.g. the items of `kubectl get -o yaml`'s
// `kind: List`). Positions come from the node's marks; `file` names the source.
Status ImportDocument(const YAML::Node& doc, std::string_view file, Policy* policy);

// Reads and imports every file, then validates the whole policy.
Result<Policy> ImportPolicyFiles(const std::vector<std::string>& files);

// Cross-object checks: unique names per kind, LocalQueue -> ClusterQueue, Cohort parents and
// cycles, flavors referenced by queues. Hard errors fail; soft ones (Kueue would mark a queue
// inactive) are appended to policy->warnings.
Status ValidatePolicy(Policy* policy);

// Volcano queues have no quota of their own beyond `deserved`: the rest of the cluster is a
// shared pool. Sets the nominal quota of the cohort `volcano` (created by the Queue mapping)
// to capacity minus the Volcano queues' own nominal (deserved) quota, per resource of flavor
// kVolcanoFlavor, so idle capacity can be borrowed up to each queue's capability.
inline constexpr const char* kVolcanoFlavor = "volcano-default";
// Export writes a Volcano Queue's unmapped spec fields (dequeueStrategy, priority, ...) as
// annotations with this prefix + the field path under spec (they are not ClusterQueue fields).
inline constexpr const char* kVolcanoSpecAnnotation = "steward.io/volcano.";
inline constexpr const char* kVolcanoCohort = "volcano";
void SetVolcanoClusterCapacity(Policy* policy, const std::vector<ResourceQuota>& capacity);

// Kueue v1beta1 YAML (multi-document): ResourceFlavors, Cohorts, ClusterQueues, LocalQueues,
// WorkloadPriorityClasses, then the Configuration, Namespaces, PodGroups (Volcano) and
// pass-through documents.
// ImportYaml(ExportKueueYaml(p)) reproduces p.
std::string ExportKueueYaml(const Policy& policy);

// The normalized policy as JSON (canonical units: CPU cores, bytes, counts; missing limits
// null), including per quota `max_usable` computed with the quota tree. `indent` < 0 = compact.
// `include_warnings` = false leaves out the import warnings (for comparisons).
Result<std::string> PolicyToJson(const Policy& policy, int indent = 2,
                                 bool include_warnings = true);
// A short human-readable table of the same.
Result<std::string> PolicyToText(const Policy& policy);

}  // namespace steward::govern

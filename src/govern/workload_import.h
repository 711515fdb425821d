// Kueue Workload objects as `kubectl get workloads -A -o yaml` prints them, read for
// `steward policy simulate` together with the policy objects in the same files.
//
//   auto input = govern::LoadSimulationFiles({"cluster.yaml", "workloads.yaml"});
//   // input->policy: flavors, queues, cohorts, priority classes (policy_io.h rules)
//   // input->workloads: one WorkloadObject per Workload, pending or admitted
//
// A file holds multi-document YAML; a document may be a `kind: List` whose items are read
// one by one. Workload fields read: metadata.name/namespace/creationTimestamp/labels
// (kueue.x-k8s.io/queue-name), spec.queueName, spec.priority, spec.priorityClassName (v1beta1)
// or spec.priorityClassRef.name (v1beta2), spec.active, spec.podSets[] (name, count, minCount,
// template.spec.containers[] and initContainers[] resources.requests, nodeSelector,
// affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, tolerations),
// status.admission (clusterQueue, podSetAssignments[].flavors and count), status.conditions
// (QuotaReserved time, Finished, Evicted). Errors name file:line and the field. Cost: linear in the
// input. Thread-compatible (no shared state).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "govern/policy.h"
#include "govern/workload_request.h"
#include "model/status.h"

namespace steward::govern {

// status.admission of an admitted workload: the flavor chosen per pod set and resource.
struct WorkloadAdmission {
  std::string cluster_queue;
  struct PodSet {
    std::string name;
    std::map<std::string, std::string> flavors;  // resource -> flavor.
    int32_t count = -1;                          // -1 = the pod set's spec count.
  };
  std::vector<PodSet> pod_sets;
};

struct WorkloadObject {
  // pod_sets with per-pod requests; priority set when spec.priority is given; namespace,
  // local queue, queue timestamp (creation, in Unix microseconds as SimTime).
  WorkloadRequest request;
  std::vector<int32_t> min_counts;  // Per pod set; -1 = no partial admission.
  std::optional<WorkloadAdmission> admission;
  SimTime quota_reserved_at = SimTime::Never();  // QuotaReserved condition time, if any.
  bool finished = false;                         // Finished=True: holds nothing, ignored.
  // Why Kueue's resource validation refuses the workload (a container requesting more than its
  // limit); such a workload stays pending and is never nominated. Empty when valid.
  std::string invalid;
  SourceRef source;
};

struct SimulationInput {
  Policy policy;
  std::vector<WorkloadObject> workloads;
};

// Reads one file's text: Workload documents (also inside `kind: List`) go to `workloads`, every
// other document to the policy importer (ImportDocument).
Status ImportSimulationYaml(std::string_view text, std::string_view file, SimulationInput* input);

// Reads every file, validates the policy (ValidatePolicy) and checks that workload names are
// unique per namespace: ReadSimulationFiles then FinishSimulationInput.
Result<SimulationInput> LoadSimulationFiles(const std::vector<std::string>& files);

// Reads every file with ImportSimulationYaml, without the cross-object checks.
Result<SimulationInput> ReadSimulationFiles(const std::vector<std::string>& files);

// The cross-object checks once everything is read: ValidatePolicy, unique Workload names.
Status FinishSimulationInput(SimulationInput* input);

// Lays `overlay` over `base` (both read, not finished): an object of `overlay` replaces the one
// of the same kind and name (namespace/name for LocalQueues, PodGroups and Workloads) in
// `base`, the rest of both is kept, and an overlay Configuration replaces base's. Returns
// "Kind name" of each replaced object, in overlay order. What `policy simulate --kubeconfig`
// does with the files given next to the cluster: a proposed quota is tested against the live
// state. Cost: linear in both.
std::vector<std::string> OverlaySimulationInput(SimulationInput* base, SimulationInput overlay);

// "2024-01-02T03:04:05Z" (fractions and offsets accepted) as Unix seconds.
Result<int64_t> ParseKubeTimestamp(std::string_view text);

}  // namespace steward::govern

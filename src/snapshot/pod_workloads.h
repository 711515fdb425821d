// Workloads of a snapshot: a cluster's GPU pods grouped by owner into the twin's workloads (one
// per Job, Deployment, StatefulSet, ...), plus the Kueue Workloads still waiting for quota, and
// the teams (namespaces) they belong to.
//
//   SnapshotWorkloads w = MapWorkloads(input, pools.model_of_product, {});
//   for (const SnapshotWorkload& s : w.workloads) ...;   // running first, then waiting
//
// Mapping (docs/scenario.md, "Snapshots"):
//   - owner: the pod's controller ownerReference (else its first); a ReplicaSet whose name is
//     the Deployment's plus the pod-template-hash counts as that Deployment; a pod without an
//     owner is a workload of its own (and a note);
//   - pods = the owner's non-terminal GPU pods (terminating ones are left out), gpus_per_pod =
//     the largest request among them (MIG slices and shares count one GPU, as Kueue counts);
//   - kind: label steward.io/kind, else by owner: Deployment/ReplicaSet inference, StatefulSet
//     notebook, Kubeflow/JobSet/Ray kinds training, a Job training when its tier is, else batch;
//   - tier: label steward.io/tier, else a priority class named like a tier, else the pod's
//     priority (govern::TierForPriority), else by kind;
//   - priority class: label kueue.x-k8s.io/priority-class, else spec.priorityClassName; queue:
//     label kueue.x-k8s.io/queue-name; GPU model: a nvidia.com/gpu.product nodeSelector;
//   - team: the namespace (its steward.io/team label names the team when present);
//   - a Kueue Workload whose owner has no pods is a waiting workload (its podSets, queueName,
//     priorityClassName); Finished ones are left out.
// Pure function of its input; deterministic order. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kube/core_v1.h"
#include "model/workload.h"

namespace steward::snapshot {

// One GPU pod set of a waiting Kueue Workload (spec.podSets[]).
struct SnapshotPodSet {
  std::string name;
  int count = 1;
  int gpus_per_pod = 1;
  int min_count = 0;  // Kueue's minCount (partial admission); 0 = none.
};

struct SnapshotWorkload {
  std::string name;  // The owner's name (the pod's, without an owner).
  std::string namespace_name, team;
  std::string owner_kind;  // "Job", "Deployment", ..., "" = none.
  model::WorkloadKind kind = model::WorkloadKind::kBatch;
  model::Tier tier = model::Tier::kDev;
  std::string priority_class, queue;
  int pods = 1;
  int gpus_per_pod = 1;
  // Waiting Kueue Workloads of several GPU pod sets, or with a minCount: the pod sets as Kueue
  // has them (pods and gpus_per_pod then sum and bound them); empty = the short form.
  std::vector<SnapshotPodSet> pod_sets;
  std::string gpu_model;  // "" = any.
  bool running = true;    // false: waiting for admission (a Kueue Workload without pods).
  // Running: when its first pod started; waiting: when it was created (unix microseconds).
  std::optional<int64_t> since;
  std::map<std::string, std::string> labels;  // Labels all its pods share, minus generated ones.
  std::vector<std::string> pod_names;         // Its pods (running workloads), sorted.
  // What its GPUs did, from DCGM history (snapshot/usage_profiles.h); unset: trace defaults.
  std::optional<model::UsageProfile> usage;
};

struct SnapshotTeam {
  std::string name, namespace_name;
};

struct SnapshotWorkloads {
  std::vector<SnapshotWorkload> workloads;  // Running (by start), then waiting (by creation).
  std::vector<SnapshotTeam> teams;          // Sorted by name.
  int skipped_pods = 0;                     // Terminating pods left out.
  std::vector<std::string> notes;
};

struct WorkloadInput {
  std::vector<kube::Pod> pods;  // GPU pods (others are ignored).
  std::vector<kube::Namespace> namespaces;
  std::vector<nlohmann::json> kueue_workloads;  // kueue.x-k8s.io Workload objects.
};

// `model_of_product`: nvidia.com/gpu.product -> the snapshot's GPU model name (NodePools).
SnapshotWorkloads MapWorkloads(const WorkloadInput& input,
                               const std::map<std::string, std::string>& model_of_product);

}  // namespace steward::snapshot

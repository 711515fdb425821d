// WorkloadRequest: what the twin asks the governance engine to admit (Kueue's Workload spec).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "govern/policy.h"
#include "govern/quantity.h"
#include "model/time.h"
#include "model/workload.h"

namespace steward::govern {

struct ResourceRequest {
  std::string resource;  // "nvidia.com/gpu", "cpu", "memory", ...
  Amount amount = 0;     // Per pod, internal units (CPU in millicores).
};

struct PodSetRequest {
  std::string name = "main";
  int32_t count = 1;
  std::vector<ResourceRequest> requests;  // Per pod.
  // Used to filter flavors (only keys among a flavor's nodeLabels are compared).
  std::map<std::string, std::string> node_selector;
  // Required node affinity (requiredDuringSchedulingIgnoredDuringExecution): terms ORed, each
  // term's expressions ANDed; like node_selector, only keys among a flavor's nodeLabels count.
  std::vector<std::vector<LabelRequirement>> node_affinity;
  std::vector<Toleration> tolerations;
};

struct WorkloadRequest {
  int64_t id = 0;  // Unique per workload; the engine's key for Admit/Release.
  std::string name;
  std::string namespace_name = "default";
  std::string local_queue;              // kueue.x-k8s.io/queue-name; resolved in namespace_name.
  std::string cluster_queue;            // If set, used directly (bypasses the LocalQueue).
  std::string priority_class;           // WorkloadPriorityClass name.
  std::optional<int32_t> priority;      // Overrides the class value.
  std::optional<model::Tier> tier;      // Overrides the tier derived from the class.
  std::vector<PodSetRequest> pod_sets;  // Admitted all together or not at all.
  // Queue-order timestamp: creation time, or eviction time after a PodsReady timeout.
  SimTime queue_timestamp;
  // requeueState.requeueAt: not admissible before this instant (backoff).
  SimTime requeue_at;
  bool active = true;  // spec.active; false after the requeue limit.
  // Gang (Volcano minMember): pods that must exist before the group is considered, and how
  // many exist now (-1 = all of them, i.e. not tracked).
  int32_t min_member = 0;
  int32_t available_pods = -1;
  // Checkpointing, for tiers and lost-work accounting. Zero interval = never checkpoints.
  SimDuration checkpoint_interval;
  SimDuration restore_time;
};

}  // namespace steward::govern

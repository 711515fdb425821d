// Pod names of the twin's workloads, as Kubernetes would generate them. One function for every
// view of the twin (the Kubernetes API front, the dcgm-exporter `pod` label, diagnose's objects,
// twin::TwinClusterControl), so a pod named in a plan, an audit row, a metric or kubectl is the
// same pod everywhere.
//
//   std::string name = PodName(run, 3);   // "pretrain-000012-worker-2-x7k2q", "chat-000001-…"
//
// Shapes: a service's pods belong to a ReplicaSet, <rs>-<5-char suffix> with
// <rs> = <service>-<10-char hash>; a notebook's to a StatefulSet, <notebook>-<ordinal>; any
// other workload's to a Job, <job>-<pod set>-<ordinal>-<5-char suffix> ("main" when the pod set
// has no name). Suffixes use Kubernetes' generated-name alphabet and derive from stable ids, so
// names are deterministic.
// Cost: O(pod sets) per name. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/workload.h"

namespace steward::twin {

struct WorkloadRun;

// `length` characters of Kubernetes' generated-name alphabet derived from `seed`.
std::string NameSuffix(uint64_t seed, int length);
// FNV-1a of `text`: a stable seed for NameSuffix.
uint64_t NameHash(std::string_view text);

// The ReplicaSet that owns a service's pods.
std::string ReplicaSetName(const model::Workload& w);

// Where a placed pod sits in its workload: pod set and ordinal within it.
struct PodSlot {
  int pod_set = 0;
  int ordinal = 0;
};
// The slot of the index-th placed pod: gangs place their pod sets in order, so pods
// [0, count0) are set 0, and so on; a service's replicas are its one pod set.
PodSlot SlotOf(const model::Workload& w, int index);

std::string PodName(const model::Workload& w, PodSlot slot, int32_t pod_id);
// The name of run.pods[index].
std::string PodName(const WorkloadRun& run, int index);

}  // namespace steward::twin

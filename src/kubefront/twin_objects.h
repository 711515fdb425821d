// The twin's state as Kubernetes objects: what a GPU cluster run by the GPU Operator and Kueue
// shows to kubectl. Pure builders (no store, no change tracking; kubefront/mirror.h does
// that), shared by the API front and `steward twin nodes`.
//
//   ObjectClock clock{.epoch_micros = start};
//   kube::Node node = NodeObject(twin, n, clock, extras);
//   nlohmann::json list = NodeListJson(twin, clock);   // `kubectl get nodes -o json`
//
// How the twin maps onto objects (docs/kube-api.md):
//   node            -> Node: GFD labels, nvidia.com/gpu capacity/allocatable (a broken GPU
//                      lowers allocatable, a failed device plugin sets it to 0), Ready, and
//                      NPD-style GPUXidError / GPUMissing conditions;
//   workload        -> its owner (Deployment + ReplicaSet for services, StatefulSet for
//                      notebooks, Job otherwise) and one Pod per placed pod (PodAllocation),
//                      Pending while it starts, Running once it runs;
//   service         -> a PodDisruptionBudget (maxUnavailable 1);
//   team            -> a Namespace; the GPU Operator's DaemonSets put one pod per node.
//
// Times are the twin's simulated time shifted to `epoch_micros` (the real time `serve` began).
// Cost: O(labels + GPUs of the node) per node, O(pods) per workload. Thread: the twin's.
#pragma once

#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kube/core_v1.h"
#include "kube/policy_v1.h"
#include "model/time.h"
#include "twin/twin.h"

namespace steward::kubefront {

// Simulated time as Kubernetes timestamps.
struct ObjectClock {
  int64_t epoch_micros = 0;
  int64_t At(SimTime t) const { return epoch_micros + t.micros(); }
};

// Labels the twin computes from a node's state (hostname, OS, driver, toolkit, device plugin):
// a write may not change them (GPU feature discovery would put them back).
inline constexpr char kToolkitVersionLabel[] = "steward.io/container-toolkit-version";
inline constexpr char kDevicePluginVersionLabel[] = "steward.io/device-plugin-version";
inline constexpr char kDriverVersionLabel[] = "nvidia.com/cuda.driver-version.full";
inline constexpr char kRemediationAnnotation[] = "steward.io/remediation-state";
inline constexpr char kGpuOperatorNamespace[] = "gpu-operator";
std::map<std::string, std::string> DerivedNodeLabels(const model::Node& node);
// The taint the node lifecycle controller adds to a cordoned node.
bool IsControllerTaint(const std::string& key);

// Per-node state the twin does not hold: annotations written through the API, the remediation
// loop's state of the node.
struct NodeExtras {
  std::map<std::string, std::string> annotations;
  std::string remediation_state;  // "" = healthy / no loop.
  // When the GPU conditions last turned true (their lastTransitionTime).
  int64_t xid_since = 0, missing_since = 0;
};

kube::Node NodeObject(const twin::Twin& twin, model::NodeId n, const ObjectClock& clock,
                      const NodeExtras& extras = {});
// `kubectl get nodes -o json` of the twin now (a v1 List).
nlohmann::json NodeListJson(const twin::Twin& twin, const ObjectClock& clock = {});

// One placed pod of a workload.
struct PodRef {
  model::WorkloadId workload = 0;
  int32_t pod_id = 0;
  int pod_set = 0;  // Index into spec.pod_sets.
  int ordinal = 0;  // Within its pod set.
  const twin::PodAllocation* allocation = nullptr;
};
// The placed pods of a run, with their pod set and ordinal.
std::vector<PodRef> PodsOf(const twin::WorkloadRun& run);

// What owns a workload's pods.
struct OwnerRef {
  std::string api_version, kind, name;  // e.g. apps/v1 ReplicaSet chat-large-000001-6d9f7c
};
OwnerRef PodOwner(const model::Workload& w);
// The pod's name: Job pods <job>-<podset>-<ordinal>-<suffix>, ReplicaSet pods <rs>-<suffix>,
// StatefulSet pods <sts>-<ordinal>.
std::string PodName(const model::Workload& w, const PodRef& pod);

// Per-pod state the twin does not hold (the mirror remembers it).
struct PodExtras {
  int64_t created_micros = 0;
  int64_t running_since_micros = 0;  // 0 = not running.
  std::optional<int64_t> deletion_micros;  // Being evicted / deleted: deletionTimestamp.
  int64_t grace_seconds = 30;
  std::map<std::string, std::string> labels, annotations;  // Written through the API.
};

kube::Pod PodObject(const twin::Twin& twin, const twin::WorkloadRun& run, const PodRef& pod,
                    const PodExtras& extras);
// The owner objects of a workload's pods (a Deployment and its ReplicaSet, a StatefulSet, or a
// Job), as JSON.
std::vector<nlohmann::json> OwnerObjects(const twin::Twin& twin, const twin::WorkloadRun& run,
                                         int64_t created_micros, int running_pods);
// A service's PodDisruptionBudget; `pods` / `ready` are its existing and running replicas.
kube::PodDisruptionBudget ServiceBudget(const model::Workload& w, int64_t created_micros,
                                        int64_t pods, int64_t ready);
// The labels every pod of `w` carries (selectors of its owner and budget among them).
std::map<std::string, std::string> WorkloadPodLabels(const twin::Twin& twin,
                                                     const model::Workload& w);

// The namespaces of the twin's cluster: system ones and one per team.
std::vector<kube::Namespace> NamespaceObjects(const twin::Twin& twin, int64_t created_micros);
// The GPU Operator's DaemonSets (device plugin, dcgm-exporter) and their pod on `n`.
std::vector<nlohmann::json> OperatorDaemonSets(const twin::Twin& twin, int64_t created_micros);
std::vector<kube::Pod> OperatorPods(const twin::Twin& twin, model::NodeId n,
                                    int64_t created_micros);

}  // namespace steward::kubefront

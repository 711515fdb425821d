// The series a diagnosis reads from Prometheus, in one place: the DCGM fields and the
// kube-state-metrics (KSM) families that carry the pod and node objects. The OpenMetrics
// writer emits exactly these; the Prometheus source queries exactly these.
//
// KSM names and labels (kubernetes/kube-state-metrics docs/pod-metrics.md, node-metrics.md):
//   kube_pod_container_resource_requests{namespace,pod,container,node,resource="nvidia_com_gpu"}
//   kube_pod_info{namespace,pod,node,created_by_kind,created_by_name}
//   kube_pod_owner{namespace,pod,owner_kind,owner_name,owner_is_controller}
//   kube_pod_labels{namespace,pod,label_<key>}       (keys need --metric-labels-allowlist)
//   kube_pod_nodeselectors{namespace,pod,nodeselector_<key>}  (opt-in family)
//   kube_pod_status_phase{namespace,pod,phase}       1 for the current phase, 0 for the others
//   kube_pod_status_scheduled{namespace,pod,condition="true|false|unknown"}
//   kube_pod_status_unschedulable{namespace,pod}     1 while PodScheduled=False/Unschedulable
//   kube_node_status_allocatable{node,resource="nvidia_com_gpu",unit="integer"}
//   kube_node_spec_unschedulable{node}
//   kube_node_labels{node,label_<key>}
//   kube_node_status_condition{node,condition="Ready",status="true|false|unknown"}
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "telemetry/dcgm_fields.h"

namespace steward::diagnose {

// DCGM fields the classifier reads (SM, with GR_ENGINE and GPU_UTIL as fallbacks, tensor,
// memory).
inline constexpr std::array<telemetry::DcgmField, 5> kDiagnoseFields = {
    telemetry::DcgmField::kSmActive, telemetry::DcgmField::kGrEngineActive,
    telemetry::DcgmField::kPipeTensorActive, telemetry::DcgmField::kGpuUtil,
    telemetry::DcgmField::kFbUsed};

inline constexpr char kKsmPodRequests[] = "kube_pod_container_resource_requests";
inline constexpr char kKsmPodInfo[] = "kube_pod_info";
inline constexpr char kKsmPodOwner[] = "kube_pod_owner";
inline constexpr char kKsmPodLabels[] = "kube_pod_labels";
inline constexpr char kKsmPodNodeSelectors[] = "kube_pod_nodeselectors";
inline constexpr char kKsmPodPhase[] = "kube_pod_status_phase";
inline constexpr char kKsmPodScheduled[] = "kube_pod_status_scheduled";
inline constexpr char kKsmPodUnschedulable[] = "kube_pod_status_unschedulable";
inline constexpr char kKsmNodeAllocatable[] = "kube_node_status_allocatable";
inline constexpr char kKsmNodeUnschedulable[] = "kube_node_spec_unschedulable";
inline constexpr char kKsmNodeLabels[] = "kube_node_labels";
inline constexpr char kKsmNodeCondition[] = "kube_node_status_condition";
// KSM's name for the nvidia.com/gpu resource.
inline constexpr char kKsmGpuResource[] = "nvidia_com_gpu";

// KSM's label for a Kubernetes label or selector key: `prefix` + "_" + the key with every
// character outside [a-zA-Z0-9_] replaced by '_' ("team" -> "label_team",
// "nvidia.com/gpu.product" -> "label_nvidia_com_gpu_product").
inline std::string KsmLabel(std::string_view prefix, std::string_view key) {
  std::string s(prefix);
  s += '_';
  for (char c : key) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    s += ok ? c : '_';
  }
  return s;
}

}  // namespace steward::diagnose

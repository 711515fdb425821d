// The Kubernetes objects a diagnosis reads next to the GPU series: pods (who holds or waits for
// GPUs, and why they wait) and nodes (allocatable GPUs, cordons, GPU product). Every source
// produces these same structs: the twin from its state, a bundle from `kubectl get pods -o json`,
// Prometheus from kube-state-metrics series.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "health/node_list.h"
#include "model/status.h"

namespace steward::diagnose {

enum class PodPhase : uint8_t { kPending, kRunning, kOther };  // Other: Succeeded/Failed/Unknown.
std::string_view PodPhaseName(PodPhase phase);                 // "Pending", "Running", "Other".

// Why an unbound pending pod waits.
enum class PodWait : uint8_t {
  kNone,    // Bound, not pending, or not yet seen by the scheduler.
  kNoFit,   // PodScheduled=False, reason Unschedulable: the scheduler found no node with room.
  kQueued,  // Held before scheduling: scheduling gates (Kueue's admission gate), PodScheduled=False
            // reason SchedulingGated. The work waits for quota, not for a node.
};

// The pod label naming the product a pod's nodeSelector asks for (GPU feature discovery).
inline constexpr char kGpuProductLabel[] = "nvidia.com/gpu.product";
// The scheduling gate Kueue's pod integration puts on pods until their workload is admitted.
inline constexpr char kKueueAdmissionGate[] = "kueue.x-k8s.io/admission";

struct PodObject {
  std::string namespace_name;
  std::string name;
  std::map<std::string, std::string> labels;
  std::string owner_kind;  // Controller ownerReference (else the first one); "" = none.
  std::string owner_name;
  std::string node;         // spec.nodeName; "" = not bound.
  std::string container;    // First container asking for GPUs ("" = none).
  int gpus = 0;             // nvidia.com/gpu over containers: max(request, limit) each.
  std::string gpu_product;  // nodeSelector nvidia.com/gpu.product; "" = any.
  PodPhase phase = PodPhase::kPending;
  PodWait wait = PodWait::kNone;
  std::string wait_message;  // The PodScheduled condition's message, when waiting.
};

// Parses a v1 PodList (or a single Pod) as `kubectl get pods -A -o json` prints it, keeping
// the pods that ask for GPUs. Errors name `source` and the item and field
// ("pods.json: items[3].spec.containers[0].resources.limits[\"nvidia.com/gpu\"]: ...");
// malformed JSON names the line and column. Never throws.
Result<std::vector<PodObject>> ParsePodList(std::string_view json_text, std::string_view source);
Result<std::vector<PodObject>> LoadPodList(const std::filesystem::path& path);
// The PodList JSON that ParsePodList reads back into `pods` (what kubectl would print, reduced
// to the fields Steward reads plus apiVersion/kind).
nlohmann::json PodListJson(const std::vector<PodObject>& pods);
// The NodeList JSON that health::ParseNodeList reads back into `nodes`.
nlohmann::json NodeListJson(const std::vector<health::NodeInfo>& nodes);

// Who a pod's GPU-hours are charged to.
struct Attribution {
  // Pod label naming the team; without it the namespace is the team.
  std::string team_label = "team";
  // Pod label naming the workload; without it the controller owner (a ReplicaSet's hash suffix
  // dropped, so Deployment pods group), without that the pod itself.
  std::string workload_label = "steward.io/workload";
  // Pod label naming the job template or application a pod comes from: right-sizing groups the
  // pods of a team that share it. The twin puts its generator's name there.
  std::string class_label = "app.kubernetes.io/name";
};
std::string TeamOf(const PodObject& pod, const Attribution& a);
// "namespace/workload".
std::string WorkloadOf(const PodObject& pod, const Attribution& a);
// The right-sizing class: "team/<class label>", or the workload (WorkloadOf) without the label.
std::string ClassOf(const PodObject& pod, const Attribution& a);
// The kind of what owns the pod, as a diagnosis row names it: a ReplicaSet's pods belong to
// their Deployment; a pod without a controller is its own ("Pod").
std::string OwnerKindOf(const PodObject& pod);

}  // namespace steward::diagnose

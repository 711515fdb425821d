// core/v1 kinds Steward reads and serves: Node, Pod, Namespace, Event, ConfigMap; reduced to
// the fields GPU governance needs (what the GPU Operator, kubelet, Kueue and kubectl set and
// read), each with ToJson and a Decode that never throws (kube/json_decoder.h).
//
//   JsonDecoder d("pods item 3");
//   Pod pod = DecodePod(d, item);
//   if (!d.status().ok()) return d.status();
//   int gpus = pod.GpuRequest();
//
// Fields not listed here are dropped by Decode: the client patches what it changes and never
// writes back an object it decoded. Plain values: thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kube/json_decoder.h"
#include "kube/meta.h"

namespace steward::kube {

inline constexpr char kGpuResource[] = "nvidia.com/gpu";
// The taint kubectl cordon's spec.unschedulable implies (the node lifecycle controller adds it).
inline constexpr char kUnschedulableTaint[] = "node.kubernetes.io/unschedulable";

struct Taint {
  std::string key, value, effect;  // effect: NoSchedule | PreferNoSchedule | NoExecute.
  std::optional<int64_t> time_added;
  bool operator==(const Taint&) const = default;
};

struct Toleration {
  std::string key, op = "Equal", value, effect;  // op: Equal | Exists; effect "" = all.
  std::optional<int64_t> toleration_seconds;
  bool Tolerates(const Taint& taint) const;
  bool operator==(const Toleration&) const = default;
};

struct Condition {
  std::string type, status, reason, message;  // status: True | False | Unknown.
  std::optional<int64_t> last_heartbeat_time, last_transition_time;
  bool operator==(const Condition&) const = default;
};

struct NodeSystemInfo {
  std::string kubelet_version, container_runtime_version, kernel_version, os_image;
  std::string architecture = "amd64", operating_system = "linux", machine_id;
  bool operator==(const NodeSystemInfo&) const = default;
};

struct Node {
  ObjectMeta metadata;
  bool unschedulable = false;
  std::vector<Taint> taints;
  std::string provider_id;
  std::map<std::string, std::string> capacity, allocatable;  // Quantities as text.
  std::vector<Condition> conditions;
  std::vector<std::pair<std::string, std::string>> addresses;  // (type, address).
  NodeSystemInfo node_info;
  bool operator==(const Node&) const = default;

  // The condition of `type`, or null.
  const Condition* FindCondition(std::string_view type) const;
  // Ready is True (a node without the condition is not ready).
  bool Ready() const;
  // Whole GPUs in capacity/allocatable: nvidia.com/gpu plus nvidia.com/mig-* resources.
  int64_t GpuCapacity() const;
  int64_t GpuAllocatable() const;
};

struct ResourceRequirements {
  std::map<std::string, std::string> requests, limits;
  bool operator==(const ResourceRequirements&) const = default;
};

struct Container {
  std::string name, image;
  ResourceRequirements resources;
  bool operator==(const Container&) const = default;
};

struct Volume {
  std::string name;
  bool empty_dir = false;  // An emptyDir volume (kubectl drain needs --delete-emptydir-data).
  std::string empty_dir_medium;
  bool operator==(const Volume&) const = default;
};

struct ContainerStatus {
  std::string name;
  bool ready = false;
  int64_t restart_count = 0;
  std::string state;         // waiting | running | terminated
  std::string state_reason;  // e.g. ContainerCreating, Completed.
  std::optional<int64_t> started_at;
  bool operator==(const ContainerStatus&) const = default;
};

struct Pod {
  ObjectMeta metadata;
  // spec
  std::string node_name, scheduler_name, priority_class_name, service_account_name;
  std::optional<int64_t> priority;
  std::optional<int64_t> termination_grace_period_seconds;
  std::map<std::string, std::string> node_selector;
  std::vector<Container> containers;
  std::vector<Toleration> tolerations;
  std::vector<Volume> volumes;
  std::string restart_policy;
  // status
  std::string phase;  // Pending | Running | Succeeded | Failed | Unknown.
  std::string reason, message;
  std::vector<Condition> conditions;
  std::optional<int64_t> start_time;
  std::vector<ContainerStatus> container_statuses;
  std::string host_ip, pod_ip, qos_class;
  bool operator==(const Pod&) const = default;

  // Sum over containers of requests (limits when a request is absent, as for extended
  // resources) of `resource` in govern/quantity.h units (CPU in millicores); 0 when unset or
  // unparsable.
  int64_t ResourceRequest(std::string_view resource) const;
  // Whole GPUs: nvidia.com/gpu plus one per MIG instance (nvidia.com/mig-*), each resource
  // from its request or, without one, its limit.
  int64_t GpuRequest() const;
  bool Terminal() const { return phase == "Succeeded" || phase == "Failed"; }
  bool Ready() const;
};

struct Namespace {
  ObjectMeta metadata;
  std::string phase = "Active";
  bool operator==(const Namespace&) const = default;
};

struct ObjectReference {
  std::string api_version, kind, namespace_name, name, uid, resource_version, field_path;
  bool operator==(const ObjectReference&) const = default;
};

// core/v1 Event (what `kubectl get events` lists).
struct Event {
  ObjectMeta metadata;
  ObjectReference involved_object;
  std::string reason, message, type = "Normal";  // type: Normal | Warning.
  int64_t count = 1;
  std::optional<int64_t> first_timestamp, last_timestamp, event_time;
  std::string source_component, source_host;
  std::string reporting_component, reporting_instance, action;
  bool operator==(const Event&) const = default;
};

struct ConfigMap {
  ObjectMeta metadata;
  std::map<std::string, std::string> data;
  bool operator==(const ConfigMap&) const = default;
};

nlohmann::json ToJson(const Node& node);
nlohmann::json ToJson(const Pod& pod);
nlohmann::json ToJson(const Namespace& ns);
nlohmann::json ToJson(const Event& event);
nlohmann::json ToJson(const ConfigMap& config_map);

Node DecodeNode(JsonDecoder& d, const nlohmann::json& j);
Pod DecodePod(JsonDecoder& d, const nlohmann::json& j);
Namespace DecodeNamespace(JsonDecoder& d, const nlohmann::json& j);
Event DecodeEvent(JsonDecoder& d, const nlohmann::json& j);
ConfigMap DecodeConfigMap(JsonDecoder& d, const nlohmann::json& j);

}  // namespace steward::kube

#include "kube/core_v1.h"

#include <fmt/format.h>

#include "govern/quantity.h"

namespace steward::kube {
namespace {

using nlohmann::json;

json ToJson(const Condition& c, bool heartbeat) {
  json j = {{"type", c.type}, {"status", c.status}};
  if (!c.reason.empty()) j["reason"] = c.reason;
  if (!c.message.empty()) j["message"] = c.message;
  if (heartbeat && c.last_heartbeat_time)
    j["lastHeartbeatTime"] = FormatTime(*c.last_heartbeat_time);
  if (c.last_transition_time) j["lastTransitionTime"] = FormatTime(*c.last_transition_time);
  // Pod conditions carry lastProbeTime: null in real answers; kubectl does not need it.
  return j;
}

std::vector<Condition> DecodeConditions(JsonDecoder& d, const json& status, std::string_view path) {
  std::vector<Condition> out;
  const std::string p = std::string(path) + ".conditions[]";
  for (const json& c : d.Objects(status, path, "conditions")) {
    Condition x;
    x.type = d.String(c, p, "type");
    x.status = d.String(c, p, "status");
    x.reason = d.String(c, p, "reason");
    x.message = d.String(c, p, "message");
    x.last_heartbeat_time = d.Time(c, p, "lastHeartbeatTime");
    x.last_transition_time = d.Time(c, p, "lastTransitionTime");
    out.push_back(std::move(x));
  }
  return out;
}

json ToJson(const Taint& t) {
  json j = {{"key", t.key}, {"effect", t.effect}};
  if (!t.value.empty()) j["value"] = t.value;
  if (t.time_added) j["timeAdded"] = FormatTime(*t.time_added);
  return j;
}

Taint DecodeTaint(JsonDecoder& d, const json& j, std::string_view p) {
  Taint t;
  t.key = d.String(j, p, "key");
  t.value = d.String(j, p, "value");
  t.effect = d.String(j, p, "effect");
  t.time_added = d.Time(j, p, "timeAdded");
  return t;
}

json ToJson(const Toleration& t) {
  json j = json::object();
  if (!t.key.empty()) j["key"] = t.key;
  if (!t.op.empty()) j["operator"] = t.op;
  if (!t.value.empty()) j["value"] = t.value;
  if (!t.effect.empty()) j["effect"] = t.effect;
  if (t.toleration_seconds) j["tolerationSeconds"] = *t.toleration_seconds;
  return j;
}

// Whole-unit sum of the GPU resources of a resource list.
int64_t GpuUnits(const std::map<std::string, std::string>& resources) {
  int64_t total = 0;
  for (const auto& [name, value] : resources) {
    if (name != kGpuResource && name.rfind("nvidia.com/mig-", 0) != 0) continue;
    Result<govern::Amount> a = govern::ParseQuantity(value, name);
    if (a.ok()) total += *a;
  }
  return total;
}

}  // namespace

bool Toleration::Tolerates(const Taint& taint) const {
  if (!effect.empty() && effect != taint.effect) return false;
  if (key.empty()) return op == "Exists";  // An empty key with Exists tolerates everything.
  if (key != taint.key) return false;
  return op == "Exists" || value == taint.value;
}

const Condition* Node::FindCondition(std::string_view type) const {
  for (const Condition& c : conditions)
    if (c.type == type) return &c;
  return nullptr;
}

bool Node::Ready() const {
  const Condition* c = FindCondition("Ready");
  return c && c->status == "True";
}

int64_t Node::GpuCapacity() const { return GpuUnits(capacity); }
int64_t Node::GpuAllocatable() const { return GpuUnits(allocatable); }

int64_t Pod::ResourceRequest(std::string_view resource) const {
  int64_t total = 0;
  const std::string name(resource);
  for (const Container& c : containers) {
    auto it = c.resources.requests.find(name);
    if (it == c.resources.requests.end()) {
      it = c.resources.limits.find(name);
      if (it == c.resources.limits.end()) continue;
    }
    Result<govern::Amount> a = govern::ParseQuantity(it->second, name);
    if (a.ok()) total += *a;
  }
  return total;
}

int64_t Pod::GpuRequest() const {
  int64_t total = 0;
  for (const Container& c : containers) {
    // A resource with a limit and no request requests its limit (API defaulting, per
    // resource): `requests: {cpu: 4}, limits: {nvidia.com/gpu: 1}` asks for one GPU.
    std::map<std::string, std::string> effective = c.resources.limits;
    for (const auto& [name, value] : c.resources.requests) effective[name] = value;
    total += GpuUnits(effective);
  }
  return total;
}

bool Pod::Ready() const {
  for (const Condition& c : conditions)
    if (c.type == "Ready") return c.status == "True";
  return false;
}

json ToJson(const Node& n) {
  json spec = json::object();
  if (n.unschedulable) spec["unschedulable"] = true;
  if (!n.provider_id.empty()) spec["providerID"] = n.provider_id;
  if (!n.taints.empty()) {
    json& taints = spec["taints"] = json::array();
    for (const Taint& t : n.taints) taints.push_back(ToJson(t));
  }
  json status = json::object();
  SetIfNotEmpty(status, "capacity", n.capacity);
  SetIfNotEmpty(status, "allocatable", n.allocatable);
  json& conditions = status["conditions"] = json::array();
  for (const Condition& c : n.conditions) conditions.push_back(ToJson(c, true));
  if (!n.addresses.empty()) {
    json& a = status["addresses"] = json::array();
    for (const auto& [type, address] : n.addresses)
      a.push_back({{"type", type}, {"address", address}});
  }
  const NodeSystemInfo& i = n.node_info;
  status["nodeInfo"] = {{"kubeletVersion", i.kubelet_version},
                        {"kubeProxyVersion", ""},
                        {"containerRuntimeVersion", i.container_runtime_version},
                        {"kernelVersion", i.kernel_version},
                        {"osImage", i.os_image},
                        {"architecture", i.architecture},
                        {"operatingSystem", i.operating_system},
                        {"machineID", i.machine_id},
                        {"systemUUID", i.machine_id},
                        {"bootID", ""}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", ToJson(n.metadata)},
          {"spec", spec},
          {"status", status}};
}

Node DecodeNode(JsonDecoder& d, const json& j) {
  Node n;
  n.metadata = DecodeMeta(d, j);
  const json& spec = d.Object(j, "", "spec");
  n.unschedulable = d.Bool(spec, "spec", "unschedulable");
  n.provider_id = d.String(spec, "spec", "providerID");
  for (const json& t : d.Objects(spec, "spec", "taints"))
    n.taints.push_back(DecodeTaint(d, t, "spec.taints[]"));
  const json& status = d.Object(j, "", "status");
  n.capacity = d.StringMap(status, "status", "capacity");
  n.allocatable = d.StringMap(status, "status", "allocatable");
  n.conditions = DecodeConditions(d, status, "status");
  for (const json& a : d.Objects(status, "status", "addresses"))
    n.addresses.emplace_back(d.String(a, "status.addresses[]", "type"),
                             d.String(a, "status.addresses[]", "address"));
  const json& info = d.Object(status, "status", "nodeInfo");
  constexpr std::string_view ip = "status.nodeInfo";
  n.node_info.kubelet_version = d.String(info, ip, "kubeletVersion");
  n.node_info.container_runtime_version = d.String(info, ip, "containerRuntimeVersion");
  n.node_info.kernel_version = d.String(info, ip, "kernelVersion");
  n.node_info.os_image = d.String(info, ip, "osImage");
  n.node_info.architecture = d.String(info, ip, "architecture");
  n.node_info.operating_system = d.String(info, ip, "operatingSystem");
  n.node_info.machine_id = d.String(info, ip, "machineID");
  return n;
}

json ToJson(const Pod& p) {
  json spec = json::object();
  json& containers = spec["containers"] = json::array();
  for (const Container& c : p.containers) {
    json r = json::object();
    SetIfNotEmpty(r, "requests", c.resources.requests);
    SetIfNotEmpty(r, "limits", c.resources.limits);
    containers.push_back({{"name", c.name}, {"image", c.image}, {"resources", r}});
  }
  if (!p.node_name.empty()) spec["nodeName"] = p.node_name;
  if (!p.scheduler_name.empty()) spec["schedulerName"] = p.scheduler_name;
  if (!p.priority_class_name.empty()) spec["priorityClassName"] = p.priority_class_name;
  if (!p.service_account_name.empty()) spec["serviceAccountName"] = p.service_account_name;
  if (p.priority) spec["priority"] = *p.priority;
  if (p.termination_grace_period_seconds)
    spec["terminationGracePeriodSeconds"] = *p.termination_grace_period_seconds;
  if (!p.restart_policy.empty()) spec["restartPolicy"] = p.restart_policy;
  SetIfNotEmpty(spec, "nodeSelector", p.node_selector);
  if (!p.tolerations.empty()) {
    json& t = spec["tolerations"] = json::array();
    for (const Toleration& x : p.tolerations) t.push_back(ToJson(x));
  }
  if (!p.volumes.empty()) {
    json& v = spec["volumes"] = json::array();
    for (const Volume& x : p.volumes) {
      json e = json::object();
      if (!x.empty_dir_medium.empty()) e["medium"] = x.empty_dir_medium;
      if (x.empty_dir)
        v.push_back({{"name", x.name}, {"emptyDir", e}});
      else
        v.push_back({{"name", x.name}});
    }
  }
  json status = json::object();
  if (!p.phase.empty()) status["phase"] = p.phase;
  if (!p.reason.empty()) status["reason"] = p.reason;
  if (!p.message.empty()) status["message"] = p.message;
  if (!p.conditions.empty()) {
    json& c = status["conditions"] = json::array();
    for (const Condition& x : p.conditions) c.push_back(ToJson(x, false));
  }
  if (!p.host_ip.empty()) status["hostIP"] = p.host_ip;
  if (!p.pod_ip.empty()) status["podIP"] = p.pod_ip;
  if (p.start_time) status["startTime"] = FormatTime(*p.start_time);
  if (!p.container_statuses.empty()) {
    json& cs = status["containerStatuses"] = json::array();
    for (const ContainerStatus& s : p.container_statuses) {
      json state = json::object();
      if (s.state == "running") {
        state["running"] = json::object();
        if (s.started_at) state["running"]["startedAt"] = FormatTime(*s.started_at);
      } else if (!s.state.empty()) {
        state[s.state] = json::object();
        if (!s.state_reason.empty()) state[s.state]["reason"] = s.state_reason;
      }
      cs.push_back({{"name", s.name},
                    {"ready", s.ready},
                    {"restartCount", s.restart_count},
                    {"started", s.state == "running"},
                    {"image", ""},
                    {"imageID", ""},
                    {"state", state}});
    }
  }
  if (!p.qos_class.empty()) status["qosClass"] = p.qos_class;
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", ToJson(p.metadata)},
          {"spec", spec},
          {"status", status}};
}

Pod DecodePod(JsonDecoder& d, const json& j) {
  Pod p;
  p.metadata = DecodeMeta(d, j);
  const json& spec = d.Object(j, "", "spec");
  constexpr std::string_view sp = "spec";
  for (const json& c : d.Objects(spec, sp, "containers")) {
    constexpr std::string_view cp = "spec.containers[]";
    Container x;
    x.name = d.String(c, cp, "name");
    x.image = d.String(c, cp, "image");
    const json& r = d.Object(c, cp, "resources");
    x.resources.requests = d.StringMap(r, "spec.containers[].resources", "requests");
    x.resources.limits = d.StringMap(r, "spec.containers[].resources", "limits");
    p.containers.push_back(std::move(x));
  }
  p.node_name = d.String(spec, sp, "nodeName");
  p.scheduler_name = d.String(spec, sp, "schedulerName");
  p.priority_class_name = d.String(spec, sp, "priorityClassName");
  p.service_account_name = d.String(spec, sp, "serviceAccountName");
  p.priority = d.OptionalInt(spec, sp, "priority");
  p.termination_grace_period_seconds = d.OptionalInt(spec, sp, "terminationGracePeriodSeconds");
  p.restart_policy = d.String(spec, sp, "restartPolicy");
  p.node_selector = d.StringMap(spec, sp, "nodeSelector");
  for (const json& t : d.Objects(spec, sp, "tolerations")) {
    constexpr std::string_view tp = "spec.tolerations[]";
    Toleration x;
    x.key = d.String(t, tp, "key");
    x.op = d.String(t, tp, "operator");
    if (x.op.empty()) x.op = "Equal";
    x.value = d.String(t, tp, "value");
    x.effect = d.String(t, tp, "effect");
    x.toleration_seconds = d.OptionalInt(t, tp, "tolerationSeconds");
    p.tolerations.push_back(std::move(x));
  }
  for (const json& v : d.Objects(spec, sp, "volumes")) {
    Volume x;
    x.name = d.String(v, "spec.volumes[]", "name");
    if (v.is_object() && v.contains("emptyDir")) {
      x.empty_dir = true;
      x.empty_dir_medium =
          d.String(d.Object(v, "spec.volumes[]", "emptyDir"), "spec.volumes[].emptyDir", "medium");
    }
    p.volumes.push_back(std::move(x));
  }
  const json& status = d.Object(j, "", "status");
  constexpr std::string_view stp = "status";
  p.phase = d.String(status, stp, "phase");
  p.reason = d.String(status, stp, "reason");
  p.message = d.String(status, stp, "message");
  p.conditions = DecodeConditions(d, status, stp);
  p.start_time = d.Time(status, stp, "startTime");
  p.host_ip = d.String(status, stp, "hostIP");
  p.pod_ip = d.String(status, stp, "podIP");
  p.qos_class = d.String(status, stp, "qosClass");
  for (const json& c : d.Objects(status, stp, "containerStatuses")) {
    constexpr std::string_view cp = "status.containerStatuses[]";
    ContainerStatus s;
    s.name = d.String(c, cp, "name");
    s.ready = d.Bool(c, cp, "ready");
    s.restart_count = d.Int(c, cp, "restartCount");
    const json& state = d.Object(c, cp, "state");
    for (const char* key : {"running", "waiting", "terminated"}) {
      if (!state.contains(key)) continue;
      s.state = key;
      constexpr std::string_view statep = "status.containerStatuses[].state";
      const json& detail = d.Object(state, statep, key);
      const std::string detailp = fmt::format("{}.{}", statep, key);
      s.state_reason = d.String(detail, detailp, "reason");
      s.started_at = d.Time(detail, detailp, "startedAt");
    }
    p.container_statuses.push_back(std::move(s));
  }
  return p;
}

json ToJson(const Namespace& ns) {
  return {{"apiVersion", "v1"},
          {"kind", "Namespace"},
          {"metadata", ToJson(ns.metadata)},
          {"spec", {{"finalizers", {"kubernetes"}}}},
          {"status", {{"phase", ns.phase}}}};
}

Namespace DecodeNamespace(JsonDecoder& d, const json& j) {
  Namespace ns;
  ns.metadata = DecodeMeta(d, j);
  ns.phase = d.String(d.Object(j, "", "status"), "status", "phase");
  return ns;
}

json ToJson(const Event& e) {
  const ObjectReference& o = e.involved_object;
  json involved = {{"kind", o.kind}, {"name", o.name}};
  if (!o.api_version.empty()) involved["apiVersion"] = o.api_version;
  if (!o.namespace_name.empty()) involved["namespace"] = o.namespace_name;
  if (!o.uid.empty()) involved["uid"] = o.uid;
  if (!o.resource_version.empty()) involved["resourceVersion"] = o.resource_version;
  if (!o.field_path.empty()) involved["fieldPath"] = o.field_path;
  json j = {{"apiVersion", "v1"},
            {"kind", "Event"},
            {"metadata", ToJson(e.metadata)},
            {"involvedObject", involved},
            {"reason", e.reason},
            {"message", e.message},
            {"type", e.type},
            {"count", e.count}};
  json source = json::object();
  if (!e.source_component.empty()) source["component"] = e.source_component;
  if (!e.source_host.empty()) source["host"] = e.source_host;
  j["source"] = source;
  j["firstTimestamp"] = e.first_timestamp ? json(FormatTime(*e.first_timestamp)) : json(nullptr);
  j["lastTimestamp"] = e.last_timestamp ? json(FormatTime(*e.last_timestamp)) : json(nullptr);
  j["eventTime"] = e.event_time ? json(FormatTime(*e.event_time, true)) : json(nullptr);
  j["reportingComponent"] = e.reporting_component;
  j["reportingInstance"] = e.reporting_instance;
  if (!e.action.empty()) j["action"] = e.action;
  return j;
}

Event DecodeEvent(JsonDecoder& d, const json& j) {
  Event e;
  e.metadata = DecodeMeta(d, j);
  const json& o = d.Object(j, "", "involvedObject");
  constexpr std::string_view op = "involvedObject";
  e.involved_object.api_version = d.String(o, op, "apiVersion");
  e.involved_object.kind = d.String(o, op, "kind");
  e.involved_object.namespace_name = d.String(o, op, "namespace");
  e.involved_object.name = d.String(o, op, "name");
  e.involved_object.uid = d.String(o, op, "uid");
  e.involved_object.resource_version = d.String(o, op, "resourceVersion");
  e.involved_object.field_path = d.String(o, op, "fieldPath");
  e.reason = d.String(j, "", "reason");
  e.message = d.String(j, "", "message");
  e.type = d.String(j, "", "type");
  e.count = d.Int(j, "", "count", 1);
  e.first_timestamp = d.Time(j, "", "firstTimestamp");
  e.last_timestamp = d.Time(j, "", "lastTimestamp");
  e.event_time = d.Time(j, "", "eventTime");
  const json& source = d.Object(j, "", "source");
  e.source_component = d.String(source, "source", "component");
  e.source_host = d.String(source, "source", "host");
  e.reporting_component = d.String(j, "", "reportingComponent");
  e.reporting_instance = d.String(j, "", "reportingInstance");
  e.action = d.String(j, "", "action");
  return e;
}

json ToJson(const ConfigMap& c) {
  json j = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", ToJson(c.metadata)}};
  SetIfNotEmpty(j, "data", c.data);
  return j;
}

ConfigMap DecodeConfigMap(JsonDecoder& d, const json& j) {
  ConfigMap c;
  c.metadata = DecodeMeta(d, j);
  c.data = d.StringMap(j, "", "data");
  return c;
}

}  // namespace steward::kube

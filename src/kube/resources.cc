#include "kube/resources.h"

#include <fmt/format.h>

#include "kube/json_decoder.h"

namespace steward::kube {
namespace {

using nlohmann::json;

const json* At(const json& object, std::string_view path) {
  const json* cur = &object;
  size_t i = 0;
  while (i <= path.size()) {
    const size_t dot = path.find('.', i);
    const std::string key(path.substr(i, dot == std::string_view::npos ? path.npos : dot - i));
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (dot == std::string_view::npos) break;
    i = dot + 1;
  }
  return cur;
}

json Cell(const json& object, std::string_view path) {
  const json* v = At(object, path);
  return v && !v->is_object() && !v->is_array() ? *v : json(nullptr);
}

json Time(const json& object, std::string_view path) {
  const json* v = At(object, path);
  if (!v || !v->is_string()) return nullptr;
  std::optional<int64_t> t = ParseTime(v->get<std::string>());
  return t ? json(*t) : json(nullptr);
}

json Age(const json& o) { return Time(o, "metadata.creationTimestamp"); }
std::string Name(const json& o) { return PathString(o, "metadata.name"); }

// Status of the condition of `type`, "" when absent.
std::string ConditionStatus(const json& object, std::string_view type) {
  const json* conditions = At(object, "status.conditions");
  if (!conditions || !conditions->is_array()) return {};
  for (const json& c : *conditions)
    if (c.is_object() && c.value("type", "") == type) return c.value("status", "");
  return {};
}

TableColumn Col(std::string name, std::string type = "string", int priority = 0,
                std::string format = "") {
  return TableColumn{std::move(name), std::move(type), std::move(format), "", priority};
}

ApiResourceSpec Spec(std::string group, std::vector<std::string> versions, std::string plural,
                     std::string singular, std::string kind, bool namespaced) {
  ApiResourceSpec s;
  s.group = std::move(group);
  s.versions = std::move(versions);
  s.name = std::move(plural);
  s.singular = std::move(singular);
  s.kind = std::move(kind);
  s.namespaced = namespaced;
  return s;
}

std::pair<std::string, FieldGetter> Field(std::string path) {
  return {path, [path](const json& o) { return PathString(o, path); }};
}

// "1/1", "0/1": ready containers over containers.
std::string ReadyContainers(const json& pod) {
  const json* statuses = At(pod, "status.containerStatuses");
  const json* containers = At(pod, "spec.containers");
  const size_t total = containers && containers->is_array() ? containers->size() : 0;
  size_t ready = 0;
  if (statuses && statuses->is_array())
    for (const json& s : *statuses) ready += s.is_object() && s.value("ready", false);
  return fmt::format("{}/{}", ready, total);
}

// kubectl's pod STATUS: Terminating, a waiting container's reason, else the phase.
std::string PodStatus(const json& pod) {
  if (At(pod, "metadata.deletionTimestamp")) return "Terminating";
  std::string reason = PathString(pod, "status.reason");
  if (const json* statuses = At(pod, "status.containerStatuses");
      statuses && statuses->is_array()) {
    for (const json& s : *statuses) {
      const std::string waiting = PathString(s, "state.waiting.reason");
      if (!waiting.empty()) reason = waiting;
    }
  }
  return reason.empty() ? PathString(pod, "status.phase") : reason;
}

int64_t Restarts(const json& pod) {
  int64_t n = 0;
  if (const json* statuses = At(pod, "status.containerStatuses"); statuses && statuses->is_array())
    for (const json& s : *statuses)
      if (s.is_object() && s.contains("restartCount") && s["restartCount"].is_number_integer())
        n += s["restartCount"].get<int64_t>();
  return n;
}

std::string NodeStatus(const json& node) {
  const std::string ready = ConditionStatus(node, "Ready");
  std::string s = ready == "True" ? "Ready" : ready == "False" ? "NotReady" : "Unknown";
  if (const json* u = At(node, "spec.unschedulable"); u && u->is_boolean() && u->get<bool>())
    s += ",SchedulingDisabled";
  return s;
}

std::string NodeRoles(const json& node) {
  std::string roles;
  if (const json* labels = At(node, "metadata.labels"); labels && labels->is_object()) {
    constexpr std::string_view kPrefix = "node-role.kubernetes.io/";
    for (const auto& [k, v] : labels->items()) {
      std::string role;
      if (k.rfind(kPrefix, 0) == 0)
        role = k.substr(kPrefix.size());
      else if (k == "kubernetes.io/role" && v.is_string())
        role = v.get<std::string>();
      if (!role.empty()) roles += (roles.empty() ? "" : ",") + role;
    }
  }
  return roles.empty() ? "<none>" : roles;
}

std::string NodeAddress(const json& node, std::string_view type) {
  if (const json* a = At(node, "status.addresses"); a && a->is_array())
    for (const json& x : *a)
      if (x.is_object() && x.value("type", "") == type) return x.value("address", "");
  return "<none>";
}

std::string OrNone(std::string s) { return s.empty() ? "<none>" : s; }

}  // namespace

std::string PathString(const json& object, std::string_view path) {
  const json* v = At(object, path);
  if (!v || v->is_null() || v->is_object() || v->is_array()) return {};
  return v->is_string() ? v->get<std::string>() : v->dump();
}

ApiResourceSpec NodesResource() {
  ApiResourceSpec s = Spec("", {"v1"}, "nodes", "node", "Node", false);
  s.short_names = {"no"};
  s.fields = {Field("spec.unschedulable")};
  s.printer.columns = {Col("Name", "string", 0, "name"),
                       Col("Status"),
                       Col("Roles"),
                       Col("Age", "date"),
                       Col("Version"),
                       Col("Internal-IP", "string", 1),
                       Col("External-IP", "string", 1),
                       Col("OS-Image", "string", 1),
                       Col("Kernel-Version", "string", 1),
                       Col("Container-Runtime", "string", 1)};
  s.printer.cells = [](const json& o) {
    return json::array({Name(o), NodeStatus(o), NodeRoles(o), Age(o),
                        PathString(o, "status.nodeInfo.kubeletVersion"),
                        NodeAddress(o, "InternalIP"), NodeAddress(o, "ExternalIP"),
                        OrNone(PathString(o, "status.nodeInfo.osImage")),
                        OrNone(PathString(o, "status.nodeInfo.kernelVersion")),
                        OrNone(PathString(o, "status.nodeInfo.containerRuntimeVersion"))});
  };
  return s;
}

ApiResourceSpec PodsResource() {
  ApiResourceSpec s = Spec("", {"v1"}, "pods", "pod", "Pod", true);
  s.short_names = {"po"};
  s.categories = {"all"};
  s.fields = {Field("spec.nodeName"),      Field("status.phase"),
              Field("spec.schedulerName"), Field("spec.serviceAccountName"),
              Field("status.podIP"),       Field("status.nominatedNodeName"),
              Field("spec.restartPolicy")};
  s.printer.columns = {Col("Name", "string", 0, "name"),
                       Col("Ready"),
                       Col("Status"),
                       Col("Restarts", "string"),
                       Col("Age", "date"),
                       Col("IP", "string", 1),
                       Col("Node", "string", 1),
                       Col("Nominated Node", "string", 1),
                       Col("Readiness Gates", "string", 1)};
  s.printer.cells = [](const json& o) {
    return json::array({Name(o), ReadyContainers(o), PodStatus(o), std::to_string(Restarts(o)),
                        Age(o), OrNone(PathString(o, "status.podIP")),
                        OrNone(PathString(o, "spec.nodeName")),
                        OrNone(PathString(o, "status.nominatedNodeName")), "<none>"});
  };
  return s;
}

ApiResourceSpec NamespacesResource() {
  ApiResourceSpec s = Spec("", {"v1"}, "namespaces", "namespace", "Namespace", false);
  s.short_names = {"ns"};
  s.fields = {Field("status.phase")};
  s.printer.columns = {Col("Name", "string", 0, "name"), Col("Status"), Col("Age", "date")};
  s.printer.cells = [](const json& o) {
    return json::array({Name(o), PathString(o, "status.phase"), Age(o)});
  };
  return s;
}

ApiResourceSpec EventsResource() {
  ApiResourceSpec s = Spec("", {"v1"}, "events", "event", "Event", true);
  s.short_names = {"ev"};
  for (const char* f :
       {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
        "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
        "involvedObject.fieldPath", "reason", "reportingComponent", "type"})
    s.fields.push_back(Field(f));
  s.fields.push_back({"source", [](const json& o) { return PathString(o, "source.component"); }});
  s.printer.columns = {Col("Last Seen", "date"),
                       Col("Type"),
                       Col("Reason"),
                       Col("Object"),
                       Col("Subobject", "string", 1),
                       Col("Source", "string", 1),
                       Col("Message"),
                       Col("First Seen", "date", 1),
                       Col("Count", "integer", 1),
                       Col("Name", "string", 1, "name")};
  s.printer.cells = [](const json& o) {
    json last = Time(o, "lastTimestamp");
    if (last.is_null()) last = Time(o, "eventTime");
    std::string kind = PathString(o, "involvedObject.kind");
    for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const json* count = At(o, "count");
    return json::array({last, PathString(o, "type"), PathString(o, "reason"),
                        kind + "/" + PathString(o, "involvedObject.name"),
                        PathString(o, "involvedObject.fieldPath"),
                        PathString(o, "source.component"), PathString(o, "message"),
                        Time(o, "firstTimestamp"),
                        count && count->is_number_integer() ? *count : json(1), Name(o)});
  };
  return s;
}

ApiResourceSpec ConfigMapsResource() {
  ApiResourceSpec s = Spec("", {"v1"}, "configmaps", "configmap", "ConfigMap", true);
  s.short_names = {"cm"};
  s.verbs = {"get", "list", "watch", "create", "update", "patch", "delete"};
  s.printer.columns = {Col("Name", "string", 0, "name"), Col("Data", "integer"),
                       Col("Age", "date")};
  s.printer.cells = [](const json& o) {
    const json* data = At(o, "data");
    return json::array({Name(o), data && data->is_object() ? data->size() : size_t{0}, Age(o)});
  };
  return s;
}

ApiResourceSpec PodDisruptionBudgetsResource() {
  ApiResourceSpec s = Spec("policy", {"v1"}, "poddisruptionbudgets", "poddisruptionbudget",
                           "PodDisruptionBudget", true);
  s.short_names = {"pdb"};
  s.printer.columns = {Col("Name", "string", 0, "name"), Col("Min Available"),
                       Col("Max Unavailable"), Col("Allowed Disruptions", "integer"),
                       Col("Age", "date")};
  s.printer.cells = [](const json& o) {
    auto or_na = [&](const char* path) {
      const std::string v = PathString(o, path);
      return v.empty() ? std::string("N/A") : v;
    };
    return json::array({Name(o), or_na("spec.minAvailable"), or_na("spec.maxUnavailable"),
                        Cell(o, "status.disruptionsAllowed"), Age(o)});
  };
  return s;
}

ApiResourceSpec LeasesResource() {
  ApiResourceSpec s = Spec("coordination.k8s.io", {"v1"}, "leases", "lease", "Lease", true);
  s.verbs = {"get", "list", "watch", "create", "update", "patch", "delete"};
  s.printer.columns = {Col("Name", "string", 0, "name"), Col("Holder"), Col("Age", "date")};
  s.printer.cells = [](const json& o) {
    return json::array({Name(o), PathString(o, "spec.holderIdentity"), Age(o)});
  };
  return s;
}

ApiResourceSpec DeploymentsResource() {
  ApiResourceSpec s = Spec("apps", {"v1"}, "deployments", "deployment", "Deployment", true);
  s.short_names = {"deploy"};
  s.categories = {"all"};
  s.printer.columns = {Col("Name", "string", 0, "name"), Col("Ready"), Col("Up-to-date", "integer"),
                       Col("Available", "integer"), Col("Age", "date")};
  s.printer.cells = [](const json& o) {
    auto n = [&](const char* p) {
      const json* v = At(o, p);
      return v && v->is_number_integer() ? v->get<int64_t>() : 0;
    };
    return json::array({Name(o),
                        fmt::format("{}/{}", n("status.readyReplicas"), n("spec.replicas")),
                        n("status.updatedReplicas"), n("status.availableReplicas"), Age(o)});
  };
  return s;
}

ApiResourceSpec ReplicaSetsResource() {
  ApiResourceSpec s = Spec("apps", {"v1"}, "replicasets", "replicaset", "ReplicaSet", true);
  s.short_names = {"rs"};
  s.categories = {"all"};
  s.printer.columns = {Col("Name", "string", 0, "name"), Col("Desired", "integer"),
                       Col("Current", "integer"), Col("Ready", "integer"), Col("Age", "date")};
  s.printer.cells = [](const json& o) {
    return json::array({Name(o), Cell(o, "spec.replicas"), Cell(o, "status.replicas"),
                        Cell(o, "status.readyReplicas"), Age(o)});
  };
  return s;
}

ApiResourceSpec DaemonSetsResource() {
  ApiResourceSpec s = Spec("apps", {"v1"}, "daemonsets", "daemonset", "DaemonSet", true);
  s.short_names = {"ds"};
  s.categories = {"all"};
  s.printer.columns = {Col("Name", "string", 0, "name"),
                       Col("Desired", "integer"),
                       Col("Current", "integer"),
                       Col("Ready", "integer"),
                       Col("Up-to-date", "integer"),
                       Col("Available", "integer"),
                       Col("Node Selector"),
                       Col("Age", "date")};
  s.printer.cells = [](const json& o) {
    return json::array({Name(o), Cell(o, "status.desiredNumberScheduled"),
                        Cell(o, "status.currentNumberScheduled"), Cell(o, "status.numberReady"),
                        Cell(o, "status.updatedNumberScheduled"), Cell(o, "status.numberAvailable"),
                        "<none>", Age(o)});
  };
  return s;
}

ApiResourceSpec StatefulSetsResource() {
  ApiResourceSpec s = Spec("apps", {"v1"}, "statefulsets", "statefulset", "StatefulSet", true);
  s.short_names = {"sts"};
  s.categories = {"all"};
  s.printer.columns = {Col("Name", "string", 0, "name"), Col("Ready"), Col("Age", "date")};
  s.printer.cells = [](const json& o) {
    const json* ready = At(o, "status.readyReplicas");
    return json::array(
        {Name(o),
         fmt::format("{}/{}", ready && ready->is_number_integer() ? ready->get<int64_t>() : 0,
                     PathString(o, "spec.replicas")),
         Age(o)});
  };
  return s;
}

ApiResourceSpec JobsResource() {
  ApiResourceSpec s = Spec("batch", {"v1"}, "jobs", "job", "Job", true);
  s.categories = {"all"};
  s.printer.columns = {Col("Name", "string", 0, "name"), Col("Status"), Col("Completions"),
                       Col("Duration"), Col("Age", "date")};
  s.printer.cells = [](const json& o) {
    std::string status = "Running";
    if (const json* suspend = At(o, "spec.suspend");
        suspend && suspend->is_boolean() && suspend->get<bool>())
      status = "Suspended";
    const json* succeeded = At(o, "status.succeeded");
    return json::array(
        {Name(o), status,
         fmt::format("{}/{}",
                     succeeded && succeeded->is_number_integer() ? succeeded->get<int64_t>() : 0,
                     PathString(o, "spec.completions")),
         "", Age(o)});
  };
  return s;
}

ApiResourceSpec KueueResource(std::string_view plural) {
  const std::vector<std::string> versions = {"v1beta1", "v1beta2"};
  ApiResourceSpec s;
  if (plural == "resourceflavors") {
    s = Spec("kueue.x-k8s.io", versions, "resourceflavors", "resourceflavor", "ResourceFlavor",
             false);
    s.short_names = {"flavor", "flavors", "rf"};
    s.printer.columns = {Col("Name", "string", 0, "name"), Col("Age", "date")};
    s.printer.cells = [](const json& o) { return json::array({Name(o), Age(o)}); };
  } else if (plural == "clusterqueues") {
    s = Spec("kueue.x-k8s.io", versions, "clusterqueues", "clusterqueue", "ClusterQueue", false);
    s.short_names = {"cq"};
    s.printer.columns = {Col("Name", "string", 0, "name"), Col("Cohort"),
                         Col("Strategy", "string", 1), Col("Pending Workloads", "integer"),
                         Col("Admitted Workloads", "integer", 1)};
    s.printer.cells = [](const json& o) {
      return json::array({Name(o), Cell(o, "spec.cohort"), Cell(o, "spec.queueingStrategy"),
                          Cell(o, "status.pendingWorkloads"), Cell(o, "status.admittedWorkloads")});
    };
  } else if (plural == "localqueues") {
    s = Spec("kueue.x-k8s.io", versions, "localqueues", "localqueue", "LocalQueue", true);
    s.short_names = {"queue", "queues", "lq"};
    s.printer.columns = {Col("Name", "string", 0, "name"), Col("ClusterQueue"),
                         Col("Pending Workloads", "integer"), Col("Admitted Workloads", "integer")};
    s.printer.cells = [](const json& o) {
      return json::array({Name(o), Cell(o, "spec.clusterQueue"), Cell(o, "status.pendingWorkloads"),
                          Cell(o, "status.admittedWorkloads")});
    };
  } else if (plural == "cohorts") {
    s = Spec("kueue.x-k8s.io", versions, "cohorts", "cohort", "Cohort", false);
    s.printer.columns = {Col("Name", "string", 0, "name"), Col("Parent"), Col("Age", "date")};
    s.printer.cells = [](const json& o) {
      return json::array({Name(o), Cell(o, "spec.parentName"), Age(o)});
    };
  } else if (plural == "workloadpriorityclasses") {
    s = Spec("kueue.x-k8s.io", versions, "workloadpriorityclasses", "workloadpriorityclass",
             "WorkloadPriorityClass", false);
    s.printer.columns = {Col("Name", "string", 0, "name"), Col("Value", "integer"),
                         Col("Age", "date")};
    s.printer.cells = [](const json& o) {
      return json::array({Name(o), Cell(o, "value"), Age(o)});
    };
  } else {  // workloads
    s = Spec("kueue.x-k8s.io", versions, "workloads", "workload", "Workload", true);
    s.short_names = {"wl"};
    s.printer.columns = {Col("Name", "string", 0, "name"),
                         Col("Queue"),
                         Col("Reserved in"),
                         Col("Admitted"),
                         Col("Finished"),
                         Col("Age", "date")};
    s.printer.cells = [](const json& o) {
      return json::array({Name(o), Cell(o, "spec.queueName"),
                          Cell(o, "status.admission.clusterQueue"), ConditionStatus(o, "Admitted"),
                          ConditionStatus(o, "Finished"), Age(o)});
    };
  }
  s.custom = true;
  return s;
}

ApiResourceSpec VolcanoResource(std::string_view plural) {
  ApiResourceSpec s;
  if (plural == "queues") {
    s = Spec("scheduling.volcano.sh", {"v1beta1"}, "queues", "queue", "Queue", false);
    s.short_names = {"q", "queue-v1beta1"};
    s.printer.columns = {Col("Name", "string", 0, "name"), Col("Age", "date")};
    s.printer.cells = [](const json& o) { return json::array({Name(o), Age(o)}); };
  } else {
    s = Spec("scheduling.volcano.sh", {"v1beta1"}, "podgroups", "podgroup", "PodGroup", true);
    s.short_names = {"pg", "podgroup-v1beta1"};
    s.printer.columns = {
        Col("Name", "string", 0, "name"), Col("Status"),      Col("MinMember", "integer"),
        Col("Runnings", "integer"),       Col("Age", "date"), Col("Queue", "string", 1)};
    s.printer.cells = [](const json& o) {
      return json::array({Name(o), Cell(o, "status.phase"), Cell(o, "spec.minMember"),
                          Cell(o, "status.running"), Age(o), Cell(o, "spec.queue")});
    };
  }
  s.custom = true;
  return s;
}

}  // namespace steward::kube

#include "kubefront/twin_objects.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "govern/policy.h"
#include "kube/meta.h"
#include "model/xid_catalog.h"
#include "twin/pod_names.h"

namespace steward::kubefront {
namespace {

using nlohmann::json;

constexpr char kKubeletVersion[] = "v1.32.0";

using twin::NameHash;
using twin::NameSuffix;
using twin::ReplicaSetName;

std::string NodeIp(model::NodeId n) {
  return fmt::format("10.{}.{}.{}", 1 + ((n >> 16) & 0x7f), (n >> 8) & 0xff, n & 0xff);
}

std::string PodIp(int32_t pod_id) {
  const uint32_t id = static_cast<uint32_t>(pod_id);
  return fmt::format("10.{}.{}.{}", 128 + ((id >> 16) & 0x7f), (id >> 8) & 0xff, id & 0xff);
}

kube::Condition Cond(std::string type, bool status, std::string reason, std::string message,
                     int64_t since) {
  kube::Condition c;
  c.type = std::move(type);
  c.status = status ? "True" : "False";
  c.reason = std::move(reason);
  c.message = std::move(message);
  c.last_heartbeat_time = since;
  c.last_transition_time = since;
  return c;
}

std::string Image(model::WorkloadKind kind) {
  switch (kind) {
    case model::WorkloadKind::kInference:
      return "nvcr.io/nvidia/tritonserver:24.05-py3";
    case model::WorkloadKind::kTraining:
      return "nvcr.io/nvidia/pytorch:24.05-py3";
    case model::WorkloadKind::kNotebook:
      return "quay.io/jupyter/pytorch-notebook:cuda12-latest";
    case model::WorkloadKind::kBatch:
      return "nvcr.io/nvidia/pytorch:24.05-py3";
  }
  return "";
}

// Kueue-style priority of a workload: its WorkloadPriorityClass's value, else the guide's tier
// (govern::TierForPriority's thresholds).
int64_t PriorityOf(const twin::Twin& twin, const model::Workload& w) {
  if (const govern::Policy* p = twin.governance_policy(); p && !w.priority_class.empty())
    if (const govern::WorkloadPriorityClass* c = p->FindPriorityClass(w.priority_class))
      return c->value;
  switch (w.tier) {
    case model::Tier::kProduction:
      return 1000;
    case model::Tier::kTraining:
      return 100;
    case model::Tier::kDev:
      return 0;
  }
  return 0;
}

// The device-plugin resources one pod of `ps` asks for: whole GPUs, one MIG instance, or a
// share, and its extended resources.
std::map<std::string, std::string> DeviceResources(const model::PodSet& ps) {
  std::map<std::string, std::string> r;
  if (!ps.mig_profile.empty()) {
    r["nvidia.com/mig-" + ps.mig_profile] = "1";
  } else if (ps.gpu_milli < 1000) {
    r[std::string(kube::kGpuResource)] = "1";
    r["nvidia.com/gpucores"] = std::to_string(ps.gpu_milli / 10);
  } else {
    r[std::string(kube::kGpuResource)] = std::to_string(ps.gpus_per_pod);
  }
  for (const auto& [name, count] : ps.extended_resources) r[name] = std::to_string(count);
  return r;
}

// CPU and memory of a pod: what its generator gives (placement holds exactly that), else its
// GPUs' share of the node's (or the pool's) CPUs and memory, 90 % of it (the rest is the
// system's), which keeps requests plausible where the scenario says nothing.
void AddHostShare(const model::Cluster& cluster, model::NodeId node, const model::PodSet& ps,
                  std::map<std::string, std::string>& resources) {
  const model::Node& n = cluster.node(node == model::kNoNode ? 0 : node);
  if (n.gpu_capacity > 0) {
    const double share = ps.SharesGpu() ? 1.0 / 7 : ps.gpus_per_pod;
    const int64_t cpu = static_cast<int64_t>(0.9 * n.cpu_milli * share / n.gpu_capacity / 1000);
    const int64_t mem_gi = static_cast<int64_t>(0.9 * n.memory_mib * share / n.gpu_capacity / 1024);
    resources["cpu"] = std::to_string(std::max<int64_t>(1, cpu));
    resources["memory"] = fmt::format("{}Gi", std::max<int64_t>(1, mem_gi));
  }
  if (ps.cpu_milli > 0) resources["cpu"] = fmt::format("{}m", ps.cpu_milli);
  if (ps.memory_mib > 0) resources["memory"] = fmt::format("{}Mi", ps.memory_mib);
}

std::string OwnerUid(const std::string& kind, const std::string& ns, const std::string& name) {
  return kube::UidFor(kind + "/" + ns + "/" + name);
}

kube::OwnerReference Owner(const std::string& api_version, const std::string& kind,
                           const std::string& ns, const std::string& name) {
  kube::OwnerReference o;
  o.api_version = api_version;
  o.kind = kind;
  o.name = name;
  o.uid = OwnerUid(kind, ns, name);
  o.controller = true;
  o.block_owner_deletion = true;
  return o;
}

std::string QueueName(const twin::Twin& twin, const model::Workload& w) {
  if (!w.queue.empty()) return w.queue;
  // fifo-quota's team queues are served as a LocalQueue named after the team.
  if (!twin.governance_policy()) return twin.scenario().teams[w.team].name;
  return {};
}

}  // namespace

bool IsControllerTaint(const std::string& key) {
  return key == kube::kUnschedulableTaint || key == "node.kubernetes.io/not-ready" ||
         key == "node.kubernetes.io/unreachable";
}

std::map<std::string, std::string> DerivedNodeLabels(const model::Node& node) {
  std::map<std::string, std::string> labels = {{"kubernetes.io/hostname", node.name},
                                               {"kubernetes.io/os", "linux"},
                                               {"kubernetes.io/arch", "amd64"}};
  if (!node.driver_version.empty()) labels[kDriverVersionLabel] = node.driver_version;
  if (!node.toolkit_version.empty()) labels[kToolkitVersionLabel] = node.toolkit_version;
  if (!node.device_plugin_version.empty())
    labels[kDevicePluginVersionLabel] = node.device_plugin_version;
  return labels;
}

kube::Node NodeObject(const twin::Twin& twin, model::NodeId n, const ObjectClock& clock,
                      const NodeExtras& extras) {
  const model::Node& node = twin.cluster().node(n);
  const int64_t created = clock.At(kSimStart);
  kube::Node k;
  k.metadata.name = node.name;
  k.metadata.uid = kube::UidFor("node/" + node.name);
  k.metadata.creation_timestamp = created;
  k.metadata.labels = node.labels;
  for (auto& [key, value] : DerivedNodeLabels(node)) k.metadata.labels[key] = value;
  k.metadata.annotations = extras.annotations;
  if (!extras.remediation_state.empty())
    k.metadata.annotations[kRemediationAnnotation] = extras.remediation_state;
  k.unschedulable = node.cordoned;
  k.provider_id = "steward://twin/" + node.name;
  for (const model::Taint& t : node.taints) k.taints.push_back({t.key, t.value, t.effect, {}});
  if (node.cordoned) k.taints.push_back({kube::kUnschedulableTaint, "", "NoSchedule", created});
  auto resources = [&](int gpus) {
    std::map<std::string, std::string> r{{"cpu", std::to_string(node.cpu_milli / 1000)},
                                         {"memory", fmt::format("{}Mi", node.memory_mib)},
                                         {"ephemeral-storage", "3750Gi"},
                                         {"hugepages-1Gi", "0"},
                                         {"hugepages-2Mi", "0"},
                                         {std::string(kube::kGpuResource), std::to_string(gpus)},
                                         {"pods", std::to_string(twin::kMaxPodsPerNode)}};
    const auto& names = twin.cluster().extended_resources();
    for (size_t i = 0; i < names.size(); ++i) r[names[i]] = std::to_string(node.extended[i]);
    return r;
  };
  k.capacity = resources(node.gpu_capacity);
  k.allocatable = resources(node.gpu_allocatable);
  k.conditions.push_back(Cond("MemoryPressure", false, "KubeletHasSufficientMemory",
                              "kubelet has sufficient memory available", created));
  k.conditions.push_back(Cond("DiskPressure", false, "KubeletHasNoDiskPressure",
                              "kubelet has no disk pressure", created));
  k.conditions.push_back(Cond("PIDPressure", false, "KubeletHasSufficientPID",
                              "kubelet has sufficient PID available", created));
  k.conditions.push_back(
      Cond("Ready", true, "KubeletReady", "kubelet is posting ready status", created));
  // NPD-style GPU conditions (what a node-problem-detector GPU plugin reports).
  std::string xids;
  for (int i = 0; i < node.gpu_capacity; ++i) {
    const int xid = twin.gpu_faults()[node.first_gpu + i].last_xid;
    if (xid == 0) continue;
    const model::XidEntry* e = model::XidCatalog::Builtin().Find(xid);
    xids += fmt::format("{}GPU {} XID {}{}", xids.empty() ? "" : "; ", i, xid,
                        e ? " (" + e->mnemonic + ")" : "");
  }
  k.conditions.push_back(Cond("GPUXidError", !xids.empty(), xids.empty() ? "NoXid" : "XidError",
                              xids.empty() ? "no XID reported" : xids,
                              xids.empty() ? created : extras.xid_since));
  const bool missing = twin.gpus_missing(n);
  k.conditions.push_back(
      Cond("GPUMissing", missing, missing ? "DevicePluginAdvertisesNoGpus" : "GpusAdvertised",
           missing ? "the device plugin advertises no GPUs" : "the device plugin advertises GPUs",
           missing ? extras.missing_since : created));
  k.addresses = {{"InternalIP", NodeIp(n)}, {"Hostname", node.name}};
  k.node_info.kubelet_version = kKubeletVersion;
  k.node_info.container_runtime_version = "containerd://1.7.20";
  k.node_info.kernel_version = "5.15.0-119-generic";
  k.node_info.os_image = "Ubuntu 22.04.4 LTS";
  k.node_info.machine_id = fmt::format("{:016x}", NameHash(node.name));
  return k;
}

nlohmann::json NodeListJson(const twin::Twin& twin, const ObjectClock& clock) {
  json items = json::array();
  for (model::NodeId n = 0; n < static_cast<model::NodeId>(twin.cluster().nodes().size()); ++n)
    items.push_back(kube::ToJson(NodeObject(twin, n, clock)));
  return {{"apiVersion", "v1"},
          {"kind", "List"},
          {"metadata", {{"resourceVersion", ""}}},
          {"items", items}};
}

std::vector<PodRef> PodsOf(const twin::WorkloadRun& run) {
  std::vector<PodRef> pods;
  pods.reserve(run.pods.size());
  for (int i = 0; i < static_cast<int>(run.pods.size()); ++i) {
    const twin::PodSlot slot = twin::SlotOf(run.spec, i);
    pods.push_back({run.spec.id, run.pods[i].pod_id, slot.pod_set, slot.ordinal, &run.pods[i]});
  }
  return pods;
}

OwnerRef PodOwner(const model::Workload& w) {
  switch (w.kind) {
    case model::WorkloadKind::kInference:
      return {"apps/v1", "ReplicaSet", ReplicaSetName(w)};
    case model::WorkloadKind::kNotebook:
      return {"apps/v1", "StatefulSet", w.name};
    default:
      return {"batch/v1", "Job", w.name};
  }
}

std::string PodName(const model::Workload& w, const PodRef& pod) {
  return twin::PodName(w, {pod.pod_set, pod.ordinal}, pod.pod_id);
}

std::map<std::string, std::string> WorkloadPodLabels(const twin::Twin& twin,
                                                     const model::Workload& w) {
  std::map<std::string, std::string> labels = w.labels;
  labels["steward.io/workload"] = w.name;
  labels["steward.io/team"] = twin.scenario().teams[w.team].name;
  labels["steward.io/tier"] = std::string(model::TierName(w.tier));
  labels["steward.io/kind"] = std::string(model::KindName(w.kind));
  // What `steward operate` reads to give a job its checkpoint grace (live/live_control.h).
  if (w.checkpoint_interval.micros() > 0) labels["steward.io/checkpointing"] = "true";
  if (const std::string q = QueueName(twin, w); !q.empty()) labels["kueue.x-k8s.io/queue-name"] = q;
  if (!w.priority_class.empty()) labels["kueue.x-k8s.io/priority-class"] = w.priority_class;
  switch (w.kind) {
    case model::WorkloadKind::kInference:
      labels["app"] = w.name;
      break;
    case model::WorkloadKind::kNotebook:
      labels["app"] = w.name;
      break;
    default:
      labels["batch.kubernetes.io/job-name"] = w.name;
      labels["job-name"] = w.name;
  }
  return labels;
}

kube::Pod PodObject(const twin::Twin& twin, const twin::WorkloadRun& run, const PodRef& pod,
                    const PodExtras& extras) {
  const model::Workload& w = run.spec;
  const model::PodSet& ps = w.pod_sets[std::min<size_t>(pod.pod_set, w.pod_sets.size() - 1)];
  const twin::PodAllocation& a = *pod.allocation;
  kube::Pod p;
  p.metadata.name = PodName(w, pod);
  p.metadata.namespace_name = w.namespace_name;
  p.metadata.uid = kube::UidFor(fmt::format("pod/{}/{}", pod.pod_id, p.metadata.name));
  p.metadata.creation_timestamp = extras.created_micros;
  p.metadata.labels = WorkloadPodLabels(twin, w);
  for (const auto& [k, v] : extras.labels) p.metadata.labels[k] = v;
  if (w.kind == model::WorkloadKind::kInference)
    p.metadata.labels["pod-template-hash"] = NameSuffix(NameHash(w.name), 10);
  if (w.kind == model::WorkloadKind::kNotebook)
    p.metadata.labels["statefulset.kubernetes.io/pod-name"] = p.metadata.name;
  if (!w.pod_group.empty()) p.metadata.annotations["scheduling.k8s.io/group-name"] = w.name;
  for (const auto& [k, v] : extras.annotations) p.metadata.annotations[k] = v;
  const OwnerRef owner = PodOwner(w);
  p.metadata.owner_references.push_back(
      Owner(owner.api_version, owner.kind, w.namespace_name, owner.name));
  p.metadata.deletion_timestamp = extras.deletion_micros;
  if (extras.deletion_micros) p.metadata.deletion_grace_period_seconds = extras.grace_seconds;

  p.node_name = a.node == model::kNoNode ? "" : twin.cluster().node(a.node).name;
  p.scheduler_name = w.pod_group.empty() ? "default-scheduler" : "volcano";
  p.priority_class_name = w.priority_class;
  p.priority = PriorityOf(twin, w);
  // A job that checkpoints gets time to save when evicted (its SIGTERM handler writes one).
  p.termination_grace_period_seconds = w.checkpoint_interval.micros() > 0 ? 120 : 30;
  p.service_account_name = "default";
  p.restart_policy =
      w.kind == model::WorkloadKind::kInference || w.kind == model::WorkloadKind::kNotebook
          ? "Always"
          : "OnFailure";
  kube::Container c;
  c.name = ps.name.empty() ? "main" : ps.name;
  c.image = Image(w.kind);
  c.resources.requests = DeviceResources(ps);
  AddHostShare(twin.cluster(), a.node, ps, c.resources.requests);
  c.resources.limits = c.resources.requests;
  p.containers.push_back(std::move(c));
  p.tolerations = {{kube::kGpuResource, "Exists", "", "NoSchedule", {}},
                   {"node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300},
                   {"node.kubernetes.io/unreachable", "Exists", "", "NoExecute", 300}};
  if (w.kind == model::WorkloadKind::kTraining || w.kind == model::WorkloadKind::kBatch)
    p.volumes.push_back({"dshm", true, "Memory"});
  const bool running = a.running;
  p.phase = running ? "Running" : "Pending";
  const int64_t created = extras.created_micros;
  p.conditions = {
      Cond("PodReadyToStartContainers", running, "", "", created),
      Cond("Initialized", true, "", "", created),
      Cond("Ready", running, running ? "" : "ContainersNotReady",
           running ? "" : "containers with unready status: [" + p.containers[0].name + "]",
           running ? extras.running_since_micros : created),
      Cond("ContainersReady", running, running ? "" : "ContainersNotReady", "",
           running ? extras.running_since_micros : created),
      Cond("PodScheduled", true, "", "", created)};
  for (kube::Condition& cond : p.conditions) cond.last_heartbeat_time.reset();
  p.start_time = created;
  kube::ContainerStatus s;
  s.name = p.containers[0].name;
  s.ready = running;
  s.state = running ? "running" : "waiting";
  s.state_reason = running ? "" : "ContainerCreating";
  if (running) s.started_at = extras.running_since_micros;
  p.container_statuses.push_back(std::move(s));
  if (a.node != model::kNoNode) p.host_ip = NodeIp(a.node);
  if (running) p.pod_ip = PodIp(pod.pod_id);
  p.qos_class = "Guaranteed";
  return p;
}

std::vector<nlohmann::json> OwnerObjects(const twin::Twin& twin, const twin::WorkloadRun& run,
                                         int64_t created, int running_pods) {
  const model::Workload& w = run.spec;
  const std::string& ns = w.namespace_name;
  const std::map<std::string, std::string> labels = WorkloadPodLabels(twin, w);
  auto meta = [&](const std::string& kind, const std::string& name) {
    kube::ObjectMeta m;
    m.name = name;
    m.namespace_name = ns;
    m.uid = OwnerUid(kind, ns, name);
    m.creation_timestamp = created;
    m.generation = 1;
    m.labels = labels;
    return m;
  };
  json selector = {{"matchLabels", {{"steward.io/workload", w.name}}}};
  json containers = json::array();
  for (const model::PodSet& ps : w.pod_sets) {
    json requests = json::object();
    for (const auto& [k, v] : DeviceResources(ps)) requests[k] = v;
    containers.push_back({{"name", ps.name.empty() ? "main" : ps.name},
                          {"image", Image(w.kind)},
                          {"resources", {{"requests", requests}, {"limits", requests}}}});
  }
  json pod_labels = json::object();
  for (const auto& [k, v] : labels) pod_labels[k] = v;
  json tmpl = {{"metadata", {{"labels", pod_labels}}}, {"spec", {{"containers", containers}}}};
  const int pods = static_cast<int>(run.pods.size());
  std::vector<json> out;
  if (w.kind == model::WorkloadKind::kInference) {
    const int desired = std::max(run.desired_replicas, 0);
    json status = {{"observedGeneration", 1},
                   {"replicas", pods},
                   {"updatedReplicas", pods},
                   {"readyReplicas", running_pods},
                   {"availableReplicas", running_pods}};
    json deploy = {{"apiVersion", "apps/v1"},
                   {"kind", "Deployment"},
                   {"metadata", kube::ToJson(meta("Deployment", w.name))},
                   {"spec", {{"replicas", desired}, {"selector", selector}, {"template", tmpl}}},
                   {"status", status}};
    kube::ObjectMeta rs_meta = meta("ReplicaSet", ReplicaSetName(w));
    rs_meta.owner_references.push_back(Owner("apps/v1", "Deployment", ns, w.name));
    json rs = {{"apiVersion", "apps/v1"},
               {"kind", "ReplicaSet"},
               {"metadata", kube::ToJson(rs_meta)},
               {"spec", {{"replicas", desired}, {"selector", selector}, {"template", tmpl}}},
               {"status",
                {{"observedGeneration", 1},
                 {"replicas", pods},
                 {"fullyLabeledReplicas", pods},
                 {"readyReplicas", running_pods},
                 {"availableReplicas", running_pods}}}};
    out.push_back(std::move(deploy));
    out.push_back(std::move(rs));
  } else if (w.kind == model::WorkloadKind::kNotebook) {
    out.push_back(
        {{"apiVersion", "apps/v1"},
         {"kind", "StatefulSet"},
         {"metadata", kube::ToJson(meta("StatefulSet", w.name))},
         {"spec",
          {{"replicas", 1}, {"serviceName", w.name}, {"selector", selector}, {"template", tmpl}}},
         {"status",
          {{"observedGeneration", 1},
           {"replicas", pods},
           {"readyReplicas", running_pods},
           {"availableReplicas", running_pods}}}});
  } else {
    const int total = w.TotalPods();
    json status = {{"active", pods}, {"ready", running_pods}};
    if (!run.first_started.is_never())
      status["startTime"] =
          kube::FormatTime(created + (run.first_started - w.submit_time).micros());
    out.push_back({{"apiVersion", "batch/v1"},
                   {"kind", "Job"},
                   {"metadata", kube::ToJson(meta("Job", w.name))},
                   {"spec",
                    {{"parallelism", total},
                     {"completions", total},
                     {"completionMode", "Indexed"},
                     {"backoffLimit", 6},
                     // Kueue keeps a Job suspended until its Workload is admitted.
                     {"suspend", run.state == twin::RunState::kPending},
                     {"selector", selector},
                     {"template", tmpl}}},
                   {"status", status}});
  }
  return out;
}

kube::PodDisruptionBudget ServiceBudget(const model::Workload& w, int64_t created, int64_t pods,
                                        int64_t ready) {
  kube::PodDisruptionBudget b;
  b.metadata.name = w.name;
  b.metadata.namespace_name = w.namespace_name;
  b.metadata.uid = OwnerUid("PodDisruptionBudget", w.namespace_name, w.name);
  b.metadata.creation_timestamp = created;
  b.metadata.generation = 1;
  b.max_unavailable = 1;
  b.selector = {{"matchLabels", {{"steward.io/workload", w.name}}}};
  b.status = kube::ComputePdbStatus(b, pods, ready);
  return b;
}

std::vector<kube::Namespace> NamespaceObjects(const twin::Twin& twin, int64_t created) {
  std::vector<std::pair<std::string, std::string>> names = {
      {"default", ""},         {"kube-system", ""},         {"kube-public", ""},
      {"kube-node-lease", ""}, {kGpuOperatorNamespace, ""}, {"kueue-system", ""},
      {"steward", ""},         {"steward-system", ""}};  // deploy/'s namespace (its Lease).
  for (const twin::TeamSpec& t : twin.scenario().teams)
    if (std::none_of(names.begin(), names.end(),
                     [&](const auto& n) { return n.first == t.namespace_name; }))
      names.emplace_back(t.namespace_name, t.name);
  std::vector<kube::Namespace> out;
  for (const auto& [name, team] : names) {
    kube::Namespace ns;
    ns.metadata.name = name;
    ns.metadata.uid = kube::UidFor("namespace/" + name);
    ns.metadata.creation_timestamp = created;
    ns.metadata.labels["kubernetes.io/metadata.name"] = name;
    if (!team.empty()) ns.metadata.labels["steward.io/team"] = team;
    out.push_back(std::move(ns));
  }
  return out;
}

namespace {
constexpr std::pair<const char*, const char*> kOperatorDaemonSets[] = {
    {"nvidia-device-plugin-daemonset", "nvcr.io/nvidia/k8s-device-plugin:v0.16.1"},
    {"nvidia-dcgm-exporter", "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.7-3.5.0-ubuntu22.04"}};
}  // namespace

std::vector<nlohmann::json> OperatorDaemonSets(const twin::Twin& twin, int64_t created) {
  const int nodes = static_cast<int>(twin.cluster().nodes().size());
  std::vector<json> out;
  for (const auto& [name, image] : kOperatorDaemonSets) {
    kube::ObjectMeta m;
    m.name = name;
    m.namespace_name = kGpuOperatorNamespace;
    m.uid = OwnerUid("DaemonSet", kGpuOperatorNamespace, name);
    m.creation_timestamp = created;
    m.generation = 1;
    m.labels["app"] = name;
    out.push_back({{"apiVersion", "apps/v1"},
                   {"kind", "DaemonSet"},
                   {"metadata", kube::ToJson(m)},
                   {"spec",
                    {{"selector", {{"matchLabels", {{"app", name}}}}},
                     {"template",
                      {{"metadata", {{"labels", {{"app", name}}}}},
                       {"spec", {{"containers", {{{"name", "main"}, {"image", image}}}}}}}}}},
                   {"status",
                    {{"desiredNumberScheduled", nodes},
                     {"currentNumberScheduled", nodes},
                     {"numberReady", nodes},
                     {"updatedNumberScheduled", nodes},
                     {"numberAvailable", nodes},
                     {"numberMisscheduled", 0},
                     {"observedGeneration", 1}}}});
  }
  return out;
}

std::vector<kube::Pod> OperatorPods(const twin::Twin& twin, model::NodeId n, int64_t created) {
  const model::Node& node = twin.cluster().node(n);
  std::vector<kube::Pod> out;
  for (const auto& [name, image] : kOperatorDaemonSets) {
    kube::Pod p;
    p.metadata.name = fmt::format("{}-{}", name, NameSuffix(NameHash(node.name), 5));
    p.metadata.namespace_name = kGpuOperatorNamespace;
    p.metadata.uid = kube::UidFor(fmt::format("pod/{}/{}", name, node.name));
    p.metadata.creation_timestamp = created;
    p.metadata.labels["app"] = name;
    p.metadata.owner_references.push_back(
        Owner("apps/v1", "DaemonSet", kGpuOperatorNamespace, name));
    p.node_name = node.name;
    p.scheduler_name = "default-scheduler";
    p.priority_class_name = "system-node-critical";
    p.priority = 2000001000;
    p.termination_grace_period_seconds = 30;
    p.restart_policy = "Always";
    p.service_account_name = name;
    kube::Container c;
    c.name = "main";
    c.image = image;
    p.containers.push_back(std::move(c));
    p.tolerations = {{"", "Exists", "", "", {}}};
    p.phase = "Running";
    p.conditions = {Cond("Initialized", true, "", "", created),
                    Cond("Ready", true, "", "", created),
                    Cond("ContainersReady", true, "", "", created),
                    Cond("PodScheduled", true, "", "", created)};
    for (kube::Condition& cond : p.conditions) cond.last_heartbeat_time.reset();
    p.start_time = created;
    kube::ContainerStatus s;
    s.name = "main";
    s.ready = true;
    s.state = "running";
    s.started_at = created;
    p.container_statuses.push_back(std::move(s));
    p.host_ip = NodeIp(n);
    p.pod_ip = NodeIp(n);
    p.qos_class = "BestEffort";
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace steward::kubefront

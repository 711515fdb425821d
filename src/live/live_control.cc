#include "live/live_control.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <random>

namespace steward::live {
namespace {

using nlohmann::json;

std::string Get(const std::map<std::string, std::string>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? "" : it->second;
}

bool IsDaemonSetPod(const kube::Pod& pod) {
  const kube::OwnerReference* owner = pod.metadata.Controller();
  return owner && owner->kind == "DaemonSet";
}

json Nullable(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

std::string PodPath(const control::PodRef& pod) {
  return fmt::format("/api/v1/namespaces/{}/pods/{}", pod.namespace_name, pod.name);
}

std::string NodePath(std::string_view node) { return fmt::format("/api/v1/nodes/{}", node); }

}  // namespace

control::NodeInfo DescribeNode(const kube::Node& node) {
  control::NodeInfo info;
  info.name = node.metadata.name;
  info.unschedulable = node.unschedulable;
  info.labels = node.metadata.labels;
  info.annotations = node.metadata.annotations;
  for (const kube::Taint& t : node.taints) info.taints.push_back({t.key, t.value, t.effect});
  info.gpu_capacity = static_cast<int>(node.GpuCapacity());
  info.gpu_allocatable = static_cast<int>(node.GpuAllocatable());
  for (const kube::Condition& c : node.conditions)
    info.conditions.push_back({c.type, c.status == "True", c.reason});
  return info;
}

control::PodInfo DescribePod(const kube::Pod& pod) {
  control::PodInfo p;
  p.ref = {pod.metadata.namespace_name, pod.metadata.name};
  p.node = pod.node_name;
  const kube::OwnerReference* owner = pod.metadata.Controller();
  p.workload = pod.metadata.namespace_name + "/" + (owner ? owner->name : pod.metadata.name);
  const auto& labels = pod.metadata.labels;
  if (!model::ParseTier(Get(labels, "steward.io/tier"), &p.tier) &&
      !model::ParseTier(Get(labels, "kueue.x-k8s.io/priority-class"), &p.tier))
    p.tier = model::Tier::kDev;
  p.can_checkpoint = Get(labels, "steward.io/checkpointing") == "true" ||
                     Get(pod.metadata.annotations, "steward.io/checkpointing") == "true";
  if (!model::ParseKind(Get(labels, "steward.io/kind"), &p.kind)) {
    const std::string kind = owner ? owner->kind : "";
    // Kubeflow's notebook controller labels its pods notebook-name; JupyterHub's user servers
    // are component=singleuser-server.
    const bool notebook =
        !Get(labels, "notebook-name").empty() || Get(labels, "component") == "singleuser-server";
    p.kind = notebook ? model::WorkloadKind::kNotebook
             : kind == "ReplicaSet" || kind == "StatefulSet" || kind == "Deployment"
                 ? model::WorkloadKind::kInference
             : kind == "Job" || kind == "PodGroup" ? model::WorkloadKind::kTraining
                                                   : model::WorkloadKind::kBatch;
  }
  p.gpus = static_cast<int>(pod.GpuRequest());
  p.running = pod.phase == "Running";
  p.terminating = pod.metadata.deletion_timestamp.has_value();
  // An elastic Job's worker: the fewest workers it runs with (label or annotation).
  std::string min_workers = Get(labels, "steward.io/min-workers");
  if (min_workers.empty()) min_workers = Get(pod.metadata.annotations, "steward.io/min-workers");
  if (!min_workers.empty() && owner && owner->kind == "Job") {
    int v = 0;
    auto [end, ec] =
        std::from_chars(min_workers.data(), min_workers.data() + min_workers.size(), v);
    if (ec == std::errc() && end == min_workers.data() + min_workers.size() && v > 0)
      p.min_workers = v;
  }
  p.labels = labels;
  p.annotations = pod.metadata.annotations;
  return p;
}

LiveClusterControl::LiveClusterControl(KubeClient* client, const ClusterCache* cache,
                                       LiveControlOptions options)
    : client_(client), cache_(cache), options_(std::move(options)) {
  if (!options_.clock) options_.clock = RealClock();
}

SimTime LiveClusterControl::Now() const {
  return SimTime::FromMicros(options_.clock->WallMicros());
}

std::optional<control::NodeInfo> LiveClusterControl::Node(std::string_view name) const {
  std::optional<kube::Node> n = cache_->GetNode(name);
  if (!n) return std::nullopt;
  return DescribeNode(*n);
}

std::vector<control::NodeInfo> LiveClusterControl::Nodes() const {
  std::vector<control::NodeInfo> out;
  for (const kube::Node& n : cache_->Nodes()) out.push_back(DescribeNode(n));
  return out;
}

std::vector<control::PodInfo> LiveClusterControl::PodsOnNode(std::string_view node) const {
  std::vector<control::PodInfo> out;
  for (const kube::Pod& p : cache_->PodsOnNode(node))
    if (!IsDaemonSetPod(p) && !p.Terminal() && p.GpuRequest() > 0) out.push_back(DescribePod(p));
  std::sort(out.begin(), out.end(), [](const control::PodInfo& a, const control::PodInfo& b) {
    return std::tie(a.ref.namespace_name, a.ref.name) < std::tie(b.ref.namespace_name, b.ref.name);
  });
  return out;
}

CallOptions LiveClusterControl::Write(int max_retries) const {
  CallOptions o;
  o.dry_run = options_.server_dry_run;
  o.field_manager = options_.field_manager;
  o.max_retries = max_retries;
  return o;
}

Status LiveClusterControl::Cordon(std::string_view node, bool cordoned, std::string_view) {
  const json patch = {{"spec", {{"unschedulable", cordoned ? json(true) : json(nullptr)}}}};
  return client_->Patch(NodePath(node), PatchType::kStrategicMerge, patch, Write()).ToStatus();
}

Status LiveClusterControl::LabelNode(std::string_view node, std::string_view key,
                                     std::optional<std::string> value, std::string_view) {
  const json patch = {{"metadata", {{"labels", {{std::string(key), Nullable(value)}}}}}};
  return client_->Patch(NodePath(node), PatchType::kMerge, patch, Write()).ToStatus();
}

Status LiveClusterControl::TaintNode(std::string_view node, const model::Taint& taint, bool remove,
                                     std::string_view) {
  std::optional<kube::Node> n = cache_->GetNode(node);
  if (!n) return Status::NotFound(fmt::format("no node '{}' in the cache", node));
  json taints = json::array();
  bool changed = remove ? false : true;
  for (const kube::Taint& t : n->taints) {
    if (t.key == taint.key && t.effect == taint.effect) {
      changed = remove || t.value != taint.value;
      continue;
    }
    json j = {{"key", t.key}, {"effect", t.effect}};
    if (!t.value.empty()) j["value"] = t.value;
    taints.push_back(std::move(j));
  }
  if (!changed) return Status::Ok();
  if (!remove) {
    json j = {{"key", taint.key}, {"effect", taint.effect}};
    if (!taint.value.empty()) j["value"] = taint.value;
    taints.push_back(std::move(j));
  }
  // The whole list with the version it was computed from: a concurrent taint is a 409.
  const json patch = {{"metadata", {{"resourceVersion", n->metadata.resource_version}}},
                      {"spec", {{"taints", taints}}}};
  return client_->Patch(NodePath(node), PatchType::kStrategicMerge, patch, Write()).ToStatus();
}

Status LiveClusterControl::Annotate(const control::ObjectRef& object, std::string_view key,
                                    std::optional<std::string> value, std::string_view) {
  std::string path;
  if (object.kind == "Node")
    path = NodePath(object.name);
  else if (object.kind == "Pod")
    path = PodPath({object.namespace_name, object.name});
  else
    return Status::InvalidArgument(
        fmt::format("annotating a {} is not supported (nodes and pods are)", object.kind));
  const json patch = {{"metadata", {{"annotations", {{std::string(key), Nullable(value)}}}}}};
  return client_->Patch(path, PatchType::kMerge, patch, Write()).ToStatus();
}

Status LiveClusterControl::Evict(const control::PodRef& pod, SimDuration grace, std::string_view) {
  const json eviction = {{"apiVersion", "policy/v1"},
                         {"kind", "Eviction"},
                         {"metadata", {{"name", pod.name}, {"namespace", pod.namespace_name}}},
                         {"deleteOptions", {{"gracePeriodSeconds", grace.micros() / 1000000}}}};
  // No client-side retry of a budget's 429: the controller retries on a later tick.
  return client_->Create(PodPath(pod) + "/eviction", eviction, Write(/*max_retries=*/0)).ToStatus();
}

Status LiveClusterControl::EmitEvent(const control::ObjectRef& object, std::string_view type,
                                     std::string_view event_reason, std::string_view message) {
  const std::string ns = object.namespace_name.empty() ? "default" : object.namespace_name;
  const int64_t now = options_.clock->WallMicros();
  kube::Event e;
  e.metadata.namespace_name = ns;
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  e.metadata.name = fmt::format("{}.{:016x}", object.name, rng());
  e.involved_object.api_version = object.kind == "Node" || object.kind == "Pod" ? "v1" : "";
  e.involved_object.kind = object.kind;
  e.involved_object.namespace_name = object.namespace_name;
  e.involved_object.name = object.name;
  e.type = std::string(type);
  e.reason = std::string(event_reason);
  e.message = std::string(message);
  e.first_timestamp = e.last_timestamp = now;
  e.source_component = e.reporting_component = options_.event_component;
  return client_->Create(fmt::format("/api/v1/namespaces/{}/events", ns), kube::ToJson(e), Write())
      .ToStatus();
}

namespace {

// A quantity as Kueue stores it: a string, or a bare number some clients write.
std::optional<std::string> QuantityText(const json& q) {
  if (q.is_string()) return q.get<std::string>();
  if (q.is_number_integer()) return std::to_string(q.get<int64_t>());
  if (q.is_number()) return q.dump();
  return std::nullopt;
}

}  // namespace

std::vector<control::QueueInfo> LiveClusterControl::ClusterQueues() const {
  std::vector<control::QueueInfo> out;
  for (const json& cq : cache_->Custom("clusterqueues")) {
    control::QueueInfo q;
    const json& meta = cq.value("metadata", json::object());
    q.name = meta.value("name", "");
    q.resource_version = meta.value("resourceVersion", "");
    const json& spec = cq.value("spec", json::object());
    q.cohort = spec.value("cohort", spec.value("cohortName", ""));
    for (const json& g : spec.value("resourceGroups", json::array()))
      for (const json& f : g.value("flavors", json::array()))
        for (const json& r : f.value("resources", json::array())) {
          control::QueueQuota quota;
          quota.flavor = f.value("name", "");
          quota.resource = r.value("name", "");
          quota.nominal = QuantityText(r.value("nominalQuota", json())).value_or("0");
          if (r.contains("borrowingLimit"))
            quota.borrowing_limit = QuantityText(r["borrowingLimit"]);
          if (r.contains("lendingLimit")) quota.lending_limit = QuantityText(r["lendingLimit"]);
          q.quotas.push_back(std::move(quota));
        }
    out.push_back(std::move(q));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

Status LiveClusterControl::PatchQueueQuota(std::string_view queue,
                                           std::string_view resource_version,
                                           const control::QueueQuota& quota, std::string_view) {
  std::optional<json> cq = cache_->GetCustom("clusterqueues", "", queue);
  if (!cq) return Status::NotFound(fmt::format("no ClusterQueue '{}' in the cache", queue));
  if (const std::string cached = (*cq)["metadata"].value("resourceVersion", "");
      cached != resource_version)
    return Status::Aborted(fmt::format(
        "ClusterQueue {} changed since resourceVersion {} (now {}); re-read and recompute", queue,
        resource_version, cached));
  json groups = (*cq)["spec"].value("resourceGroups", json::array());
  bool found = false;
  for (json& g : groups)
    for (json& f : g["flavors"])
      if (f.value("name", "") == quota.flavor)
        for (json& r : f["resources"])
          if (r.value("name", "") == quota.resource) {
            found = true;
            r["nominalQuota"] = quota.nominal;
            for (const auto& [key, value] : {std::pair{"borrowingLimit", &quota.borrowing_limit},
                                             std::pair{"lendingLimit", &quota.lending_limit}}) {
              if (*value)
                r[key] = **value;
              else
                r.erase(key);
            }
          }
  if (!found)
    return Status::NotFound(fmt::format("ClusterQueue {} has no {} quota in flavor {}", queue,
                                        quota.resource, quota.flavor));
  std::string version = "v1beta1";
  for (const ResourceRef& r : cache_->custom_resources())
    if (r.plural == "clusterqueues" && r.group == "kueue.x-k8s.io") version = r.version;
  // The version the caller decided on, not the cache's newest: a change in between is a 409.
  const json patch = {{"metadata", {{"resourceVersion", std::string(resource_version)}}},
                      {"spec", {{"resourceGroups", groups}}}};
  return client_
      ->Patch(fmt::format("/apis/kueue.x-k8s.io/{}/clusterqueues/{}", version, queue),
              PatchType::kMerge, patch, Write())
      .ToStatus();
}

Status LiveClusterControl::ResizeWorkload(std::string_view workload, int workers,
                                          std::string_view) {
  const size_t slash = workload.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == workload.size())
    return Status::InvalidArgument(fmt::format("resize: '{}' is not namespace/job", workload));
  if (workers < 1)
    return Status::InvalidArgument(fmt::format("resize: {} workers (at least 1)", workers));
  const json patch = {{"spec", {{"parallelism", workers}}}};
  return client_
      ->Patch(fmt::format("/apis/batch/v1/namespaces/{}/jobs/{}", workload.substr(0, slash),
                          workload.substr(slash + 1)),
              PatchType::kMerge, patch, Write())
      .ToStatus();
}

}  // namespace steward::live

#include "twin/twin_cluster_control.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "govern/policy.h"
#include "govern/quantity.h"
#include "twin/admitter.h"
#include "twin/scenario.h"

namespace steward::twin {

Result<model::NodeId> TwinClusterControl::Find(std::string_view node) const {
  const model::NodeId n = ops_.cluster().FindNode(node);
  if (n == model::kNoNode) return Status::NotFound(fmt::format("twin: no node '{}'", node));
  return n;
}

control::NodeInfo TwinClusterControl::Describe(const model::Node& node) const {
  control::NodeInfo info;
  info.name = node.name;
  info.unschedulable = node.cordoned;
  info.labels = node.labels;
  info.taints = node.taints;
  info.gpu_capacity = node.gpu_capacity;
  info.gpu_allocatable = node.gpu_allocatable;
  info.conditions.push_back({"Ready", true, "KubeletReady"});
  info.conditions.push_back({"GPUMissing", node.gpu_allocatable < node.gpu_capacity,
                             node.gpu_allocatable < node.gpu_capacity
                                 ? "DevicePluginAdvertisesFewerGpus"
                                 : "GpusAdvertised"});
  auto it = annotations_.find(control::ObjectRef{"Node", "", node.name}.Display());
  if (it != annotations_.end()) info.annotations = it->second;
  return info;
}

std::optional<control::NodeInfo> TwinClusterControl::Node(std::string_view name) const {
  const model::NodeId n = ops_.cluster().FindNode(name);
  if (n == model::kNoNode) return std::nullopt;
  return Describe(ops_.cluster().node(n));
}

std::vector<control::NodeInfo> TwinClusterControl::Nodes() const {
  std::vector<control::NodeInfo> out;
  out.reserve(ops_.cluster().nodes().size());
  for (const model::Node& node : ops_.cluster().nodes()) out.push_back(Describe(node));
  return out;
}

std::vector<control::PodInfo> TwinClusterControl::PodsOnNode(std::string_view node) const {
  std::vector<control::PodInfo> out;
  const model::NodeId n = ops_.cluster().FindNode(node);
  if (n == model::kNoNode) return out;
  for (const NodeWorkloadInfo& w : ops_.WorkloadsOn(n)) {
    const size_t slash = w.name.find('/');
    const std::string ns = w.name.substr(0, slash);
    for (size_t i = 0; i < w.pod_names.size(); ++i) {
      const std::string& pod_name = w.pod_names[i];
      control::PodInfo p;
      p.ref = {ns, pod_name};
      p.node = std::string(node);
      p.workload = w.name;
      p.tier = w.tier;
      p.kind = w.kind;
      p.can_checkpoint = w.can_checkpoint;
      p.gpus = w.pod_ids.empty() ? 0 : w.gpus / static_cast<int>(w.pod_ids.size());
      p.running = w.running;
      p.min_workers = i < w.min_workers.size() ? w.min_workers[i] : 0;
      pods_[p.ref.namespace_name + "/" + p.ref.name] = {n, w.id};
      workloads_[w.name] = w.id;
      out.push_back(std::move(p));
    }
  }
  return out;
}

Status TwinClusterControl::Cordon(std::string_view node, bool cordoned, std::string_view) {
  STEWARD_ASSIGN_OR_RETURN(model::NodeId n, Find(node));
  return ops_.SetCordoned(n, cordoned);
}

Status TwinClusterControl::LabelNode(std::string_view node, std::string_view key,
                                     std::optional<std::string> value, std::string_view) {
  STEWARD_ASSIGN_OR_RETURN(model::NodeId n, Find(node));
  std::map<std::string, std::string> labels = ops_.cluster().node(n).labels;
  if (value)
    labels[std::string(key)] = *value;
  else
    labels.erase(std::string(key));
  return ops_.SetLabels(n, std::move(labels));
}

Status TwinClusterControl::TaintNode(std::string_view node, const model::Taint& taint, bool remove,
                                     std::string_view) {
  STEWARD_ASSIGN_OR_RETURN(model::NodeId n, Find(node));
  std::vector<model::Taint> taints = ops_.cluster().node(n).taints;
  std::erase_if(taints, [&](const model::Taint& t) {
    return t.key == taint.key && t.effect == taint.effect;
  });
  if (!remove) taints.push_back(taint);
  return ops_.SetTaints(n, std::move(taints));
}

Status TwinClusterControl::Annotate(const control::ObjectRef& object, std::string_view key,
                                    std::optional<std::string> value, std::string_view) {
  if (object.kind == "Node") STEWARD_RETURN_IF_ERROR(Find(object.name).status());
  std::map<std::string, std::string>& a = annotations_[object.Display()];
  if (value)
    a[std::string(key)] = *value;
  else
    a.erase(std::string(key));
  return Status::Ok();
}

Status TwinClusterControl::Evict(const control::PodRef& pod, SimDuration grace, std::string_view) {
  auto it = pods_.find(pod.namespace_name + "/" + pod.name);
  if (it == pods_.end())
    return Status::NotFound(fmt::format("twin: no pod {}/{}", pod.namespace_name, pod.name));
  const PodAddress at = it->second;
  pods_.erase(it);
  const auto key = std::make_tuple(ops_.Now(), at.node, at.workload);
  if (key == last_gang_eviction_) return Status::Ok();  // Stopped with its gang just now.
  last_gang_eviction_ = key;
  return ops_.Evict(at.node, at.workload, grace);
}

Status TwinClusterControl::ResizeWorkload(std::string_view workload, int workers,
                                          std::string_view) {
  auto it = workloads_.find(workload);
  if (it == workloads_.end())
    return Status::NotFound(fmt::format("twin: no workload {}", workload));
  return ops_.Resize(it->second, workers);
}

Status TwinClusterControl::EmitEvent(const control::ObjectRef& object, std::string_view type,
                                     std::string_view event_reason, std::string_view message) {
  events_.push_back(
      {ops_.Now(), object, std::string(type), std::string(event_reason), std::string(message)});
  return Status::Ok();
}

std::vector<control::QueueInfo> TwinClusterControl::ClusterQueues() const {
  std::vector<control::QueueInfo> out;
  const std::string version = std::to_string(ops_.quota_generation());
  if (const govern::Policy* policy = ops_.governance_policy()) {
    for (const govern::ClusterQueue& cq : policy->cluster_queues) {
      control::QueueInfo q{cq.name, cq.cohort, version, {}};
      for (const govern::ResourceGroup& g : cq.resource_groups)
        for (const govern::FlavorQuotas& f : g.flavors)
          for (const govern::ResourceQuota& r : f.resources) {
            control::QueueQuota quota{f.flavor, r.resource,
                                      govern::FormatQuantity(r.nominal, r.resource), std::nullopt,
                                      std::nullopt};
            if (r.borrowing_limit)
              quota.borrowing_limit = govern::FormatQuantity(*r.borrowing_limit, r.resource);
            if (r.lending_limit)
              quota.lending_limit = govern::FormatQuantity(*r.lending_limit, r.resource);
            q.quotas.push_back(std::move(quota));
          }
      out.push_back(std::move(q));
    }
  } else {
    for (const TeamSpec& t : ops_.scenario().teams)
      out.push_back({t.name,
                     "",
                     version,
                     {{kFifoQuotaFlavor, "nvidia.com/gpu", std::to_string(t.quota_gpus),
                       std::nullopt, std::nullopt}}});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

Status TwinClusterControl::PatchQueueQuota(std::string_view queue,
                                           std::string_view resource_version,
                                           const control::QueueQuota& quota, std::string_view) {
  if (resource_version != std::to_string(ops_.quota_generation()))
    return Status::Aborted(fmt::format(
        "ClusterQueue {}: the quotas changed since resourceVersion {} (now {}); re-read and "
        "recompute",
        queue, resource_version, ops_.quota_generation()));
  const std::vector<control::QueueInfo> queues = ClusterQueues();
  auto q = std::find_if(queues.begin(), queues.end(),
                        [&](const control::QueueInfo& i) { return i.name == queue; });
  if (q == queues.end()) return Status::NotFound(fmt::format("no ClusterQueue '{}'", queue));
  auto current = std::find_if(q->quotas.begin(), q->quotas.end(), [&](const auto& c) {
    return c.flavor == quota.flavor && c.resource == quota.resource;
  });
  if (current == q->quotas.end())
    return Status::NotFound(fmt::format("ClusterQueue {} has no {} quota in flavor {}", queue,
                                        quota.resource, quota.flavor));
  if (quota.resource != "nvidia.com/gpu" || quota.borrowing_limit != current->borrowing_limit)
    return Status::InvalidArgument(fmt::format(
        "ClusterQueue {}: the twin takes changes of the nvidia.com/gpu nominalQuota and "
        "lendingLimit only",
        queue));
  // Whole GPUs, as Kubernetes takes extended resources ("8", not "7.5" or "8000m").
  auto whole = [&](std::string_view field, const std::string& text) -> Result<int> {
    int64_t gpus = -1;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, gpus);
    if (ec != std::errc() || p != end || gpus < 0 || gpus > 1'000'000)
      return Status::InvalidArgument(fmt::format(
          "ClusterQueue {}: {} '{}' is not a whole number of GPUs", queue, field, text));
    return static_cast<int>(gpus);
  };
  STEWARD_ASSIGN_OR_RETURN(const int nominal, whole("nominalQuota", quota.nominal));
  // fifo-quota's one flavor is its team queue's, named by the queue alone.
  const std::string_view flavor =
      ops_.governance_policy() ? std::string_view(quota.flavor) : std::string_view();
  if (quota.lending_limit == current->lending_limit)
    return ops_.SetQueueGpuQuota(queue, flavor, nominal);
  if (!ops_.governance_policy())
    return Status::InvalidArgument(
        fmt::format("queue {}: a fifo-quota team queue has no cohort, so no lendingLimit", queue));
  std::optional<int> lending;
  if (quota.lending_limit) {
    STEWARD_ASSIGN_OR_RETURN(lending, whole("lendingLimit", *quota.lending_limit));
    if (*lending > nominal)
      return Status::InvalidArgument(fmt::format(
          "ClusterQueue {}: lendingLimit {} above the nominalQuota {}", queue, *lending, nominal));
  }
  // In the order that keeps lendingLimit <= nominalQuota at every step.
  const Result<int> before = whole("nominalQuota", current->nominal);
  const bool nominal_first = !before.ok() || *before <= nominal;
  if (nominal_first && (!before.ok() || *before != nominal))
    STEWARD_RETURN_IF_ERROR(ops_.SetQueueGpuQuota(queue, flavor, nominal));
  STEWARD_RETURN_IF_ERROR(ops_.SetQueueGpuLendingLimit(queue, flavor, lending));
  if (!nominal_first) return ops_.SetQueueGpuQuota(queue, flavor, nominal);
  return Status::Ok();
}

}  // namespace steward::twin

#include "twin/twin_cluster_control.h"

#include <fmt/format.h>

#include <algorithm>

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
    for (const std::string& pod_name : w.pod_names) {
      control::PodInfo p;
      p.ref = {ns, pod_name};
      p.node = std::string(node);
      p.workload = w.name;
      p.tier = w.tier;
      p.kind = w.kind;
      p.can_checkpoint = w.can_checkpoint;
      p.gpus = w.pod_ids.empty() ? 0 : w.gpus / static_cast<int>(w.pod_ids.size());
      p.running = w.running;
      pods_[p.ref.namespace_name + "/" + p.ref.name] = {n, w.id};
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

Status TwinClusterControl::EmitEvent(const control::ObjectRef& object, std::string_view type,
                                     std::string_view event_reason, std::string_view message) {
  events_.push_back(
      {ops_.Now(), object, std::string(type), std::string(event_reason), std::string(message)});
  return Status::Ok();
}

}  // namespace steward::twin

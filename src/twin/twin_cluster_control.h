// TwinClusterControl: the twin's implementation of control::ClusterControl, over the TwinOps a
// controller is attached with, so a controller written for live clusters runs on the twin.
//
//   twin::TwinClusterControl control(ops);        // in TwinController::Attach
//   control.Cordon("h100-0007", true, "XID 79");
//
// Names: nodes by their names; pods as the Kubernetes front and the dcgm-exporter `pod` label
// name them (twin/pod_names.h), in the workload's namespace. Evict works on pods this object has
// listed (PodsOnNode); a pod it never saw is NotFound, as a pod the caller could not have seen. A
// gang's pods on one node stop together: the first eviction of one of them at a given instant
// stops all of them there, later ones at that instant are no-ops (as the live API answers a
// second eviction of a terminating pod). Annotations and Events are kept in memory (events())
// for tests and reports: the twin has no other place for them.
//
// Cost: Node O(1) by name index of the cluster; PodsOnNode O(pods on the node). Thread-safety:
// the twin's thread only, like TwinOps.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "control/cluster_control.h"
#include "twin/controller.h"

namespace steward::twin {

class TwinClusterControl final : public control::ClusterControl {
 public:
  // An event a controller emitted.
  struct EmittedEvent {
    SimTime at;
    control::ObjectRef object;
    std::string type, reason, message;
  };

  explicit TwinClusterControl(TwinOps& ops) : ops_(ops) {}

  SimTime Now() const override { return ops_.Now(); }
  std::optional<control::NodeInfo> Node(std::string_view name) const override;
  std::vector<control::NodeInfo> Nodes() const override;
  std::vector<control::PodInfo> PodsOnNode(std::string_view node) const override;
  // The admission policy's ClusterQueues (fifo-quota: one per team, flavor "default-flavor",
  // as the Kubernetes front serves them); resourceVersion = the twin's quota generation.
  std::vector<control::QueueInfo> ClusterQueues() const override;

  Status Cordon(std::string_view node, bool cordoned, std::string_view reason) override;
  Status LabelNode(std::string_view node, std::string_view key, std::optional<std::string> value,
                   std::string_view reason) override;
  Status TaintNode(std::string_view node, const model::Taint& taint, bool remove,
                   std::string_view reason) override;
  Status Annotate(const control::ObjectRef& object, std::string_view key,
                  std::optional<std::string> value, std::string_view reason) override;
  Status Evict(const control::PodRef& pod, SimDuration grace, std::string_view reason) override;
  Status EmitEvent(const control::ObjectRef& object, std::string_view type,
                   std::string_view event_reason, std::string_view message) override;
  // The twin takes changes of nvidia.com/gpu's nominalQuota and (a ClusterQueue in a cohort,
  // under a Kueue policy) lendingLimit, in whole GPUs: other resources and the borrowingLimit
  // are InvalidArgument unless unchanged, as is a lendingLimit above the nominalQuota.
  Status PatchQueueQuota(std::string_view queue, std::string_view resource_version,
                         const control::QueueQuota& quota, std::string_view reason) override;

  // TwinOps::Resize of a workload this object has listed pods of (PodsOnNode); NotFound for one
  // it never saw, as Evict.
  Status ResizeWorkload(std::string_view workload, int workers, std::string_view reason) override;

  const std::vector<EmittedEvent>& events() const { return events_; }
  // Annotations set through Annotate, by ObjectRef::Display().
  const std::map<std::string, std::map<std::string, std::string>>& annotations() const {
    return annotations_;
  }

 private:
  struct PodAddress {
    model::NodeId node = model::kNoNode;
    model::WorkloadId workload = -1;
  };
  Result<model::NodeId> Find(std::string_view node) const;
  control::NodeInfo Describe(const model::Node& node) const;

  TwinOps& ops_;
  // Pods listed by PodsOnNode, by "namespace/name".
  mutable std::map<std::string, PodAddress> pods_;
  // Workloads of the pods listed, "namespace/name" -> id.
  mutable std::map<std::string, model::WorkloadId, std::less<>> workloads_;
  // (instant, node, workload) of the last gang eviction, so its other pods there are no-ops.
  std::tuple<SimTime, model::NodeId, model::WorkloadId> last_gang_eviction_{SimTime::Never(),
                                                                            model::kNoNode, -1};
  std::vector<EmittedEvent> events_;
  std::map<std::string, std::map<std::string, std::string>> annotations_;
};

}  // namespace steward::twin

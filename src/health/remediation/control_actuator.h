// ControlActuator: the remediation loop's node actions (cordon, uncordon, list, evict) done
// through control::ClusterControl, so the one RemediationController drives the twin
// (TwinActuator adds the twin's repair shop) and a live cluster (whose actuator adds the live
// ticket and diagnostic side) with the same code.
//
//   class TwinActuator : public ControlActuator { ... OpenTicket, RunDiagnostic ... };
//
// A workload is the pods on the node sharing PodInfo::workload ("namespace/name"); its tier
// and checkpointing come from its pods. Evicting it evicts each of its pods on the node through
// the Eviction API; a pod already gone counts as done, one already terminating is left to
// finish, a disruption budget's refusal (Unavailable) is returned so the controller retries
// on a later Tick.
// Cost: one PodsOnNode per call. Thread-safety: the controller's thread.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "control/cluster_control.h"
#include "health/remediation/node_actuator.h"

namespace steward::health {

class ControlActuator : public NodeActuator {
 public:
  // `control` must outlive the actuator.
  explicit ControlActuator(control::ClusterControl& control) : control_(control) {}

  Status Cordon(std::string_view node) override;
  Status Uncordon(std::string_view node) override;
  Result<std::vector<NodeWorkload>> ListWorkloads(std::string_view node) override;
  Status Evict(std::string_view node, const NodeWorkload& workload, SimDuration grace) override;

  // Where the reasons of actions come from (e.g. the controller's NodeRecord::reason, "XID 79
  // on GPU 3"); unset: generic reasons. The reason reaches plans, the audit log and Events.
  void set_reason_source(std::function<std::string(std::string_view node)> source) {
    reason_source_ = std::move(source);
  }

 protected:
  std::string ReasonFor(std::string_view node, std::string_view what) const;
  control::ClusterControl& control() { return control_; }

 private:
  control::ClusterControl& control_;
  std::function<std::string(std::string_view)> reason_source_;
};

}  // namespace steward::health

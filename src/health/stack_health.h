// GPU stack health (管得住): checks over a node list that catch a GPU software stack gone wrong
// before jobs trip over it. Each check is a named function in one table (StackChecks()); each
// finding names the node, the check and a fix hint.
//
// Checks (label names from NVIDIA GPU feature discovery / GPU Operator; docs/telemetry.md):
//   device-plugin-down      nvidia.com/gpu capacity > 0 but allocatable 0
//   gpus-unallocatable      0 < allocatable < capacity (the plugin marked GPUs unhealthy)
//   driver-version-drift    driver version differs from the pool's majority
//   toolkit-version-drift   container-toolkit version differs from the pool's majority
//   device-plugin-version-drift  device-plugin version differs from the pool's majority
//   missing-gfd-labels      GPU node without nvidia.com/gpu.product (GFD/NFD not labelling)
//   node-not-ready          condition Ready is False or Unknown (critical)
//   node-lifecycle-taint    node.kubernetes.io/unreachable or not-ready taint (critical)
//   gpu-condition           a GPU problem condition (Node Problem Detector, NVSentinel, EKS node
//                           monitoring agent): see IsGpuProblemCondition (critical)
//   gpu-node-cordoned       a GPU node with spec.unschedulable (warning)
//   mig-config-mismatch     the MIG manager's state (label nvidia.com/mig.config.state), with or
//                           without the nvidia.com/mig.config label: failed (critical); pending or
//                           rebooting longer than mig_pending_limit (critical), within it or for
//                           an unknown time (info); mig.config set but no state, or a profile on
//                           a GPU that is not MIG-capable (warning)
//
// How long a MIG state has lasted: Kubernetes keeps no time for a label, so the state's start
// is read from the annotation kMigStateSinceAnnotation (RFC 3339), which whoever drives MIG
// changes sets with the label; without it the age is unknown and the finding is info.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "health/node_list.h"

namespace steward::health {

// Finding severities, most severe first.
enum class Severity : uint8_t { kCritical, kWarning, kInfo };
std::string_view SeverityName(Severity s);  // "critical", "warning", "info"
// Parses "critical", "warning" or "info"; nullopt otherwise.
std::optional<Severity> ParseSeverity(std::string_view name);

// The annotation holding when the node's nvidia.com/mig.config.state took its value (RFC 3339).
inline constexpr std::string_view kMigStateSinceAnnotation = "steward.io/mig-config-state-since";

struct StackFinding {
  std::string node;
  std::string check;     // A name from StackChecks().
  std::string severity;  // SeverityName(): "critical" (GPUs unusable), "warning" or "info".
  std::string message;   // What is wrong, with the numbers.
  std::string hint;      // How to fix it.
};

struct StackHealthOptions {
  // Node label naming the pool; the first one a node has wins. Drift is judged within a pool.
  // steward.io/pool is what the twin's nodes carry (`steward twin nodes`).
  std::vector<std::string> pool_labels = {"cloud.google.com/gke-nodepool",
                                          "eks.amazonaws.com/nodegroup", "karpenter.sh/nodepool",
                                          "node.kubernetes.io/instance-type", "steward.io/pool"};
  // Labels holding the container-toolkit and device-plugin versions. Neither GFD nor the GPU
  // Operator publishes one (the operator only sets nvidia.com/gpu.deploy.container-toolkit=true),
  // so these default to Steward's own convention; point them at your fleet's labels.
  std::vector<std::string> toolkit_version_labels = {"steward.io/container-toolkit-version"};
  std::vector<std::string> device_plugin_version_labels = {"steward.io/device-plugin-version"};
  // The time checks judge ages against (seconds since the epoch); nullopt: no age is judged.
  std::optional<int64_t> now;
  // A MIG state of pending or rebooting older than this is critical (a reconfiguration with a
  // reboot takes minutes; one that lasts this long is stuck).
  int64_t mig_pending_limit_seconds = 30 * 60;
};

// Pool of `node` under `options` ("" when it has none of the pool labels).
std::string PoolOf(const NodeInfo& node, const StackHealthOptions& options);
// Driver version from GFD labels: nvidia.com/cuda.driver-version.full, else
// nvidia.com/cuda.driver.major/minor/rev joined with dots; "" when absent.
std::string DriverVersionOf(const NodeInfo& node);
// Whether the node has NVIDIA GPUs: GPU capacity, nvidia.com/gpu.present=true, nvidia.com/gpu.count
// or NFD's feature.node.kubernetes.io/pci-10de.present=true.
bool IsGpuNode(const NodeInfo& node);
// Whether `c` reports a GPU problem: a condition type other than the kubelet's own (Ready,
// MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable) that names the GPU stack
// (contains, in any case, gpu, xid, nvlink, nvswitch, nvidia, dcgm or accelerat) and is bad:
// status False or Unknown for a type ending in Ready or Healthy (AcceleratedHardwareReady),
// True for any other (GpuXidError, NVLinkDown).
bool IsGpuProblemCondition(const NodeCondition& c);

using StackCheckFn = void (*)(const std::vector<NodeInfo>& nodes, const StackHealthOptions& options,
                              std::vector<StackFinding>& out);
struct StackCheck {
  std::string_view name;
  StackCheckFn run;
  // About the node's state (readiness, lifecycle taints, GPU conditions, cordon) rather than
  // its GPU software stack. `steward operate` runs only the stack checks: its remediation loop
  // acts on node state itself, and an Event per cordon it made would be noise.
  bool node_state = false;
};
// Every check, in report order.
const std::vector<StackCheck>& StackChecks();

// Runs every check; findings ordered by check, then node name. O(nodes * labels).
std::vector<StackFinding> CheckStackHealth(const std::vector<NodeInfo>& nodes,
                                           const StackHealthOptions& options = {});

}  // namespace steward::health

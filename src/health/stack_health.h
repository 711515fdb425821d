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
//   mig-config-mismatch     nvidia.com/mig.config not applied (mig.config.state != success)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "health/node_list.h"

namespace steward::health {

struct StackFinding {
  std::string node;
  std::string check;     // A name from StackChecks().
  std::string severity;  // "critical" (GPUs unusable) or "warning".
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
};

// Pool of `node` under `options` ("" when it has none of the pool labels).
std::string PoolOf(const NodeInfo& node, const StackHealthOptions& options);
// Driver version from GFD labels: nvidia.com/cuda.driver-version.full, else
// nvidia.com/cuda.driver.major/minor/rev joined with dots; "" when absent.
std::string DriverVersionOf(const NodeInfo& node);
// Whether the node has NVIDIA GPUs: GPU capacity, nvidia.com/gpu.present=true, nvidia.com/gpu.count
// or NFD's feature.node.kubernetes.io/pci-10de.present=true.
bool IsGpuNode(const NodeInfo& node);

using StackCheckFn = void (*)(const std::vector<NodeInfo>& nodes, const StackHealthOptions& options,
                              std::vector<StackFinding>& out);
struct StackCheck {
  std::string_view name;
  StackCheckFn run;
};
// Every check, in report order.
const std::vector<StackCheck>& StackChecks();

// Runs every check; findings ordered by check, then node name. O(nodes * labels).
std::vector<StackFinding> CheckStackHealth(const std::vector<NodeInfo>& nodes,
                                           const StackHealthOptions& options = {});

}  // namespace steward::health

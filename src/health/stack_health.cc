#include "health/stack_health.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace steward::health {

std::string PoolOf(const NodeInfo& node, const StackHealthOptions& options) {
  for (const std::string& key : options.pool_labels) {
    if (node.HasLabel(key)) return std::string(node.Label(key));
  }
  return "";
}

std::string DriverVersionOf(const NodeInfo& node) {
  std::string_view full = node.Label("nvidia.com/cuda.driver-version.full");
  if (!full.empty()) return std::string(full);
  std::string_view major = node.Label("nvidia.com/cuda.driver.major");
  if (major.empty()) return "";
  std::string v(major);
  std::string_view minor = node.Label("nvidia.com/cuda.driver.minor");
  std::string_view rev = node.Label("nvidia.com/cuda.driver.rev");
  if (!minor.empty()) v += "." + std::string(minor);
  if (!rev.empty()) v += "." + std::string(rev);
  return v;
}

bool IsGpuNode(const NodeInfo& node) {
  return node.gpu_capacity > 0 || node.Label("nvidia.com/gpu.present") == "true" ||
         node.HasLabel("nvidia.com/gpu.count") ||
         node.Label("feature.node.kubernetes.io/pci-10de.present") == "true";
}

namespace {

void DevicePluginDown(const std::vector<NodeInfo>& nodes, const StackHealthOptions&,
                      std::vector<StackFinding>& out) {
  for (const NodeInfo& n : nodes) {
    if (n.gpu_capacity > 0 && n.gpu_allocatable == 0) {
      out.push_back({n.name, "device-plugin-down", "critical",
                     fmt::format("nvidia.com/gpu capacity {} but allocatable 0: no GPU on the node "
                                 "can be scheduled",
                                 n.gpu_capacity),
                     "the NVIDIA device plugin is not advertising GPUs: check the "
                     "nvidia-device-plugin pod on the node (kubectl -n gpu-operator get pods "
                     "--field-selector spec.nodeName=" +
                         n.name +
                         "), its logs for NVML/driver errors, and restart it; if the driver is "
                         "broken, cordon and drain the node first"});
    }
  }
}

void GpusUnallocatable(const std::vector<NodeInfo>& nodes, const StackHealthOptions&,
                       std::vector<StackFinding>& out) {
  for (const NodeInfo& n : nodes) {
    if (n.gpu_allocatable > 0 && n.gpu_allocatable < n.gpu_capacity) {
      out.push_back({n.name, "gpus-unallocatable", "warning",
                     fmt::format("{} of {} GPUs are not allocatable",
                                 n.gpu_capacity - n.gpu_allocatable, n.gpu_capacity),
                     "the device plugin marked GPUs unhealthy (usually after an XID): check "
                     "`kubectl describe node " +
                         n.name +
                         "` events and the DCGM XID series for the GPUs; reset or repair them, "
                         "then restart the device plugin so they return to allocatable"});
    }
  }
}

// Flags nodes whose `version` differs from their pool's most common one.
void Drift(const std::vector<NodeInfo>& nodes, const StackHealthOptions& options,
           std::string_view check, std::string_view what,
           std::string (*version_of)(const NodeInfo&, const StackHealthOptions&),
           std::string_view hint_tail, std::vector<StackFinding>& out) {
  // pool -> version -> node indices.
  std::map<std::string, std::map<std::string, std::vector<size_t>>> pools;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!IsGpuNode(nodes[i])) continue;
    std::string v = version_of(nodes[i], options);
    if (v.empty()) continue;
    pools[PoolOf(nodes[i], options)][v].push_back(i);
  }
  for (const auto& [pool, versions] : pools) {
    if (versions.size() < 2) continue;
    size_t total = 0;
    const std::string* majority = nullptr;
    size_t best = 0;
    for (const auto& [v, idx] : versions) {
      total += idx.size();
      // Ties go to the later version string (map order), the likelier upgrade target.
      if (idx.size() >= best) {
        best = idx.size();
        majority = &v;
      }
    }
    for (const auto& [v, idx] : versions) {
      if (&v == majority) continue;
      for (size_t i : idx) {
        out.push_back(
            {nodes[i].name, std::string(check), "warning",
             fmt::format("{} {} differs from pool {}'s {} ({} of {} nodes)", what, v,
                         pool.empty() ? "(unlabelled)" : pool, *majority, best, total),
             fmt::format("bring node {} to {} {} like the rest of pool {}{}", nodes[i].name, what,
                         *majority, pool.empty() ? "(unlabelled)" : pool, hint_tail)});
      }
    }
  }
}

std::string DriverOf(const NodeInfo& n, const StackHealthOptions&) { return DriverVersionOf(n); }
std::string FirstLabel(const NodeInfo& n, const std::vector<std::string>& keys) {
  for (const std::string& k : keys) {
    if (n.HasLabel(k)) return std::string(n.Label(k));
  }
  return "";
}
std::string ToolkitOf(const NodeInfo& n, const StackHealthOptions& o) {
  return FirstLabel(n, o.toolkit_version_labels);
}
std::string PluginOf(const NodeInfo& n, const StackHealthOptions& o) {
  return FirstLabel(n, o.device_plugin_version_labels);
}

void DriverDrift(const std::vector<NodeInfo>& nodes, const StackHealthOptions& o,
                 std::vector<StackFinding>& out) {
  Drift(nodes, o, "driver-version-drift", "driver", DriverOf,
        " (GPU Operator: set the ClusterPolicy driver version and let the upgrade controller roll "
        "it, label nvidia.com/gpu-driver-upgrade-state=upgrade-required); mixed drivers break "
        "NCCL jobs that span the pool",
        out);
}

void ToolkitDrift(const std::vector<NodeInfo>& nodes, const StackHealthOptions& o,
                  std::vector<StackFinding>& out) {
  Drift(
      nodes, o, "toolkit-version-drift", "container toolkit", ToolkitOf,
      " (reinstall nvidia-container-toolkit or restart the nvidia-container-toolkit-daemonset pod "
      "on the node)",
      out);
}

void PluginDrift(const std::vector<NodeInfo>& nodes, const StackHealthOptions& o,
                 std::vector<StackFinding>& out) {
  Drift(nodes, o, "device-plugin-version-drift", "device plugin", PluginOf,
        " (roll the nvidia-device-plugin DaemonSet so every node runs one image)", out);
}

void MissingGfdLabels(const std::vector<NodeInfo>& nodes, const StackHealthOptions&,
                      std::vector<StackFinding>& out) {
  for (const NodeInfo& n : nodes) {
    if (!IsGpuNode(n) || n.HasLabel("nvidia.com/gpu.product")) continue;
    std::vector<std::string> missing = {"nvidia.com/gpu.product"};
    if (!n.HasLabel("nvidia.com/gpu.count")) missing.push_back("nvidia.com/gpu.count");
    if (DriverVersionOf(n).empty()) missing.push_back("nvidia.com/cuda.driver.*");
    bool nfd = n.Label("feature.node.kubernetes.io/pci-10de.present") == "true";
    out.push_back(
        {n.name, "missing-gfd-labels", "warning",
         fmt::format("GPU node without {}{}", fmt::join(missing, ", "),
                     nfd ? "" : " (and no NFD feature.node.kubernetes.io/pci-10de.present label)"),
         nfd ? "GPU feature discovery is not labelling the node: check the "
               "gpu-feature-discovery pod on it (GPU Operator: nvidia.com/gpu.deploy."
               "gpu-feature-discovery=true); jobs that select nvidia.com/gpu.product will not "
               "land here"
             : "neither NFD nor GFD labelled the node: check the nfd-worker and "
               "gpu-feature-discovery pods on it; jobs that select nvidia.com/gpu.product will "
               "not land here"});
  }
}

void MigConfigMismatch(const std::vector<NodeInfo>& nodes, const StackHealthOptions&,
                       std::vector<StackFinding>& out) {
  for (const NodeInfo& n : nodes) {
    if (!n.HasLabel("nvidia.com/mig.config")) continue;
    std::string_view want = n.Label("nvidia.com/mig.config");
    std::string_view state = n.Label("nvidia.com/mig.config.state");
    if (n.Label("nvidia.com/mig.capable") == "false" && want != "all-disabled") {
      out.push_back({n.name, "mig-config-mismatch", "warning",
                     fmt::format("nvidia.com/mig.config={} on a GPU that is not MIG-capable", want),
                     "set nvidia.com/mig.config=all-disabled on this node (its GPUs cannot be "
                     "partitioned) or move the MIG profile to a MIG-capable pool"});
      continue;
    }
    if (state == "success") continue;
    std::string message, hint;
    if (state.empty()) {
      message = fmt::format("nvidia.com/mig.config={} but no nvidia.com/mig.config.state", want);
      hint =
          "the MIG manager has not picked the node up: check that the nvidia-mig-manager pod "
          "runs there (GPU Operator: nvidia.com/gpu.deploy.mig-manager=true)";
    } else if (state == "failed") {
      message = fmt::format("MIG reconfiguration to {} failed (nvidia.com/mig.config.state=failed)",
                            want);
      hint =
          "read the nvidia-mig-manager logs on the node; drain GPU workloads (MIG changes need "
          "idle GPUs), then relabel nvidia.com/mig.config to retry";
    } else {
      message = fmt::format("nvidia.com/mig.config={} not applied yet (state {})", want, state);
      hint =
          "the MIG manager is still reconfiguring (it needs the GPUs idle and may reboot the "
          "node); if it stays " +
          std::string(state) +
          ", drain the node's GPU pods and check "
          "the nvidia-mig-manager logs";
    }
    out.push_back({n.name, "mig-config-mismatch", "warning", message, hint});
  }
}

}  // namespace

const std::vector<StackCheck>& StackChecks() {
  static const std::vector<StackCheck> kChecks = {
      {"device-plugin-down", DevicePluginDown},     {"gpus-unallocatable", GpusUnallocatable},
      {"driver-version-drift", DriverDrift},        {"toolkit-version-drift", ToolkitDrift},
      {"device-plugin-version-drift", PluginDrift}, {"missing-gfd-labels", MissingGfdLabels},
      {"mig-config-mismatch", MigConfigMismatch},
  };
  return kChecks;
}

std::vector<StackFinding> CheckStackHealth(const std::vector<NodeInfo>& nodes,
                                           const StackHealthOptions& options) {
  std::vector<StackFinding> all;
  for (const StackCheck& c : StackChecks()) {
    std::vector<StackFinding> found;
    c.run(nodes, options, found);
    std::stable_sort(found.begin(), found.end(),
                     [](const StackFinding& a, const StackFinding& b) { return a.node < b.node; });
    all.insert(all.end(), found.begin(), found.end());
  }
  return all;
}

}  // namespace steward::health

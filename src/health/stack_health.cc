#include "health/stack_health.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "kube/json_decoder.h"

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

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kCritical:
      return "critical";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "info";
  }
  return "info";
}

std::optional<Severity> ParseSeverity(std::string_view name) {
  for (Severity s : {Severity::kCritical, Severity::kWarning, Severity::kInfo}) {
    if (SeverityName(s) == name) return s;
  }
  return std::nullopt;
}

namespace {

bool ContainsFolded(std::string_view text, std::string_view lower_needle) {
  std::string folded(text);
  for (char& c : folded) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return folded.find(lower_needle) != std::string::npos;
}

bool EndsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

bool IsGpuProblemCondition(const NodeCondition& c) {
  for (std::string_view kubelet :
       {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"}) {
    if (c.type == kubelet) return false;
  }
  bool gpu = false;
  for (std::string_view word : {"gpu", "xid", "nvlink", "nvswitch", "nvidia", "dcgm", "accelerat"})
    gpu = gpu || ContainsFolded(c.type, word);
  if (!gpu) return false;
  if (EndsWith(c.type, "Ready") || EndsWith(c.type, "Healthy")) {
    return c.status == "False" || c.status == "Unknown";
  }
  return c.status == "True";
}

namespace {

// " since 2026-12-04T10:00:00Z (3.5 h)" when the time is known, else "".
std::string Since(std::optional<int64_t> at, const StackHealthOptions& o) {
  if (!at) return "";
  std::string s = " since " + kube::FormatTime(*at * 1'000'000);
  if (o.now && *o.now >= *at) s += fmt::format(" ({:.1f} h)", (*o.now - *at) / 3600.0);
  return s;
}

// "reason: message" of a condition, skipping what is empty.
std::string Explain(const NodeCondition& c) {
  if (c.reason.empty() && c.message.empty()) return "";
  if (c.message.empty()) return ": " + c.reason;
  if (c.reason.empty()) return ": " + c.message;
  return ": " + c.reason + ": " + c.message;
}

void NodeNotReady(const std::vector<NodeInfo>& nodes, const StackHealthOptions& o,
                  std::vector<StackFinding>& out) {
  for (const NodeInfo& n : nodes) {
    const NodeCondition* ready = n.Condition("Ready");
    if (ready == nullptr || ready->status == "True") continue;
    const bool unknown = ready->status != "False";
    out.push_back(
        {n.name, "node-not-ready", "critical",
         fmt::format("condition Ready is {}{}{}", ready->status.empty() ? "unset" : ready->status,
                     Since(ready->last_transition, o), Explain(*ready)),
         unknown ? "the kubelet stopped reporting (node down, network partition or kubelet "
                   "crash): check the machine's console and `systemctl status kubelet`; pods "
                   "on it are evicted after the unreachable toleration (300 s by default)"
                 : "the kubelet reports the node unhealthy: `kubectl describe node " + n.name +
                       "` for the reason (container runtime, CNI, PLEG), fix it or drain and "
                       "repair the node"});
  }
}

void NodeLifecycleTaint(const std::vector<NodeInfo>& nodes, const StackHealthOptions&,
                        std::vector<StackFinding>& out) {
  for (const NodeInfo& n : nodes) {
    for (const NodeTaint& t : n.taints) {
      if (t.key != "node.kubernetes.io/unreachable" && t.key != "node.kubernetes.io/not-ready") {
        continue;
      }
      out.push_back(
          {n.name, "node-lifecycle-taint", "critical",
           fmt::format("taint {}:{}: the node controller {}", t.key,
                       t.effect.empty() ? "(no effect)" : t.effect,
                       t.key == "node.kubernetes.io/unreachable" ? "lost the node's heartbeat"
                                                                 : "saw the node not ready"),
           "new pods will not schedule here and running ones are evicted after their "
           "toleration; bring the kubelet back (the taint clears itself) or drain and "
           "replace the node"});
    }
  }
}

void GpuCondition(const std::vector<NodeInfo>& nodes, const StackHealthOptions& o,
                  std::vector<StackFinding>& out) {
  for (const NodeInfo& n : nodes) {
    for (const NodeCondition& c : n.conditions) {
      if (!IsGpuProblemCondition(c)) continue;
      out.push_back(
          {n.name, "gpu-condition", "critical",
           fmt::format("condition {}={}{}{}", c.type, c.status, Since(c.last_transition, o),
                       Explain(c)),
           "a GPU health monitor (Node Problem Detector, NVSentinel, the EKS node monitoring "
           "agent) reports a GPU fault: look the XID up with `steward health xid CODE`, cordon "
           "and drain the node, then reset the GPU or send the node to repair"});
    }
  }
}

void GpuNodeCordoned(const std::vector<NodeInfo>& nodes, const StackHealthOptions&,
                     std::vector<StackFinding>& out) {
  for (const NodeInfo& n : nodes) {
    if (!n.unschedulable || !IsGpuNode(n)) continue;
    out.push_back({n.name, "gpu-node-cordoned", "warning",
                   fmt::format("GPU node cordoned (spec.unschedulable): its {} GPUs take no new "
                               "pods",
                               n.gpu_capacity),
                   "if the repair or maintenance is over, `kubectl uncordon " + n.name +
                       "`; otherwise make sure a ticket tracks it so the GPUs do not idle "
                       "unnoticed"});
  }
}

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

void MigConfigMismatch(const std::vector<NodeInfo>& nodes, const StackHealthOptions& o,
                       std::vector<StackFinding>& out) {
  for (const NodeInfo& n : nodes) {
    const bool labelled = n.HasLabel("nvidia.com/mig.config");
    if (!labelled && !n.HasLabel("nvidia.com/mig.config.state")) continue;
    std::string_view want = n.Label("nvidia.com/mig.config");
    std::string_view state = n.Label("nvidia.com/mig.config.state");
    const std::string target =
        labelled ? fmt::format("nvidia.com/mig.config={}", want) : "the MIG configuration";
    if (labelled && n.Label("nvidia.com/mig.capable") == "false" && want != "all-disabled") {
      out.push_back({n.name, "mig-config-mismatch", "warning",
                     fmt::format("nvidia.com/mig.config={} on a GPU that is not MIG-capable", want),
                     "set nvidia.com/mig.config=all-disabled on this node (its GPUs cannot be "
                     "partitioned) or move the MIG profile to a MIG-capable pool"});
      continue;
    }
    if (state == "success") continue;
    std::string severity = "warning", message, hint;
    if (state.empty()) {
      message = fmt::format("nvidia.com/mig.config={} but no nvidia.com/mig.config.state", want);
      hint =
          "the MIG manager has not picked the node up: check that the nvidia-mig-manager pod "
          "runs there (GPU Operator: nvidia.com/gpu.deploy.mig-manager=true)";
    } else if (state == "failed") {
      severity = "critical";
      message = fmt::format("MIG reconfiguration to {} failed (nvidia.com/mig.config.state=failed)",
                            labelled ? want : "an unlabelled profile");
      hint =
          "read the nvidia-mig-manager logs on the node; drain GPU workloads (MIG changes need "
          "idle GPUs), then relabel nvidia.com/mig.config to retry";
    } else {
      // pending, rebooting or another in-progress state: judged by how long it has lasted.
      std::optional<int64_t> since;
      if (std::string_view at = n.Annotation(kMigStateSinceAnnotation); !at.empty()) {
        if (std::optional<int64_t> micros = kube::ParseTime(at)) since = *micros / 1'000'000;
      }
      const bool judged = since && o.now;
      const bool stuck = judged && *o.now - *since > o.mig_pending_limit_seconds;
      severity = stuck ? "critical" : "info";
      message = fmt::format(
          "{} not applied yet (nvidia.com/mig.config.state={}){}{}", target, state, Since(since, o),
          stuck ? fmt::format(", longer than the {:.0f} min limit",
                              o.mig_pending_limit_seconds / 60.0)
          : judged
              ? ""
              : fmt::format(", for an unknown time (no {} annotation)", kMigStateSinceAnnotation));
      hint =
          "the MIG manager is still reconfiguring (it needs the GPUs idle and may reboot the "
          "node); if it stays " +
          std::string(state) +
          ", drain the node's GPU pods and check "
          "the nvidia-mig-manager logs";
    }
    out.push_back({n.name, "mig-config-mismatch", severity, message, hint});
  }
}

}  // namespace

const std::vector<StackCheck>& StackChecks() {
  static const std::vector<StackCheck> kChecks = {
      {"device-plugin-down", DevicePluginDown},
      {"gpus-unallocatable", GpusUnallocatable},
      {"driver-version-drift", DriverDrift},
      {"toolkit-version-drift", ToolkitDrift},
      {"device-plugin-version-drift", PluginDrift},
      {"missing-gfd-labels", MissingGfdLabels},
      {"mig-config-mismatch", MigConfigMismatch},
      {"node-not-ready", NodeNotReady, /*node_state=*/true},
      {"node-lifecycle-taint", NodeLifecycleTaint, /*node_state=*/true},
      {"gpu-condition", GpuCondition, /*node_state=*/true},
      {"gpu-node-cordoned", GpuNodeCordoned, /*node_state=*/true},
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

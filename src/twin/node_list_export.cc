#include "twin/node_list_export.h"

#include <fmt/format.h>

namespace steward::twin {

nlohmann::json NodeListJson(const Twin& twin) {
  using nlohmann::json;
  const model::Cluster& cluster = twin.cluster();
  json items = json::array();
  for (model::NodeId n = 0; n < static_cast<model::NodeId>(cluster.nodes().size()); ++n) {
    const model::Node& node = cluster.node(n);
    json labels = json::object();
    for (const auto& [k, v] : node.labels) labels[k] = v;
    labels["kubernetes.io/hostname"] = node.name;
    if (!node.driver_version.empty())
      labels["nvidia.com/cuda.driver-version.full"] = node.driver_version;
    if (!node.toolkit_version.empty()) labels[kToolkitVersionLabel] = node.toolkit_version;
    if (!node.device_plugin_version.empty())
      labels[kDevicePluginVersionLabel] = node.device_plugin_version;
    json taints = json::array();
    for (const model::Taint& t : node.taints)
      taints.push_back({{"key", t.key}, {"value", t.value}, {"effect", t.effect}});
    if (node.cordoned)
      taints.push_back({{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}});
    json spec = json::object();
    if (node.cordoned) spec["unschedulable"] = true;
    if (!taints.empty()) spec["taints"] = taints;
    auto resources = [&](int gpus) {
      json r{{"cpu", fmt::format("{}m", node.cpu_milli)},
             {"memory", fmt::format("{}Mi", node.memory_mib)},
             {"nvidia.com/gpu", std::to_string(gpus)}};
      const auto& names = twin.cluster().extended_resources();
      for (size_t i = 0; i < names.size(); ++i) r[names[i]] = std::to_string(node.extended[i]);
      return r;
    };
    json status = {
        {"capacity", resources(node.gpu_capacity)},
        {"allocatable", resources(node.gpu_allocatable)},
        {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})},
    };
    if (twin.gpus_missing(n))
      status["conditions"].push_back(
          {{"type", "GPUMissing"}, {"status", "True"}, {"reason", "DevicePluginAdvertisesNoGpus"}});
    items.push_back({{"apiVersion", "v1"},
                     {"kind", "Node"},
                     {"metadata", {{"name", node.name}, {"labels", labels}}},
                     {"spec", spec},
                     {"status", status}});
  }
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
}

}  // namespace steward::twin

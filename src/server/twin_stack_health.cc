#include "server/twin_stack_health.h"

#include <functional>
#include <string_view>

#include "health/node_list.h"
#include "twin/node_list_export.h"

namespace steward::server {

std::vector<health::StackFinding> TwinStackFindings(const twin::Twin& twin) {
  // Through the same parser `steward health nodes` uses, so both read the same fields.
  auto nodes = health::ParseNodeList(twin::NodeListJson(twin).dump(), "twin nodes");
  if (!nodes.ok()) return {};  // The export always parses; nothing to report otherwise.
  return health::CheckStackHealth(*nodes);
}

uint64_t StackInputsFingerprint(const twin::Twin& twin) {
  uint64_t h = 0;
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL; };
  const std::hash<std::string_view> text;
  const model::Cluster& cluster = twin.cluster();
  for (model::NodeId n = 0; n < static_cast<model::NodeId>(cluster.nodes().size()); ++n) {
    const model::Node& node = cluster.node(n);
    mix(text(node.driver_version));
    mix(text(node.toolkit_version));
    mix(text(node.device_plugin_version));
    mix(static_cast<uint64_t>(node.gpu_allocatable));
    mix(node.cordoned ? 1 : 2);
    mix(twin.gpus_missing(n) ? 3 : 4);
    for (const auto& [k, v] : node.labels) {
      mix(text(k));
      mix(text(v));
    }
  }
  return h;
}

}  // namespace steward::server

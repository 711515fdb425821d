#include "server/twin_stack_health.h"

#include "health/node_list.h"
#include "twin/node_list_export.h"

namespace steward::server {

std::vector<health::StackFinding> TwinStackFindings(const twin::Twin& twin) {
  // Through the same parser `steward health nodes` uses, so both read the same fields.
  auto nodes = health::ParseNodeList(twin::NodeListJson(twin).dump(), "twin nodes");
  if (!nodes.ok()) return {};  // The export always parses; nothing to report otherwise.
  return health::CheckStackHealth(*nodes);
}

}  // namespace steward::server

// libFuzzer target: NodeList JSON or YAML (health/node_list.h) and the checks over what it reads,
// as `steward health nodes` runs them.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "health/node_list.h"
#include "health/stack_health.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto nodes = steward::health::ParseNodeList(text, "fuzz", {.allow_empty = true});
  if (nodes.ok()) {
    steward::health::StackHealthOptions options;
    options.now = 1'800'000'000;
    (void)steward::health::CheckStackHealth(*nodes, options);
  }
  return 0;
}

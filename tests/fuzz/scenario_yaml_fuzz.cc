// libFuzzer target: scenario YAML (twin/scenario.h), parsed and validated; the cluster it
// describes is built only when small, so the fuzzer explores the parser rather than memory.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "twin/build_cluster.h"
#include "twin/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto scenario = steward::twin::ParseScenario(text, "fuzz.yaml");
  if (scenario.ok()) {
    size_t nodes = 0;
    for (const auto& p : scenario->pools) nodes += static_cast<size_t>(std::max(0, p.nodes));
    if (nodes <= 4096) (void)steward::twin::BuildCluster(*scenario);
  }
  return 0;
}

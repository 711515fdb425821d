// libFuzzer target: Prometheus text and OpenMetrics exposition (telemetry/exposition.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "telemetry/exposition.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)steward::telemetry::ParseExposition(text);
  return 0;
}

// libFuzzer target: PodList JSON as diagnose bundles carry it (diagnose/objects.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "diagnose/objects.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)steward::diagnose::ParsePodList(text, "fuzz.json");
  return 0;
}

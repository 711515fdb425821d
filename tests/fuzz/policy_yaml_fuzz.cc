// libFuzzer target: Kueue/Volcano policy YAML (govern/policy_io.h), import then validation.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "govern/policy_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  steward::govern::Policy policy;
  if (steward::govern::ImportYaml(text, "fuzz.yaml", &policy).ok()) {
    (void)steward::govern::ValidatePolicy(&policy);
  }
  return 0;
}

// libFuzzer target: Kubernetes JSON text (model/json_text.h), what every `kubectl get -o json`
// reader parses first. Built only with -DSTEWARD_FUZZ=ON (cmake/fuzz.cmake).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/json_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)steward::model::ParseJsonText(text, "fuzz.json");
  return 0;
}

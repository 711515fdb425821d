#include "model/data_dir.h"

#include <cstdlib>
#include <string_view>

namespace steward::model {

std::filesystem::path DataDir() {
  const char* env = std::getenv("STEWARD_DATA");
  const std::filesystem::path dir =
      env != nullptr && *env != '\0' ? std::filesystem::path(env) : "../shared/data";
  // Absolute, so a scenario's relative-path rule (relative to the scenario file) leaves it be.
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(dir, ec);
  return ec ? dir : abs.lexically_normal();
}

std::filesystem::path ExpandDataPath(const std::string& path) {
  constexpr std::string_view kPrefix = "$STEWARD_DATA/";
  if (!path.starts_with(kPrefix)) return path;
  return DataDir() / path.substr(kPrefix.size());
}

}  // namespace steward::model

#include "control/cluster_control.h"

#include <fmt/format.h>

#include <cctype>

namespace steward::control {

std::string ObjectRef::Display() const {
  std::string kind_lower = kind;
  for (char& c : kind_lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (namespace_name.empty()) return fmt::format("{}/{}", kind_lower, name);
  return fmt::format("{}/{}/{}", kind_lower, namespace_name, name);
}

}  // namespace steward::control

#include "model/extended_resources.h"

#include <algorithm>
#include <cctype>

namespace steward::model {

bool IsExtendedResourceName(std::string_view name) {
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == name.size()) return false;
  const std::string_view domain = name.substr(0, slash), local = name.substr(slash + 1);
  if (local.size() > 63 || local.find('/') != std::string_view::npos) return false;
  auto valid = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](unsigned char c) {
      return std::isalnum(c) || c == '-' || c == '.' || c == '_';
    });
  };
  if (!valid(domain) || !valid(local)) return false;
  // Kubernetes reserves its own domain; the GPU resources are modelled by the twin itself.
  if (domain == "kubernetes.io" || domain.ends_with(".kubernetes.io")) return false;
  if (domain == "nvidia.com" &&
      (local == "gpu" || local.starts_with("mig-") || local == "gpucores" || local == "gpumem"))
    return false;
  return true;
}

}  // namespace steward::model

#include "server/query_params.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace steward::server {

Status QueryParams::Allow(std::initializer_list<std::string_view> names) const {
  for (const auto& [k, v] : r_.params) {
    if (std::find(names.begin(), names.end(), k) != names.end()) continue;
    std::string valid;
    for (auto n : names) valid += (valid.empty() ? "" : ", ") + std::string(n);
    return Status::InvalidArgument(
        fmt::format("unknown query parameter '{}' (valid: {})", k, valid.empty() ? "none" : valid));
  }
  return Status::Ok();
}

std::string QueryParams::Get(const std::string& name, std::string fallback) const {
  auto it = r_.params.find(name);
  return it == r_.params.end() ? fallback : it->second;
}

Result<int> QueryParams::Int(const std::string& name, int fallback, int lo, int hi) const {
  auto it = r_.params.find(name);
  if (it == r_.params.end()) return fallback;
  int v = 0;
  const std::string& s = it->second;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi)
    return Status::InvalidArgument(
        fmt::format("{}={}: expected an integer in {}..{}", name, s, lo, hi));
  return v;
}

Result<double> QueryParams::Double(const std::string& name, double fallback) const {
  auto it = r_.params.find(name);
  if (it == r_.params.end()) return fallback;
  const std::string& s = it->second;
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v))
    return Status::InvalidArgument(fmt::format("{}={}: expected a number", name, s));
  return v;
}

Result<bool> QueryParams::Bool(const std::string& name, bool fallback) const {
  auto it = r_.params.find(name);
  if (it == r_.params.end()) return fallback;
  const std::string& s = it->second;
  if (s == "true" || s == "1") return true;
  if (s == "false" || s == "0") return false;
  return Status::InvalidArgument(fmt::format("{}={}: expected true or false", name, s));
}

}  // namespace steward::server

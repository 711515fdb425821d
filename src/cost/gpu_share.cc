#include "cost/gpu_share.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string>

namespace steward::cost {
namespace {

bool ParseDouble(std::string_view s, double* out) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, *out);
  return ec == std::errc() && ptr == end && std::isfinite(*out);
}

Result<double> InRange(double v, std::string_view text) {
  if (!(v > 0) || v > 1.0 + 1e-12) {
    return Status::InvalidArgument(
        fmt::format("GPU share '{}' is {}; it must be in (0, 1]", text, v));
  }
  return v > 1.0 ? 1.0 : v;
}

}  // namespace

Result<double> MigProfileShare(std::string_view profile) {
  std::string_view p = profile;
  if (auto slash = p.rfind('/'); slash != std::string_view::npos) p = p.substr(slash + 1);
  if (p.starts_with("mig-")) p.remove_prefix(4);
  const auto g = p.find("g.");
  int slices = 0;
  if (g == std::string_view::npos || g == 0 ||
      std::from_chars(p.data(), p.data() + g, slices).ptr != p.data() + g || slices < 1 ||
      slices > kMigComputeSlices) {
    return Status::InvalidArgument(
        fmt::format("'{}' is not a MIG profile like 1g.10gb (1 to {} compute slices)", profile,
                    kMigComputeSlices));
  }
  return static_cast<double>(slices) / kMigComputeSlices;
}

Result<double> ParseGpuShare(std::string_view text) {
  std::string_view t = text;
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  if (t.empty()) return Status::InvalidArgument("empty GPU share");
  if (t.find("g.") != std::string_view::npos) return MigProfileShare(t);
  double v = 0;
  if (auto slash = t.find('/'); slash != std::string_view::npos) {
    double num = 0, den = 0;
    if (!ParseDouble(t.substr(0, slash), &num) || !ParseDouble(t.substr(slash + 1), &den) ||
        den == 0) {
      return Status::InvalidArgument(fmt::format("GPU share '{}' is not a ratio like 1/7", text));
    }
    return InRange(num / den, text);
  }
  if (t.back() == 'm' || t.back() == '%') {
    const double scale = t.back() == 'm' ? 1000.0 : 100.0;
    if (!ParseDouble(t.substr(0, t.size() - 1), &v)) {
      return Status::InvalidArgument(fmt::format("GPU share '{}' is not a number", text));
    }
    return InRange(v / scale, text);
  }
  if (!ParseDouble(t, &v)) {
    return Status::InvalidArgument(fmt::format(
        "GPU share '{}' is not a fraction, ratio, milli-GPU (250m), percent or MIG profile", text));
  }
  return InRange(v, text);
}

}  // namespace steward::cost

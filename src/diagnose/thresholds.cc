#include "diagnose/thresholds.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace steward::diagnose {
namespace {

// One settable field: its name, where it lives, and its valid range [min, max].
struct Field {
  const char* name;
  double Thresholds::*real = nullptr;
  int Thresholds::*integer = nullptr;
  double min;
  double max;
};

const Field kFields[] = {
    {"idle_sm_active", &Thresholds::idle_sm_active, nullptr, 0, 1},
    {"fb_held_mib", &Thresholds::fb_held_mib, nullptr, 0, 1e9},
    {"zombie_minutes", &Thresholds::zombie_minutes, nullptr, 0, 1e7},
    {"stall_gpu_util_percent", &Thresholds::stall_gpu_util_percent, nullptr, 0, 100},
    {"stall_min_drops", nullptr, &Thresholds::stall_min_drops, 1, 1e6},
    {"low_sm_active", &Thresholds::low_sm_active, nullptr, 0, 1},
    {"low_tensor_active", &Thresholds::low_tensor_active, nullptr, 0, 1},
    {"recommend_share", &Thresholds::recommend_share, nullptr, 0, 1},
    {"top_n", nullptr, &Thresholds::top_n, 0, 1e6},
    {"right_size_quantile", &Thresholds::right_size_quantile, nullptr, 0.5, 1},
    {"share_sm_active", &Thresholds::share_sm_active, nullptr, 0, 1},
};

std::string ValidKeys() {
  std::string s;
  for (const Field& f : kFields) s += std::string(s.empty() ? "" : ", ") + f.name;
  return s;
}

const Field* Find(std::string_view key) {
  for (const Field& f : kFields)
    if (key == f.name) return &f;
  return nullptr;
}

// 1000000 rather than 1e+06.
std::string Number(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

// Error text for `value` given to `f`, or "" when it fits (and then stores it).
std::string Apply(Thresholds& t, const Field& f, std::string_view value) {
  double v = 0;
  const char* begin = value.data();
  const char* end = value.data() + value.size();
  auto [p, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || p != end || !std::isfinite(v))
    return fmt::format("must be a number, got '{}'", value);
  if (f.integer != nullptr && v != std::floor(v))
    return fmt::format("must be a whole number, got '{}'", value);
  if (v < f.min || v > f.max)
    return fmt::format("must be in [{}, {}], got {}", Number(f.min), Number(f.max), value);
  if (f.real != nullptr) {
    t.*f.real = v;
  } else {
    t.*f.integer = static_cast<int>(v);
  }
  return "";
}

}  // namespace

Status SetThreshold(Thresholds& t, std::string_view key, std::string_view value) {
  const Field* f = Find(key);
  if (f == nullptr) {
    return Status::InvalidArgument(
        fmt::format("threshold {}: unknown (valid: {})", key, ValidKeys()));
  }
  const std::string error = Apply(t, *f, value);
  if (!error.empty()) return Status::InvalidArgument(fmt::format("threshold {}: {}", key, error));
  return Status::Ok();
}

Status SetThresholdAssignment(Thresholds& t, std::string_view assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    return Status::InvalidArgument(
        fmt::format("threshold '{}': expected KEY=VALUE (keys: {})", assignment, ValidKeys()));
  }
  return SetThreshold(t, assignment.substr(0, eq), assignment.substr(eq + 1));
}

Status ParseThresholds(std::string_view yaml_text, std::string_view filename, Thresholds& t) {
  auto error = [&](const YAML::Mark& mark, std::string_view field, std::string_view what) {
    // yaml-cpp marks are 0-based and -1 when unknown.
    return MakeInputError(filename, mark.line >= 0 ? mark.line + 1 : 0,
                          mark.column >= 0 ? mark.column + 1 : 0, field, what);
  };
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::ParserException& e) {
    return error(e.mark, "yaml", e.msg);
  }
  if (root.IsNull()) return Status::Ok();  // An empty file keeps every default.
  if (!root.IsMap()) return error(root.Mark(), "thresholds", "must be a map of KEY: VALUE");
  Thresholds next = t;  // All or nothing: a bad key leaves `t` unchanged.
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    const Field* f = Find(key);
    if (f == nullptr)
      return error(kv.first.Mark(), key, fmt::format("unknown threshold (valid: {})", ValidKeys()));
    if (!kv.second.IsScalar()) return error(kv.second.Mark(), key, "must be a number");
    const std::string problem = Apply(next, *f, kv.second.Scalar());
    if (!problem.empty()) return error(kv.second.Mark(), key, problem);
  }
  t = next;
  return Status::Ok();
}

Status LoadThresholds(const std::filesystem::path& path, Thresholds& t) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(fmt::format("{}: cannot open", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseThresholds(ss.str(), path.string(), t);
}

}  // namespace steward::diagnose

// Reading a scenario's YAML tree into typed fields (internal to twin/scenario*.cc, and to the
// readers that share a section's parser through twin/tidal_yaml.h): every
// problem becomes a Status that names the source, line, column and the dotted field path, and
// the small checks every section shares (positive numbers, counts, labels, kinds, lists).
//
//   const Reader r("x.yaml");
//   STEWARD_RETURN_IF_ERROR(r.CheckKeys(node, "teams[0]", {"name", "quota_gpus"}));
//   STEWARD_RETURN_IF_ERROR(r.Get(node, "quota_gpus", "teams[0]", &team.quota_gpus, true));
//
// yaml-cpp throws; nothing escapes these functions but a shape error ParseScenario catches.
// Stateless apart from the source name: thread-compatible.
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "model/status.h"
#include "model/workload.h"
#include "model/yaml_checked.h"
#include "twin/distribution.h"

namespace steward::twin::scenario_yaml {

// Reads typed fields out of a YAML tree for one source (a file name or "<default>").
class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}

  // "source:line:column: field: what", at the node's position.
  Status Error(const YAML::Node& at, const std::string& field, std::string_view what) const;

  // Rejects keys outside `allowed`, so a typo never silently drops a setting.
  Status CheckKeys(const YAML::Node& map, const std::string& path,
                   std::initializer_list<std::string_view> allowed) const;

  // The scalar at map[key] into *out (absent: unchanged, or an error when required).
  template <typename T>
  Status Get(const YAML::Node& map, const char* key, const std::string& path, T* out,
             bool required = false) const {
    const YAML::Node n = map[key];
    const std::string field = Join(path, key);
    if (!n) {
      return required ? Error(map, field, "is required") : Status::Ok();
    }
    return Scalar(n, field, out);
  }

  template <typename T>
  Status Scalar(const YAML::Node& n, const std::string& field, T* out) const {
    if (!n.IsScalar()) return Error(n, field, "must be a scalar");
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      // Finite, integral for integer fields ("1280" and "1.28e3" but not "12.5"), in range of
      // T: one checked conversion for every number of a scenario (model/yaml_checked.h).
      Status s = model::ReadYamlNumber(n, out);
      if (!s.ok()) return Error(n, field, s.message());
    } else {
      try {
        *out = n.as<T>();
      } catch (const YAML::Exception&) {
        return Error(n, field, fmt::format("cannot read '{}' as {}", n.Scalar(), TypeName<T>()));
      }
    }
    return Status::Ok();
  }

  // A Distribution at map[key]: a number (a constant) or {dist: ..., ...}; absent = unchanged.
  Status Dist(const YAML::Node& map, const char* key, const std::string& path,
              Distribution* out) const;

  // A list of numbers at map[key]; absent = unchanged.
  Status List(const YAML::Node& map, const char* key, const std::string& path,
              std::vector<double>* out) const;

  static std::string Join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }

 private:
  template <typename T>
  static const char* TypeName() {
    if constexpr (std::is_same_v<T, bool>)
      return "a boolean";
    else if constexpr (std::is_integral_v<T>)
      return "an integer";
    else if constexpr (std::is_floating_point_v<T>)
      return "a number";
    else
      return "a string";
  }
  std::string source_;
};

// Ok when v > 0 (or >= 0 with allow_zero); else an error at `at`.
Status Positive(const Reader& r, const YAML::Node& at, const std::string& field, double v,
                bool allow_zero = false);

// A distribution of counts (pods, GPUs per pod) is sampled, rounded and stored as an
// int: every value it may take must be a whole number no larger than `limit`, or a count like
// 4294967304 would wrap around to 8. Unbounded shapes (exponential, lognormal) are capped at
// `limit` so no sample overflows.
Status CheckCountDist(const Reader& r, const YAML::Node& map, const char* key,
                      const std::string& path, double limit, Distribution* d);

// A map of string labels (`key: value`), as Kubernetes labels.
Status ParseLabels(const Reader& r, const YAML::Node& map, const char* key, const std::string& path,
                   std::map<std::string, std::string>* out);

// A map of extended resources (`example.com/fpga: 2`): names as model::IsExtendedResourceName
// accepts, whole counts in [min, 2^31 - 1].
Status ParseExtendedResources(const Reader& r, const YAML::Node& map, const std::string& path,
                              int64_t min, std::map<std::string, int64_t>* out);

// A non-empty list of distinct workload kinds, in the order given.
Status ParseKinds(const Reader& r, const YAML::Node& k, const std::string& path,
                  std::vector<model::WorkloadKind>* out);

// The list at root[key], each item read by `parse(r, item, "key[i]", &out_item)`.
template <typename T, typename F>
Status ParseList(const Reader& r, const YAML::Node& root, const char* key, bool required,
                 std::vector<T>* out, F parse) {
  const YAML::Node n = root[key];
  if (!n) return required ? r.Error(root, key, "is required") : Status::Ok();
  if (!n.IsSequence()) return r.Error(n, key, "must be a list");
  for (size_t i = 0; i < n.size(); ++i) {
    T item;
    STEWARD_RETURN_IF_ERROR(parse(r, n[i], fmt::format("{}[{}]", key, i), &item));
    out->push_back(std::move(item));
  }
  return Status::Ok();
}

}  // namespace steward::twin::scenario_yaml

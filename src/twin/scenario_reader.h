// The scenario parser's YAML reader, shared by the files that parse parts of a scenario
// (scenario.cc, scenario_serving.cc). Internal to the twin: not a public surface.
//
//   Reader r("s.yaml");
//   STEWARD_RETURN_IF_ERROR(r.CheckKeys(node, "tidal", {"enabled", "lend_to"}));
//   STEWARD_RETURN_IF_ERROR(r.Get(node, "lend_to", "tidal", &spec.lend_to, true));
//
// Every problem becomes a Status naming the source, line, column and dotted field; yaml-cpp's
// exceptions never escape. Cheap to copy; no state beyond the source name.
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "model/status.h"
#include "model/yaml_checked.h"
#include "twin/distribution.h"

namespace steward::twin::scenario_internal {

// Reads typed fields out of a YAML tree, turning every problem into a Status that names the
// source, line, column and the dotted field path. yaml-cpp throws; nothing escapes this class.
class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}

  Status Error(const YAML::Node& at, const std::string& field, std::string_view what) const {
    const YAML::Mark m = at.Mark();
    const bool known = m.line >= 0 && !at.IsNull() ? true : m.line >= 0;
    return MakeInputError(source_, known ? m.line + 1 : 0, known ? m.column + 1 : 0, field, what);
  }

  // Rejects keys outside `allowed`, so a typo never silently drops a setting.
  Status CheckKeys(const YAML::Node& map, const std::string& path,
                   std::initializer_list<std::string_view> allowed) const {
    if (!map.IsMap()) return Error(map, path, "must be a mapping");
    for (const auto& kv : map) {
      const std::string key = kv.first.Scalar();
      bool ok = false;
      for (auto a : allowed) ok = ok || a == key;
      if (!ok) {
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        return Error(kv.first, Join(path, key),
                     fmt::format("unknown field (expected one of: {})", list));
      }
    }
    return Status::Ok();
  }

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

  Status Dist(const YAML::Node& map, const char* key, const std::string& path,
              Distribution* out) const {
    const YAML::Node n = map[key];
    if (!n) return Status::Ok();
    const std::string field = Join(path, key);
    if (n.IsScalar()) {
      double v;
      STEWARD_RETURN_IF_ERROR(Scalar(n, field, &v));
      *out = Distribution::Constant(v);
      return Status::Ok();
    }
    STEWARD_RETURN_IF_ERROR(CheckKeys(
        n, field, {"dist", "value", "mean", "median", "sigma", "min", "max", "values", "weights"}));
    std::string dist;
    STEWARD_RETURN_IF_ERROR(Get(n, "dist", field, &dist, true));
    Distribution d;
    STEWARD_RETURN_IF_ERROR(Get(n, "min", field, &d.min));
    STEWARD_RETURN_IF_ERROR(Get(n, "max", field, &d.max));
    if (dist == "constant") {
      d.kind = Distribution::Kind::kConstant;
      STEWARD_RETURN_IF_ERROR(Get(n, "value", field, &d.value, true));
    } else if (dist == "uniform") {
      d.kind = Distribution::Kind::kUniform;
      if (!n["min"] || !n["max"]) return Error(n, field, "uniform needs min and max");
    } else if (dist == "exponential") {
      d.kind = Distribution::Kind::kExponential;
      STEWARD_RETURN_IF_ERROR(Get(n, "mean", field, &d.mean, true));
      if (d.mean <= 0) return Error(n["mean"], field + ".mean", "must be > 0");
    } else if (dist == "lognormal") {
      d.kind = Distribution::Kind::kLogNormal;
      STEWARD_RETURN_IF_ERROR(Get(n, "median", field, &d.median, true));
      STEWARD_RETURN_IF_ERROR(Get(n, "sigma", field, &d.sigma, true));
      if (d.median <= 0 || d.sigma < 0) return Error(n, field, "needs median > 0 and sigma >= 0");
    } else if (dist == "choice") {
      d.kind = Distribution::Kind::kChoice;
      STEWARD_RETURN_IF_ERROR(List(n, "values", field, &d.values));
      STEWARD_RETURN_IF_ERROR(List(n, "weights", field, &d.weights));
      if (d.values.empty()) return Error(n, field + ".values", "must be a non-empty list");
      if (d.weights.empty()) d.weights.assign(d.values.size(), 1.0);
      if (d.weights.size() != d.values.size())
        return Error(n["weights"], field + ".weights", "must have one weight per value");
      for (double w : d.weights)
        if (w < 0) return Error(n["weights"], field + ".weights", "must be >= 0");
    } else {
      return Error(n["dist"], field + ".dist",
                   fmt::format("unknown distribution '{}' (constant, uniform, exponential, "
                               "lognormal, choice)",
                               dist));
    }
    if (d.min > d.max) return Error(n, field, "min must be <= max");
    *out = d;
    return Status::Ok();
  }

  Status List(const YAML::Node& map, const char* key, const std::string& path,
              std::vector<double>* out) const {
    const YAML::Node n = map[key];
    if (!n) return Status::Ok();
    const std::string field = Join(path, key);
    if (!n.IsSequence()) return Error(n, field, "must be a list");
    out->clear();
    for (size_t i = 0; i < n.size(); ++i) {
      double v;
      STEWARD_RETURN_IF_ERROR(Scalar(n[i], fmt::format("{}[{}]", field, i), &v));
      out->push_back(v);
    }
    return Status::Ok();
  }

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

inline Status Positive(const Reader& r, const YAML::Node& at, const std::string& field, double v,
                       bool allow_zero = false) {
  if (v > 0 || (allow_zero && v == 0)) return Status::Ok();
  return r.Error(at, field, allow_zero ? "must be >= 0" : "must be > 0");
}

}  // namespace steward::twin::scenario_internal

namespace steward::twin {
struct GeneratorSpec;
struct Scenario;
struct TidalSpec;
}  // namespace steward::twin

namespace steward::twin::scenario_internal {

// scenario_serving.cc: a generator's `traffic`, `capacity_per_replica`, `latency`, `slo` and
// `autoscaler` (an inference generator's serving model), and the `tidal` section.
Status ParseServing(const Reader& r, const YAML::Node& generator, const std::string& path,
                    GeneratorSpec* g);
Status ParseTidal(const Reader& r, const YAML::Node& tidal, TidalSpec* out);
// Cross-references of the tidal section (queues, a traffic service to lend from).
Status ValidateTidal(const Reader& r, const YAML::Node& root, Scenario* s);
// Reads each generator's traffic CSV (paths already resolved against the scenario).
Status LoadTrafficCsvs(Scenario* s);

}  // namespace steward::twin::scenario_internal

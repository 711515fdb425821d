#include "twin/scenario_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/extended_resources.h"

namespace steward::twin::scenario_yaml {

Status Reader::Error(const YAML::Node& at, const std::string& field, std::string_view what) const {
  const YAML::Mark m = at.Mark();
  const bool known = m.line >= 0 && !at.IsNull() ? true : m.line >= 0;
  return MakeInputError(source_, known ? m.line + 1 : 0, known ? m.column + 1 : 0, field, what);
}

Status Reader::CheckKeys(const YAML::Node& map, const std::string& path,
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

Status Reader::Dist(const YAML::Node& map, const char* key, const std::string& path,
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

Status Reader::List(const YAML::Node& map, const char* key, const std::string& path,
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

Status Positive(const Reader& r, const YAML::Node& at, const std::string& field, double v,
                bool allow_zero) {
  if (v > 0 || (allow_zero && v == 0)) return Status::Ok();
  return r.Error(at, field, allow_zero ? "must be >= 0" : "must be > 0");
}

Status CheckCountDist(const Reader& r, const YAML::Node& map, const char* key,
                      const std::string& path, double limit, Distribution* d) {
  const YAML::Node n = map[key];
  if (!n) return Status::Ok();
  const std::string field = Reader::Join(path, key);
  auto bad = [&](std::string_view what, double v, std::string_view why) {
    return r.Error(
        n, field,
        fmt::format("{}{} {} (a count: a whole number from 0 to {})", what, v, why, limit));
  };
  auto check = [&](double v) -> Status {
    if (v < 0 || v > limit) return bad("", v, "is out of range");
    if (v != std::floor(v)) return bad("", v, "is not a whole number");
    return Status::Ok();
  };
  using Kind = Distribution::Kind;
  if (d->kind == Kind::kConstant) STEWARD_RETURN_IF_ERROR(check(d->value));
  if (d->kind == Kind::kChoice) {
    for (double v : d->values) STEWARD_RETURN_IF_ERROR(check(v));
  }
  if (n.IsMap() && n["max"] && d->max > limit) return bad("max ", d->max, "is out of range");
  if (d->kind != Kind::kUniform) d->max = std::min(d->max, limit);
  return Status::Ok();
}

Status ParseLabels(const Reader& r, const YAML::Node& map, const char* key, const std::string& path,
                   std::map<std::string, std::string>* out) {
  const YAML::Node l = map[key];
  if (!l) return Status::Ok();
  const std::string field = Reader::Join(path, key);
  if (!l.IsMap()) return r.Error(l, field, "must be a mapping");
  for (const auto& kv : l) {
    std::string v;
    STEWARD_RETURN_IF_ERROR(r.Scalar(kv.second, field + "." + kv.first.Scalar(), &v));
    (*out)[kv.first.Scalar()] = v;
  }
  return Status::Ok();
}

Status ParseExtendedResources(const Reader& r, const YAML::Node& map, const std::string& path,
                              int64_t min, std::map<std::string, int64_t>* out) {
  const YAML::Node l = map["extended_resources"];
  if (!l) return Status::Ok();
  const std::string field = Reader::Join(path, "extended_resources");
  if (!l.IsMap()) return r.Error(l, field, "must be a mapping of resource name to count");
  for (const auto& kv : l) {
    const std::string name = kv.first.Scalar();
    const std::string at = field + "." + name;
    if (!model::IsExtendedResourceName(name))
      return r.Error(kv.first, at,
                     "not an extended resource name: give a domain and a name "
                     "(example.com/fpga); cpu, memory, nvidia.com/gpu and the MIG resources "
                     "have their own fields");
    int64_t count = 0;
    STEWARD_RETURN_IF_ERROR(r.Scalar(kv.second, at, &count));
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    if (count < min || count > kMax)
      return r.Error(kv.second, at, fmt::format("must be a whole count in [{}, {}]", min, kMax));
    (*out)[name] = count;
  }
  return Status::Ok();
}

Status ParseKinds(const Reader& r, const YAML::Node& k, const std::string& path,
                  std::vector<model::WorkloadKind>* out) {
  if (!k.IsSequence() || k.size() == 0)
    return r.Error(k, path, "must be a non-empty list of workload kinds");
  for (size_t i = 0; i < k.size(); ++i) {
    const std::string field = fmt::format("{}[{}]", path, i);
    std::string text;
    STEWARD_RETURN_IF_ERROR(r.Scalar(k[i], field, &text));
    model::WorkloadKind kind;
    if (!model::ParseKind(text, &kind))
      return r.Error(k[i], field,
                     fmt::format("unknown kind '{}' (inference, training, notebook, batch)", text));
    if (std::find(out->begin(), out->end(), kind) != out->end())
      return r.Error(k[i], field, fmt::format("kind '{}' is listed twice", text));
    out->push_back(kind);
  }
  return Status::Ok();
}

}  // namespace steward::twin::scenario_yaml

#include "kube/yaml_json.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace steward::kube {
namespace {

using nlohmann::json;

// A plain scalar under the core schema.
json PlainScalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  int64_t i = 0;
  const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
  auto [p, ec] = std::from_chars(begin, s.data() + s.size(), i);
  if (ec == std::errc() && p == s.data() + s.size()) return i;
  // Floats: digits with a dot or an exponent (not "1.2.3", not a version).
  double d = 0;
  auto [q, ec2] = std::from_chars(begin, s.data() + s.size(), d);
  if (ec2 == std::errc() && q == s.data() + s.size() && std::isfinite(d) &&
      s.find_first_of(".eE") != std::string::npos)
    return d;
  return s;
}

Status Convert(const YAML::Node& node, std::string_view source, int depth, json* out) {
  if (depth > 200)
    return Status::InvalidArgument(fmt::format("{}:{}: nesting too deep", source,
                                               node.Mark().line + 1));
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      *out = nullptr;
      return Status::Ok();
    case YAML::NodeType::Scalar:
      *out = node.Tag() == "!" ? json(node.Scalar()) : PlainScalar(node.Scalar());
      return Status::Ok();
    case YAML::NodeType::Sequence: {
      *out = json::array();
      for (const YAML::Node& item : node) {
        json v;
        STEWARD_RETURN_IF_ERROR(Convert(item, source, depth + 1, &v));
        out->push_back(std::move(v));
      }
      return Status::Ok();
    }
    case YAML::NodeType::Map: {
      *out = json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar())
          return Status::InvalidArgument(fmt::format("{}:{}:{}: a mapping key must be a scalar",
                                                     source, kv.first.Mark().line + 1,
                                                     kv.first.Mark().column + 1));
        const std::string& key = kv.first.Scalar();
        if (out->contains(key))
          return Status::InvalidArgument(fmt::format("{}:{}:{}: {}: duplicate key", source,
                                                     kv.first.Mark().line + 1,
                                                     kv.first.Mark().column + 1, key));
        json v;
        STEWARD_RETURN_IF_ERROR(Convert(kv.second, source, depth + 1, &v));
        (*out)[key] = std::move(v);
      }
      return Status::Ok();
    }
  }
  return Status::Ok();
}

}  // namespace

Result<nlohmann::json> YamlToJson(const YAML::Node& node, std::string_view source) {
  json out;
  STEWARD_RETURN_IF_ERROR(Convert(node, source, 0, &out));
  return out;
}

}  // namespace steward::kube

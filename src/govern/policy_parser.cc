#include "govern/policy_parser.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "govern/policy_io.h"
#include "model/yaml_checked.h"

namespace steward::govern::policy_yaml {

std::string FlowDump(const YAML::Node& n) {
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

Status Parser::Document(const YAML::Node& doc) {
  if (!doc.IsDefined() || doc.IsNull()) return Status::Ok();
  if (!doc.IsMap()) return Err(doc, "", "document is not a mapping");
  std::string api = Scalar(doc, "apiVersion");
  kind_ = Scalar(doc, "kind");
  name_ = "";
  const YAML::Node meta = doc["metadata"];
  if (meta && meta.IsMap()) name_ = Scalar(meta, "name");
  std::string group = api.substr(0, api.find('/'));
  bool kueue = group == "kueue.x-k8s.io";
  bool volcano = group == "scheduling.volcano.sh";
  if (kueue || volcano || (api == "v1" && kind_ == "Namespace")) {
    if (name_.empty()) return Err(meta ? meta : doc, "metadata.name", "required");
  }
  if (kueue && kind_ == "ResourceFlavor") return Flavor(doc);
  if (kueue && kind_ == "ClusterQueue") return ClusterQueueDoc(doc);
  if (kueue && kind_ == "Cohort") return CohortDoc(doc);
  if (kueue && kind_ == "LocalQueue") return LocalQueueDoc(doc);
  if (kueue && kind_ == "WorkloadPriorityClass") return PriorityClassDoc(doc);
  if (volcano && kind_ == "Queue") return VolcanoQueue(doc);
  if (volcano && kind_ == "PodGroup") return PodGroupDoc(doc);
  if (api == "v1" && kind_ == "Namespace") return NamespaceDoc(doc);
  if (group == "config.kueue.x-k8s.io" && kind_ == "Configuration")
    return ConfigurationDoc(doc, api);
  policy_->passthrough_documents.push_back(BlockDump(doc));
  Warn(doc, fmt::format("{} {} ({}) is not modelled by Steward; kept verbatim for export",
                        kind_.empty() ? "document" : kind_, name_, api));
  return Status::Ok();
}

std::string Parser::BlockDump(const YAML::Node& n) {
  YAML::Emitter e;
  e << n;
  return e.c_str();
}

std::string Parser::Where(const YAML::Node& n) const {
  return fmt::format("{}:{}", file_, n.Mark().line + 1);
}

Status Parser::Err(const YAML::Node& n, std::string_view field, std::string_view what) const {
  auto m = n.Mark();
  std::string prefix = name_.empty() ? kind_ : fmt::format("{} {}", kind_, name_);
  return MakeInputError(file_, m.line + 1, m.column + 1,
                        prefix.empty() ? std::string(field) : fmt::format("{}: {}", prefix, field),
                        what);
}

void Parser::Warn(const YAML::Node& n, std::string msg) {
  policy_->warnings.push_back(fmt::format("{}: {}", Where(n), msg));
}

std::string Parser::Scalar(const YAML::Node& map, const char* key) {
  const YAML::Node v = map[key];
  return v && v.IsScalar() ? v.Scalar() : "";
}

// Keeps every key of `map` not in `known` as an extra field at `path` and warns.
void Parser::KeepUnknown(const YAML::Node& map, const std::string& path,
                         std::initializer_list<std::string_view> known, ExtraFields* extra,
                         bool warn) {
  if (!map || !map.IsMap()) return;
  for (const auto& kv : map) {
    std::string key = kv.first.as<std::string>();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string full = path.empty() ? key : path + "." + key;
    (*extra)[full] = FlowDump(kv.second);
    if (warn)
      Warn(kv.first, fmt::format("{} {}: field {} is not interpreted by Steward; kept for export",
                                 kind_, name_, full));
  }
}

// metadata: name/namespace interpreted; labels/annotations kept (minus steward.io/* keys,
// which are interpreted); the rest kept silently (it is Kubernetes bookkeeping).
void Parser::Metadata(const YAML::Node& doc, ExtraFields* extra,
                      std::map<std::string, std::string>* steward) {
  const YAML::Node meta = doc["metadata"];
  if (!meta || !meta.IsMap()) return;
  for (const char* which : {"labels", "annotations"}) {
    const YAML::Node m = meta[which];
    if (!m || !m.IsMap()) continue;
    YAML::Node rest(YAML::NodeType::Map);
    for (const auto& kv : m) {
      std::string k = kv.first.as<std::string>();
      if (k.starts_with("steward.io/")) {
        (*steward)[k] = kv.second.IsScalar() ? kv.second.Scalar() : "";
      } else {
        rest[k] = kv.second;
      }
    }
    if (rest.size() > 0) (*extra)[std::string("metadata.") + which] = FlowDump(rest);
  }
  KeepUnknown(meta, "metadata", {"name", "namespace", "labels", "annotations"}, extra, false);
}

Result<Amount> Parser::Quantity(const YAML::Node& n, std::string_view resource,
                                std::string_view field) {
  if (!n.IsScalar()) return Err(n, field, "expected a quantity");
  auto q = ParseQuantity(n.Scalar(), resource);
  if (!q.ok()) return Err(n, field, q.status().message());
  return q;
}

Result<double> Parser::Weight(const YAML::Node& n, std::string_view field) {
  STEWARD_ASSIGN_OR_RETURN(Amount milli, Quantity(n, "cpu", field));  // milli precision.
  double w = static_cast<double>(milli) / 1000.0;
  if (w != 0 && w <= 1e-9) return Err(n, field, "non-zero weight must be > 1e-9");
  return w;
}

Result<int32_t> Parser::Int32(const YAML::Node& n, std::string_view field) {
  if (!n.IsScalar()) return Err(n, field, "expected an integer");
  int32_t v = 0;
  // Finite, integral and within int32 (model/yaml_checked.h), as Kubernetes reads an int32.
  Status s = model::ReadYamlNumber(n, &v);
  if (!s.ok()) return Err(n, field, s.message());
  return v;
}

Result<std::map<std::string, std::string>> Parser::StringMap(const YAML::Node& n,
                                                             std::string_view field) {
  std::map<std::string, std::string> out;
  if (!n) return out;
  if (!n.IsMap()) return Err(n, field, "expected a mapping");
  for (const auto& kv : n) {
    if (!kv.second.IsScalar()) return Err(kv.second, field, "expected a string value");
    out[kv.first.as<std::string>()] = kv.second.Scalar();
  }
  return out;
}

Result<std::vector<Toleration>> Parser::Tolerations(const YAML::Node& n, std::string_view field,
                                                    ExtraFields* extra, const std::string& path) {
  std::vector<Toleration> out;
  if (!n) return out;
  if (!n.IsSequence()) return Err(n, field, "expected a list");
  for (size_t i = 0; i < n.size(); ++i) {
    const YAML::Node t = n[i];
    Toleration tol;
    tol.key = Scalar(t, "key");
    tol.value = Scalar(t, "value");
    tol.effect = Scalar(t, "effect");
    std::string op = Scalar(t, "operator");
    tol.op = op.empty() ? "Equal" : op;
    if (tol.op != "Equal" && tol.op != "Exists")
      return Err(t, fmt::format("{}[{}].operator", field, i), "must be Equal or Exists");
    KeepUnknown(t, fmt::format("{}[{}]", path, i), {"key", "value", "effect", "operator"}, extra);
    out.push_back(std::move(tol));
  }
  return out;
}

Result<LabelSelector> Parser::Selector(const YAML::Node& n, std::string_view field) {
  LabelSelector s;
  if (!n.IsMap()) return Err(n, field, "expected a label selector mapping");
  STEWARD_ASSIGN_OR_RETURN(s.match_labels,
                           StringMap(n["matchLabels"], std::string(field) + ".matchLabels"));
  if (const YAML::Node ex = n["matchExpressions"]) {
    if (!ex.IsSequence())
      return Err(ex, std::string(field) + ".matchExpressions", "expected a list");
    for (size_t i = 0; i < ex.size(); ++i) {
      LabelRequirement req;
      req.key = Scalar(ex[i], "key");
      req.op = Scalar(ex[i], "operator");
      std::string f = fmt::format("{}.matchExpressions[{}]", field, i);
      if (req.op != "In" && req.op != "NotIn" && req.op != "Exists" && req.op != "DoesNotExist")
        return Err(ex[i], f + ".operator", "must be In, NotIn, Exists or DoesNotExist");
      if (const YAML::Node vals = ex[i]["values"])
        for (const auto& v : vals) req.values.push_back(v.as<std::string>());
      s.match_expressions.push_back(std::move(req));
    }
  }
  return s;
}

// A Go duration ("5m", "300s", "1h30m", "90s").
Result<SimDuration> Parser::Duration(const YAML::Node& n, std::string_view field) {
  if (!n.IsScalar()) return Err(n, field, "expected a duration such as 5m or 300s");
  const std::string& t = n.Scalar();
  double total = 0;
  size_t i = 0;
  while (i < t.size()) {
    size_t j = i;
    while (j < t.size() && (std::isdigit(static_cast<unsigned char>(t[j])) || t[j] == '.')) ++j;
    size_t k = j;
    while (k < t.size() && std::isalpha(static_cast<unsigned char>(t[k]))) ++k;
    const std::string num = t.substr(i, j - i), unit = t.substr(j, k - j);
    static const std::map<std::string, double> kUnits = {
        {"h", 3600}, {"m", 60}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}};
    auto u = kUnits.find(unit);
    char* end = nullptr;
    const double value = num.empty() ? 0 : std::strtod(num.c_str(), &end);
    if (num.empty() || end != num.c_str() + num.size() || u == kUnits.end())
      return Err(n, field, fmt::format("invalid duration \"{}\" (e.g. 5m, 300s, 1h30m)", t));
    total += value * u->second;
    i = k;
  }
  if (t.empty()) return Err(n, field, "empty duration");
  return SecondsF(total);
}

Status Parser::NamespaceDoc(const YAML::Node& doc) {
  NamespaceSpec ns;
  ns.name = name_;
  STEWARD_ASSIGN_OR_RETURN(ns.labels, StringMap(doc["metadata"]["labels"], "metadata.labels"));
  policy_->namespaces.push_back(std::move(ns));
  return Status::Ok();
}

}  // namespace steward::govern::policy_yaml

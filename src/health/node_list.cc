#include "health/node_list.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kube/json_decoder.h"
#include "kube/yaml_json.h"
#include "model/json_text.h"
#include "model/yaml_checked.h"

namespace steward::health {

std::string_view NodeInfo::Label(std::string_view key) const {
  auto it = labels.find(std::string(key));
  return it == labels.end() ? std::string_view() : std::string_view(it->second);
}

bool NodeInfo::HasLabel(std::string_view key) const { return labels.count(std::string(key)) > 0; }

std::string_view NodeInfo::Annotation(std::string_view key) const {
  auto it = annotations.find(std::string(key));
  return it == annotations.end() ? std::string_view() : std::string_view(it->second);
}

const NodeCondition* NodeInfo::Condition(std::string_view type) const {
  for (const NodeCondition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

namespace {

using nlohmann::json;

// A GPU count: a non-negative JSON integer or a string of decimal digits like "8" (suffixed
// quantities such as "1k" are not GPU counts and are rejected).
bool Quantity(const json& v, int64_t* out) {
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(v.get<uint64_t>());
    return true;
  }
  if (v.is_number_integer()) {
    *out = v.get<int64_t>();
    return *out >= 0;
  }
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out >= 0;
}

Status GpuResources(const json& resources, std::string_view where, int64_t* total) {
  *total = 0;
  if (resources.is_null()) return Status::Ok();
  if (!resources.is_object())
    return Status::InvalidArgument(fmt::format("{}: not an object", where));
  for (const auto& [key, value] : resources.items()) {
    if (key != "nvidia.com/gpu" && key.rfind("nvidia.com/mig-", 0) != 0) continue;
    int64_t n = 0;
    if (!Quantity(value, &n)) {
      return Status::InvalidArgument(fmt::format(
          "{}[\"{}\"]: {} is not a non-negative integer quantity", where, key, value.dump()));
    }
    if (__builtin_add_overflow(*total, n, total)) {
      return Status::InvalidArgument(fmt::format("{}: GPU counts overflow", where));
    }
  }
  return Status::Ok();
}

// `parent[key]` when it is a string (out untouched when absent or null), else an error.
Status OptionalString(const json& parent, const char* key, std::string_view where,
                      std::string* out) {
  auto it = parent.find(key);
  if (it == parent.end() || it->is_null()) return Status::Ok();
  if (!it->is_string()) {
    return Status::InvalidArgument(
        fmt::format("{}.{}: {} is not a string", where, key, it->dump()));
  }
  *out = it->get<std::string>();
  return Status::Ok();
}

Status StringMap(const json& meta, const char* key, std::string_view where,
                 std::map<std::string, std::string>* out) {
  auto it = meta.find(key);
  if (it == meta.end() || it->is_null()) return Status::Ok();
  if (!it->is_object()) {
    return Status::InvalidArgument(fmt::format("{}: metadata.{} is not an object", where, key));
  }
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) {
      return Status::InvalidArgument(
          fmt::format("{}: {} {} is not a string", where,
                      std::string_view(key).substr(0, 5) == "label" ? "label" : "annotation", k));
    }
    out->emplace(k, v.get<std::string>());
  }
  return Status::Ok();
}

Status Conditions(const json& status, std::string_view where, NodeInfo& n) {
  auto it = status.find("conditions");
  if (it == status.end() || it->is_null()) return Status::Ok();
  if (!it->is_array()) return Status::InvalidArgument(fmt::format("{}: not an array", where));
  for (size_t i = 0; i < it->size(); ++i) {
    const json& c = (*it)[i];
    const std::string at = fmt::format("{}[{}]", where, i);
    if (!c.is_object()) return Status::InvalidArgument(at + ": not an object");
    NodeCondition cond;
    STEWARD_RETURN_IF_ERROR(OptionalString(c, "type", at, &cond.type));
    if (cond.type.empty()) return Status::InvalidArgument(at + ".type: missing");
    STEWARD_RETURN_IF_ERROR(OptionalString(c, "status", at, &cond.status));
    STEWARD_RETURN_IF_ERROR(OptionalString(c, "reason", at, &cond.reason));
    STEWARD_RETURN_IF_ERROR(OptionalString(c, "message", at, &cond.message));
    std::string since;
    STEWARD_RETURN_IF_ERROR(OptionalString(c, "lastTransitionTime", at, &since));
    if (!since.empty()) {
      std::optional<int64_t> micros = kube::ParseTime(since);
      if (!micros) {
        return Status::InvalidArgument(
            fmt::format("{}.lastTransitionTime: \"{}\" is not an RFC 3339 time", at, since));
      }
      cond.last_transition = *micros / 1'000'000;
    }
    if (cond.type == "Ready" && !cond.status.empty() && cond.status != "True") n.ready = false;
    n.conditions.push_back(std::move(cond));
  }
  return Status::Ok();
}

Status Taints(const json& spec, std::string_view where, NodeInfo& n) {
  auto it = spec.find("taints");
  if (it == spec.end() || it->is_null()) return Status::Ok();
  if (!it->is_array()) return Status::InvalidArgument(fmt::format("{}: not an array", where));
  for (size_t i = 0; i < it->size(); ++i) {
    const json& t = (*it)[i];
    const std::string at = fmt::format("{}[{}]", where, i);
    if (!t.is_object()) return Status::InvalidArgument(at + ": not an object");
    NodeTaint taint;
    STEWARD_RETURN_IF_ERROR(OptionalString(t, "key", at, &taint.key));
    if (taint.key.empty()) return Status::InvalidArgument(at + ".key: missing");
    STEWARD_RETURN_IF_ERROR(OptionalString(t, "value", at, &taint.value));
    STEWARD_RETURN_IF_ERROR(OptionalString(t, "effect", at, &taint.effect));
    n.taints.push_back(std::move(taint));
  }
  return Status::Ok();
}

// `object[key]` as an object: absent or null is an empty object, anything else an error.
Result<const json*> Section(const json& object, const char* key, std::string_view where) {
  static const json kEmpty = json::object();
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return &kEmpty;
  if (!it->is_object()) return Status::InvalidArgument(fmt::format("{}: not an object", where));
  return &*it;
}

// `doc_where` names the source (and document); `item` is "items[3]", or "" for a lone Node.
Result<NodeInfo> ParseNode(const json& item, std::string_view doc_where, std::string_view label) {
  std::string where =
      label.empty() ? std::string(doc_where) : fmt::format("{}: {}", doc_where, label);
  if (!item.is_object()) return Status::InvalidArgument(where + ": not an object");
  if (auto kind = item.find("kind"); kind != item.end() && *kind != "Node") {
    return Status::InvalidArgument(
        fmt::format("{}: kind {} is not a Node", where,
                    kind->is_string() ? kind->get<std::string>() : kind->dump()));
  }
  NodeInfo n;
  STEWARD_ASSIGN_OR_RETURN(const json* meta, Section(item, "metadata", where + ".metadata"));
  STEWARD_RETURN_IF_ERROR(OptionalString(*meta, "name", where + ".metadata", &n.name));
  if (n.name.empty()) {
    return Status::InvalidArgument(where + ".metadata.name: missing or not a string");
  }
  where = fmt::format("{}: node {}", doc_where, n.name);
  STEWARD_RETURN_IF_ERROR(StringMap(*meta, "labels", where, &n.labels));
  STEWARD_RETURN_IF_ERROR(StringMap(*meta, "annotations", where, &n.annotations));
  STEWARD_ASSIGN_OR_RETURN(const json* spec, Section(item, "spec", where + ".spec"));
  if (auto u = spec->find("unschedulable"); u != spec->end() && !u->is_null()) {
    if (!u->is_boolean()) {
      return Status::InvalidArgument(where + ": spec.unschedulable is not a boolean");
    }
    n.unschedulable = u->get<bool>();
  }
  STEWARD_RETURN_IF_ERROR(Taints(*spec, where + ": spec.taints", n));
  STEWARD_ASSIGN_OR_RETURN(const json* status, Section(item, "status", where + ".status"));
  STEWARD_RETURN_IF_ERROR(GpuResources(status->value("capacity", json()),
                                       where + ": status.capacity", &n.gpu_capacity));
  STEWARD_RETURN_IF_ERROR(GpuResources(status->value("allocatable", json()),
                                       where + ": status.allocatable", &n.gpu_allocatable));
  if (n.gpu_allocatable > n.gpu_capacity) {
    // The kubelet reports allocatable as capacity minus reservations: never more.
    return Status::InvalidArgument(
        fmt::format("{}: status.allocatable has {} GPUs, more than status.capacity's {}", where,
                    n.gpu_allocatable, n.gpu_capacity));
  }
  STEWARD_RETURN_IF_ERROR(Conditions(*status, where + ": status.conditions", n));
  return n;
}

// One document: a Node, or a NodeList / List (or kind-less object) with an "items" array.
// `where` names the source (and the document when there are several).
Status AddDocument(const json& doc, const std::string& where, std::vector<NodeInfo>& nodes) {
  if (!doc.is_object()) return Status::InvalidArgument(where + ": not a JSON object");
  const json kind = doc.value("kind", json());
  if (kind == "Node") {
    STEWARD_ASSIGN_OR_RETURN(NodeInfo n, ParseNode(doc, where, ""));
    nodes.push_back(std::move(n));
    return Status::Ok();
  }
  if (!kind.is_null() && kind != "List" && kind != "NodeList") {
    return Status::InvalidArgument(
        fmt::format("{}: kind {} is not a NodeList, List or Node", where,
                    kind.is_string() ? kind.get<std::string>() : kind.dump()));
  }
  auto items = doc.find("items");
  if (items == doc.end() || !(items->is_array() || items->is_null())) {
    return Status::InvalidArgument(
        fmt::format("{}: expected a NodeList (an object with an \"items\" array)", where));
  }
  if (items->is_null()) return Status::Ok();  // `items: null` is how Go prints an empty list.
  for (size_t i = 0; i < items->size(); ++i) {
    STEWARD_ASSIGN_OR_RETURN(NodeInfo n,
                             ParseNode((*items)[i], where, fmt::format("items[{}]", i)));
    nodes.push_back(std::move(n));
  }
  return Status::Ok();
}

bool LooksLikeJson(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{' || c == '[';
  }
  return false;
}

// The YAML documents of `text` as JSON (null documents, e.g. a trailing `---`, skipped).
Result<std::vector<json>> YamlDocuments(std::string_view text, std::string_view source) {
  STEWARD_ASSIGN_OR_RETURN(std::vector<YAML::Node> docs, model::LoadYamlDocuments(text, source));
  std::vector<json> out;
  for (const YAML::Node& d : docs) {
    if (d.IsNull()) continue;
    STEWARD_ASSIGN_OR_RETURN(json j, kube::YamlToJson(d, source));
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

Result<std::vector<NodeInfo>> ParseNodeList(std::string_view text, std::string_view source,
                                            const NodeListOptions& options) {
  std::vector<json> docs;
  if (LooksLikeJson(text)) {
    STEWARD_ASSIGN_OR_RETURN(json doc, model::ParseJsonText(text, source));
    docs.push_back(std::move(doc));
  } else {
    STEWARD_ASSIGN_OR_RETURN(docs, YamlDocuments(text, source));
  }
  std::vector<NodeInfo> nodes;
  try {
    for (size_t d = 0; d < docs.size(); ++d) {
      const std::string where =
          docs.size() == 1 ? std::string(source) : fmt::format("{}: document {}", source, d + 1);
      STEWARD_RETURN_IF_ERROR(AddDocument(docs[d], where, nodes));
    }
  } catch (const json::exception& e) {  // Defensive: every access above checks its type.
    return Status::InvalidArgument(fmt::format("{}: {}", source, e.what()));
  }
  // A list with no items is what kubectl prints for a cluster or selection without nodes; a
  // file holding no object at all is the wrong file.
  if (docs.empty() && !options.allow_empty) {
    return Status::InvalidArgument(fmt::format(
        "{}: no objects (expected `kubectl get nodes -o json` or `-o yaml` output)", source));
  }
  return nodes;
}

Result<std::vector<NodeInfo>> LoadNodeList(const std::filesystem::path& path,
                                           const NodeListOptions& options) {
  std::stringstream ss;
  std::string source = path.string();
  if (source == "-") {
    source = "<stdin>";
    ss << std::cin.rdbuf();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::IoError(fmt::format("{}: cannot open", source));
    ss << in.rdbuf();
    if (in.bad()) return Status::IoError(fmt::format("{}: read error", source));
  }
  return ParseNodeList(ss.str(), source, options);
}

}  // namespace steward::health

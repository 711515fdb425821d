#include "health/node_list.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "model/json_text.h"

namespace steward::health {

std::string_view NodeInfo::Label(std::string_view key) const {
  auto it = labels.find(std::string(key));
  return it == labels.end() ? std::string_view() : std::string_view(it->second);
}

bool NodeInfo::HasLabel(std::string_view key) const { return labels.count(std::string(key)) > 0; }

namespace {

using nlohmann::json;

// A resource quantity: a JSON number or a string like "8" (GPU counts are plain integers;
// suffixed quantities such as "1k" are not GPU counts and are rejected).
bool Quantity(const json& v, int64_t* out) {
  if (v.is_number_integer()) {
    *out = v.get<int64_t>();
    return true;
  }
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
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
      return Status::InvalidArgument(
          fmt::format("{}[\"{}\"]: {} is not an integer quantity", where, key, value.dump()));
    }
    *total += n;
  }
  return Status::Ok();
}

Result<NodeInfo> ParseNode(const json& item, size_t index, std::string_view source) {
  std::string where = fmt::format("{}: items[{}]", source, index);
  if (!item.is_object()) return Status::InvalidArgument(where + ": not an object");
  NodeInfo n;
  const json& meta = item.value("metadata", json::object());
  if (!meta.is_object() || !meta.contains("name") || !meta["name"].is_string()) {
    return Status::InvalidArgument(where + ".metadata.name: missing or not a string");
  }
  n.name = meta["name"].get<std::string>();
  where = fmt::format("{}: node {}", source, n.name);
  if (meta.contains("labels") && !meta["labels"].is_null()) {
    if (!meta["labels"].is_object())
      return Status::InvalidArgument(where + ": metadata.labels is not an object");
    for (const auto& [k, v] : meta["labels"].items()) {
      if (!v.is_string()) {
        return Status::InvalidArgument(fmt::format("{}: label {} is not a string", where, k));
      }
      n.labels.emplace(k, v.get<std::string>());
    }
  }
  const json spec = item.value("spec", json::object());
  if (spec.is_object() && spec.contains("unschedulable")) {
    if (!spec["unschedulable"].is_boolean()) {
      return Status::InvalidArgument(where + ": spec.unschedulable is not a boolean");
    }
    n.unschedulable = spec["unschedulable"].get<bool>();
  }
  const json status = item.value("status", json::object());
  if (status.is_object()) {
    STEWARD_RETURN_IF_ERROR(GpuResources(status.value("capacity", json()),
                                         where + ": status.capacity", &n.gpu_capacity));
    STEWARD_RETURN_IF_ERROR(GpuResources(status.value("allocatable", json()),
                                         where + ": status.allocatable", &n.gpu_allocatable));
    const json conditions = status.value("conditions", json::array());
    if (conditions.is_array()) {
      for (const json& c : conditions) {
        if (c.is_object() && c.value("type", "") == "Ready" &&
            c.value("status", "True") != "True") {
          n.ready = false;
        }
      }
    }
  }
  return n;
}

}  // namespace

Result<std::vector<NodeInfo>> ParseNodeList(std::string_view text, std::string_view source) {
  STEWARD_ASSIGN_OR_RETURN(const json doc, model::ParseJsonText(text, source));
  std::vector<NodeInfo> nodes;
  try {
    if (!doc.is_object())
      return Status::InvalidArgument(fmt::format("{}: not a JSON object", source));
    if (doc.value("kind", "") == "Node") {
      STEWARD_ASSIGN_OR_RETURN(NodeInfo n, ParseNode(doc, 0, source));
      nodes.push_back(std::move(n));
      return nodes;
    }
    if (!doc.contains("items") || !doc["items"].is_array()) {
      return Status::InvalidArgument(
          fmt::format("{}: expected a NodeList (an object with an \"items\" array)", source));
    }
    const json& items = doc["items"];
    for (size_t i = 0; i < items.size(); ++i) {
      STEWARD_ASSIGN_OR_RETURN(NodeInfo n, ParseNode(items[i], i, source));
      nodes.push_back(std::move(n));
    }
  } catch (const json::exception& e) {
    return Status::InvalidArgument(fmt::format("{}: {}", source, e.what()));
  }
  return nodes;
}

Result<std::vector<NodeInfo>> LoadNodeList(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(fmt::format("{}: cannot open", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseNodeList(ss.str(), path.string());
}

}  // namespace steward::health

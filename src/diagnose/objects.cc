#include "diagnose/objects.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "model/json_text.h"

namespace steward::diagnose {
namespace {

using nlohmann::json;

Status Bad(const std::string& where, std::string_view what) {
  return Status::InvalidArgument(fmt::format("{}: {}", where, what));
}

// A GPU count: a JSON integer or a string of digits (nvidia.com/gpu is a whole-device count;
// "1k" or "500m" are not GPU counts).
// More GPUs than any pod can hold: a count above it is a typo or an attack, and would wrap
// around when stored as an int (4294967304 = 2^32 + 8).
constexpr int64_t kMaxPodGpus = 1 << 20;

bool GpuQuantity(const json& v, int64_t* out) {
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(kMaxPodGpus)) return false;
    *out = static_cast<int64_t>(v.get<uint64_t>());
    return true;
  }
  if (v.is_number_integer()) {
    *out = v.get<int64_t>();
    return *out >= 0 && *out <= kMaxPodGpus;
  }
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out >= 0 && *out <= kMaxPodGpus;
}

Status StringMap(const json& v, const std::string& where, std::map<std::string, std::string>* out) {
  if (v.is_null()) return Status::Ok();
  if (!v.is_object()) return Bad(where, "not an object");
  for (const auto& [k, x] : v.items()) {
    if (!x.is_string()) return Bad(fmt::format("{}[\"{}\"]", where, k), "not a string");
    (*out)[k] = x.get<std::string>();
  }
  return Status::Ok();
}

Status OptionalString(const json& obj, const char* key, const std::string& where,
                      std::string* out) {
  if (!obj.contains(key) || obj[key].is_null()) return Status::Ok();
  if (!obj[key].is_string()) return Bad(where + "." + key, "not a string");
  *out = obj[key].get<std::string>();
  return Status::Ok();
}

Result<PodObject> ParsePod(const json& item, const std::string& where) {
  if (!item.is_object()) return Bad(where, "not an object");
  PodObject p;
  const json meta = item.value("metadata", json::object());
  if (!meta.is_object()) return Bad(where + ".metadata", "not an object");
  if (!meta.contains("name") || !meta["name"].is_string())
    return Bad(where + ".metadata.name", "missing or not a string");
  p.name = meta["name"].get<std::string>();
  p.namespace_name = "default";
  STEWARD_RETURN_IF_ERROR(
      OptionalString(meta, "namespace", where + ".metadata", &p.namespace_name));
  STEWARD_RETURN_IF_ERROR(
      StringMap(meta.value("labels", json()), where + ".metadata.labels", &p.labels));
  const json owners = meta.value("ownerReferences", json::array());
  if (!owners.is_array()) return Bad(where + ".metadata.ownerReferences", "not an array");
  for (size_t i = 0; i < owners.size(); ++i) {
    const std::string w = fmt::format("{}.metadata.ownerReferences[{}]", where, i);
    const json& o = owners[i];
    if (!o.is_object()) return Bad(w, "not an object");
    std::string kind, name;
    STEWARD_RETURN_IF_ERROR(OptionalString(o, "kind", w, &kind));
    STEWARD_RETURN_IF_ERROR(OptionalString(o, "name", w, &name));
    const bool controller = o.value("controller", false) == true;
    if (p.owner_kind.empty() || controller) {
      p.owner_kind = kind;
      p.owner_name = name;
    }
    if (controller) break;
  }

  const json spec = item.value("spec", json::object());
  if (!spec.is_object()) return Bad(where + ".spec", "not an object");
  STEWARD_RETURN_IF_ERROR(OptionalString(spec, "nodeName", where + ".spec", &p.node));
  std::map<std::string, std::string> selector;
  STEWARD_RETURN_IF_ERROR(
      StringMap(spec.value("nodeSelector", json()), where + ".spec.nodeSelector", &selector));
  if (auto it = selector.find(kGpuProductLabel); it != selector.end()) p.gpu_product = it->second;
  const json gates = spec.value("schedulingGates", json::array());
  if (!gates.is_array()) return Bad(where + ".spec.schedulingGates", "not an array");
  const json containers = spec.value("containers", json::array());
  if (!containers.is_array()) return Bad(where + ".spec.containers", "not an array");
  for (size_t c = 0; c < containers.size(); ++c) {
    const std::string w = fmt::format("{}.spec.containers[{}]", where, c);
    if (!containers[c].is_object()) return Bad(w, "not an object");
    const json res = containers[c].value("resources", json::object());
    if (!res.is_object()) return Bad(w + ".resources", "not an object");
    int64_t most = 0;
    for (const char* kind : {"requests", "limits"}) {
      const json m = res.value(kind, json());
      if (m.is_null()) continue;
      if (!m.is_object()) return Bad(fmt::format("{}.resources.{}", w, kind), "not an object");
      if (!m.contains("nvidia.com/gpu")) continue;
      int64_t n = 0;
      if (!GpuQuantity(m["nvidia.com/gpu"], &n)) {
        return Bad(fmt::format("{}.resources.{}[\"nvidia.com/gpu\"]", w, kind),
                   fmt::format("{} is not a whole GPU count", m["nvidia.com/gpu"].dump()));
      }
      most = std::max(most, n);
    }
    if (most > 0 && p.container.empty()) {
      std::string name;
      STEWARD_RETURN_IF_ERROR(OptionalString(containers[c], "name", w, &name));
      p.container = name;
    }
    if (p.gpus + most > kMaxPodGpus) {
      return Bad(w, fmt::format("the pod's containers ask for more than {} GPUs", kMaxPodGpus));
    }
    p.gpus += static_cast<int>(most);
  }

  const json status = item.value("status", json::object());
  if (!status.is_object()) return Bad(where + ".status", "not an object");
  std::string phase = "Pending";
  STEWARD_RETURN_IF_ERROR(OptionalString(status, "phase", where + ".status", &phase));
  p.phase = phase == "Pending"   ? PodPhase::kPending
            : phase == "Running" ? PodPhase::kRunning
                                 : PodPhase::kOther;
  std::string reason;
  const json conds = status.value("conditions", json::array());
  if (!conds.is_array()) return Bad(where + ".status.conditions", "not an array");
  for (size_t i = 0; i < conds.size(); ++i) {
    const std::string w = fmt::format("{}.status.conditions[{}]", where, i);
    if (!conds[i].is_object()) return Bad(w, "not an object");
    std::string type, st;
    STEWARD_RETURN_IF_ERROR(OptionalString(conds[i], "type", w, &type));
    STEWARD_RETURN_IF_ERROR(OptionalString(conds[i], "status", w, &st));
    if (type != "PodScheduled" || st != "False") continue;
    STEWARD_RETURN_IF_ERROR(OptionalString(conds[i], "reason", w, &reason));
    STEWARD_RETURN_IF_ERROR(OptionalString(conds[i], "message", w, &p.wait_message));
  }
  if (p.phase == PodPhase::kPending && p.node.empty()) {
    if (!gates.empty() || reason == "SchedulingGated") {
      p.wait = PodWait::kQueued;
    } else if (reason == "Unschedulable") {
      p.wait = PodWait::kNoFit;
    }
  }
  if (p.wait == PodWait::kNone) p.wait_message.clear();
  return p;
}

}  // namespace

std::string_view PodPhaseName(PodPhase phase) {
  switch (phase) {
    case PodPhase::kPending:
      return "Pending";
    case PodPhase::kRunning:
      return "Running";
    case PodPhase::kOther:
      return "Other";
  }
  return "Other";
}

Result<std::vector<PodObject>> ParsePodList(std::string_view text, std::string_view source) {
  STEWARD_ASSIGN_OR_RETURN(const json doc, model::ParseJsonText(text, source));
  std::vector<PodObject> pods;
  try {
    if (!doc.is_object()) return Bad(std::string(source), "not a JSON object");
    if (doc.value("kind", "") == "Pod") {
      STEWARD_ASSIGN_OR_RETURN(PodObject p, ParsePod(doc, std::string(source)));
      if (p.gpus > 0) pods.push_back(std::move(p));
      return pods;
    }
    if (!doc.contains("items") || !doc["items"].is_array())
      return Bad(std::string(source), "expected a PodList (an object with an \"items\" array)");
    const json& items = doc["items"];
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string where = fmt::format("{}: items[{}]", source, i);
      if (items[i].is_object() && items[i].contains("kind") && items[i]["kind"] != "Pod") {
        return Bad(where, fmt::format("kind {} is not a Pod", items[i]["kind"].dump()));
      }
      STEWARD_ASSIGN_OR_RETURN(PodObject p, ParsePod(items[i], where));
      if (p.gpus > 0) pods.push_back(std::move(p));
    }
  } catch (const json::exception& e) {
    return Bad(std::string(source), e.what());
  }
  return pods;
}

Result<std::vector<PodObject>> LoadPodList(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(fmt::format("{}: cannot open", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParsePodList(ss.str(), path.string());
}

json PodListJson(const std::vector<PodObject>& pods) {
  json items = json::array();
  for (const PodObject& p : pods) {
    json meta = {{"name", p.name}, {"namespace", p.namespace_name}};
    if (!p.labels.empty()) meta["labels"] = p.labels;
    if (!p.owner_kind.empty()) {
      meta["ownerReferences"] =
          json::array({{{"apiVersion", p.owner_kind == "Job" ? "batch/v1" : "apps/v1"},
                        {"kind", p.owner_kind},
                        {"name", p.owner_name},
                        {"controller", true}}});
    }
    const std::string gpus = std::to_string(p.gpus);
    json spec = {{"containers", json::array({{{"name", p.container.empty() ? "main" : p.container},
                                              {"resources",
                                               {{"requests", {{"nvidia.com/gpu", gpus}}},
                                                {"limits", {{"nvidia.com/gpu", gpus}}}}}}})}};
    if (!p.node.empty()) spec["nodeName"] = p.node;
    if (!p.gpu_product.empty()) spec["nodeSelector"] = {{kGpuProductLabel, p.gpu_product}};
    json status = {{"phase", p.phase == PodPhase::kOther ? "Succeeded" : PodPhaseName(p.phase)}};
    if (p.wait == PodWait::kQueued) {
      spec["schedulingGates"] = json::array({{{"name", kKueueAdmissionGate}}});
      status["conditions"] = json::array({{{"type", "PodScheduled"},
                                           {"status", "False"},
                                           {"reason", "SchedulingGated"},
                                           {"message", p.wait_message}}});
    } else if (p.wait == PodWait::kNoFit) {
      status["conditions"] = json::array({{{"type", "PodScheduled"},
                                           {"status", "False"},
                                           {"reason", "Unschedulable"},
                                           {"message", p.wait_message}}});
    } else if (!p.node.empty()) {
      status["conditions"] = json::array({{{"type", "PodScheduled"}, {"status", "True"}}});
    }
    items.push_back({{"apiVersion", "v1"},
                     {"kind", "Pod"},
                     {"metadata", std::move(meta)},
                     {"spec", std::move(spec)},
                     {"status", std::move(status)}});
  }
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}};
}

json NodeListJson(const std::vector<health::NodeInfo>& nodes) {
  json items = json::array();
  for (const health::NodeInfo& n : nodes) {
    json meta = {{"name", n.name}};
    if (!n.labels.empty()) meta["labels"] = n.labels;
    json item = {{"apiVersion", "v1"},
                 {"kind", "Node"},
                 {"metadata", std::move(meta)},
                 {"status",
                  {{"capacity", {{"nvidia.com/gpu", std::to_string(n.gpu_capacity)}}},
                   {"allocatable", {{"nvidia.com/gpu", std::to_string(n.gpu_allocatable)}}},
                   {"conditions",
                    json::array({{{"type", "Ready"}, {"status", n.ready ? "True" : "False"}}})}}}};
    if (n.unschedulable) item["spec"] = {{"unschedulable", true}};
    items.push_back(std::move(item));
  }
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}};
}

std::string TeamOf(const PodObject& pod, const Attribution& a) {
  if (auto it = pod.labels.find(a.team_label); it != pod.labels.end() && !it->second.empty())
    return it->second;
  return pod.namespace_name;
}

std::string WorkloadOf(const PodObject& pod, const Attribution& a) {
  std::string name;
  if (auto it = pod.labels.find(a.workload_label); it != pod.labels.end() && !it->second.empty()) {
    name = it->second;
  } else if (!pod.owner_name.empty()) {
    name = pod.owner_name;
    // A Deployment's pods belong to ReplicaSets named "<deployment>-<pod-template-hash>".
    if (pod.owner_kind == "ReplicaSet") {
      const size_t dash = name.rfind('-');
      if (dash != std::string::npos && dash > 0) name.resize(dash);
    }
  } else {
    name = pod.name;
  }
  return pod.namespace_name + "/" + name;
}

std::string OwnerKindOf(const PodObject& pod) {
  if (pod.owner_kind.empty()) return "Pod";
  if (pod.owner_kind == "ReplicaSet") return "Deployment";
  return pod.owner_kind;
}

std::string ClassOf(const PodObject& pod, const Attribution& a) {
  if (auto it = pod.labels.find(a.class_label); it != pod.labels.end() && !it->second.empty())
    return TeamOf(pod, a) + "/" + it->second;
  return WorkloadOf(pod, a);
}

}  // namespace steward::diagnose

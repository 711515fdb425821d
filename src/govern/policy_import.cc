// YAML -> Policy: the entry points of govern/policy_io.h over policy_yaml::Parser
// (govern/policy_parser.h), and the checks across objects. yaml-cpp throws; every call that can
// throw is wrapped here and turned into a Status with file, line and field.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <sstream>

#include "govern/policy_io.h"
#include "govern/policy_parser.h"
#include "model/yaml_checked.h"

namespace steward::govern {
namespace {

using policy_yaml::Parser;

template <typename T>
Status CheckUnique(const std::vector<T>& v, std::string_view kind, std::string (*key)(const T&)) {
  std::map<std::string, const T*> seen;
  for (const auto& x : v) {
    auto [it, fresh] = seen.emplace(key(x), &x);
    if (!fresh)
      return MakeInputError(x.source.file, x.source.line, 0, fmt::format("{} {}", kind, key(x)),
                            fmt::format("duplicate name (first defined at {}:{})",
                                        it->second->source.file, it->second->source.line));
  }
  return Status::Ok();
}

// `kubectl get clusterqueues,localqueues -o yaml` prints a `kind: List` (an API list is
// `ClusterQueueList`): a mapping whose kind ends in List with an `items` sequence.
bool IsListWrapper(const YAML::Node& doc) {
  if (!doc.IsMap() || !doc["kind"] || !doc["kind"].IsScalar()) return false;
  const std::string& kind = doc["kind"].Scalar();
  return kind.size() >= 4 && kind.compare(kind.size() - 4, 4, "List") == 0 && doc["items"];
}

}  // namespace

Status ImportYaml(std::string_view text, std::string_view file, Policy* policy) {
  STEWARD_ASSIGN_OR_RETURN(std::vector<YAML::Node> docs, model::LoadYamlDocuments(text, file));
  Parser parser(file, policy);
  size_t objects = 0;
  for (const auto& doc : docs) {
    if (!doc.IsDefined() || doc.IsNull()) continue;
    STEWARD_RETURN_IF_ERROR(model::CheckYamlDuplicateKeys(doc, file));
    try {
      if (IsListWrapper(doc)) {
        const YAML::Node items = doc["items"];
        if (items.IsNull()) continue;
        if (!items.IsSequence()) {
          return MakeInputError(file, items.Mark().line + 1, items.Mark().column + 1, "items",
                                "must be a list of objects");
        }
        for (const YAML::Node& item : items) {
          STEWARD_RETURN_IF_ERROR(parser.Document(item));
          ++objects;
        }
        continue;
      }
      STEWARD_RETURN_IF_ERROR(parser.Document(doc));
      ++objects;
    } catch (const YAML::Exception& e) {
      return MakeInputError(file, e.mark.line + 1, e.mark.column + 1, "yaml", e.msg);
    }
  }
  if (objects == 0) {
    return MakeInputError(file, 0, 0, "",
                          "no objects (expected Kueue or Volcano YAML: ClusterQueue, Queue, ...)");
  }
  return Status::Ok();
}

Status ImportDocument(const YAML::Node& doc, std::string_view file, Policy* policy) {
  Parser parser(file, policy);
  try {
    return parser.Document(doc);
  } catch (const YAML::Exception& e) {
    return MakeInputError(file, e.mark.line + 1, e.mark.column + 1, "yaml", e.msg);
  }
}

Status ValidatePolicy(Policy* p) {
  STEWARD_RETURN_IF_ERROR(CheckUnique<ResourceFlavor>(
      p->flavors, "ResourceFlavor", [](const ResourceFlavor& x) { return x.name; }));
  STEWARD_RETURN_IF_ERROR(CheckUnique<ClusterQueue>(p->cluster_queues, "ClusterQueue",
                                                    [](const ClusterQueue& x) { return x.name; }));
  STEWARD_RETURN_IF_ERROR(
      CheckUnique<Cohort>(p->cohorts, "Cohort", [](const Cohort& x) { return x.name; }));
  STEWARD_RETURN_IF_ERROR(
      CheckUnique<LocalQueue>(p->local_queues, "LocalQueue",
                              [](const LocalQueue& x) { return x.namespace_name + "/" + x.name; }));
  STEWARD_RETURN_IF_ERROR(
      CheckUnique<WorkloadPriorityClass>(p->priority_classes, "WorkloadPriorityClass",
                                         [](const WorkloadPriorityClass& x) { return x.name; }));
  for (const auto& cq : p->cluster_queues)
    for (const auto& g : cq.resource_groups)
      for (const auto& fq : g.flavors)
        if (!p->FindFlavor(fq.flavor))
          p->warnings.push_back(fmt::format(
              "{}:{}: ClusterQueue {}: flavor {} has no ResourceFlavor; Kueue keeps the queue "
              "inactive (FlavorNotFound)",
              cq.source.file, cq.source.line, cq.name, fq.flavor));
  for (const auto& lq : p->local_queues)
    if (!p->FindClusterQueue(lq.cluster_queue))
      p->warnings.push_back(fmt::format(
          "{}:{}: LocalQueue {}/{}: ClusterQueue {} does not exist; its workloads stay pending",
          lq.source.file, lq.source.line, lq.namespace_name, lq.name, lq.cluster_queue));
  for (const auto& co : p->cohorts) {
    std::set<std::string> seen = {co.name};
    for (const Cohort* c = p->FindCohort(co.parent); c; c = p->FindCohort(c->parent)) {
      if (!seen.insert(c->name).second || c->name == co.name) {
        p->warnings.push_back(
            fmt::format("{}:{}: Cohort {}: parentName cycle; every ClusterQueue in it is inactive",
                        co.source.file, co.source.line, co.name));
        break;
      }
    }
  }
  return Status::Ok();
}

Result<Policy> ImportPolicyFiles(const std::vector<std::string>& files) {
  Policy policy;
  for (const auto& f : files) {
    std::ifstream in(f);
    if (!in) return Status::IoError(fmt::format("{}: cannot open", f));
    std::stringstream ss;
    ss << in.rdbuf();
    STEWARD_RETURN_IF_ERROR(ImportYaml(ss.str(), f, &policy));
  }
  STEWARD_RETURN_IF_ERROR(ValidatePolicy(&policy));
  return policy;
}

}  // namespace steward::govern

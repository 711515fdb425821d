// Reading one Kueue, Volcano or Kubernetes object of a policy file into a Policy (internal to
// govern/policy_import*.cc; the public entry points are in govern/policy_io.h):
//   policy_parser.cc          dispatch by apiVersion/kind, field readers, Namespaces
//   policy_import_kueue.cc    ResourceFlavor, ClusterQueue, Cohort, LocalQueue,
//                             WorkloadPriorityClass, Configuration
//   policy_import_volcano.cc  Volcano Queue (as a ClusterQueue) and PodGroup
//
//   policy_yaml::Parser parser("queues.yaml", &policy);
//   STEWARD_RETURN_IF_ERROR(parser.Document(doc));   // one YAML document
//
// yaml-cpp may throw from these methods on shapes they do not expect: callers (ImportYaml,
// ImportDocument) catch YAML::Exception and turn it into an error with file and line. Fields
// Steward does not interpret are kept in ExtraFields and listed in Policy::warnings. One parser
// per file; not thread-safe.
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "govern/policy.h"
#include "model/status.h"

namespace steward::govern::policy_yaml {

// `n` in YAML flow style (one line), how unknown fields are kept for export.
std::string FlowDump(const YAML::Node& n);

class Parser {
 public:
  Parser(std::string_view file, Policy* policy) : file_(file), policy_(policy) {}

  // One YAML document: a modelled object into the policy, anything else kept for export.
  Status Document(const YAML::Node& doc);

 private:
  static std::string BlockDump(const YAML::Node& n);
  std::string Where(const YAML::Node& n) const;
  Status Err(const YAML::Node& n, std::string_view field, std::string_view what) const;
  void Warn(const YAML::Node& n, std::string msg);
  static std::string Scalar(const YAML::Node& map, const char* key);
  // Keeps every key of `map` not in `known` as an extra field at `path` and warns.
  void KeepUnknown(const YAML::Node& map, const std::string& path,
                   std::initializer_list<std::string_view> known, ExtraFields* extra,
                   bool warn = true);
  // metadata: name/namespace interpreted; labels/annotations kept (minus steward.io/* keys,
  // which are interpreted); the rest kept silently (it is Kubernetes bookkeeping).
  void Metadata(const YAML::Node& doc, ExtraFields* extra,
                std::map<std::string, std::string>* steward);
  Result<Amount> Quantity(const YAML::Node& n, std::string_view resource, std::string_view field);
  Result<double> Weight(const YAML::Node& n, std::string_view field);
  Result<int32_t> Int32(const YAML::Node& n, std::string_view field);
  template <typename E>
  Result<E> Enum(const YAML::Node& n, std::string_view field,
                 std::initializer_list<std::pair<std::string_view, E>> values) {
    std::string s = n.IsScalar() ? n.Scalar() : "";
    for (const auto& [name, v] : values)
      if (s == name) return v;
    std::vector<std::string_view> names;
    for (const auto& [name, v] : values) names.push_back(name);
    return Err(n, field, fmt::format("\"{}\" is not one of {}", s, fmt::join(names, ", ")));
  }
  Result<std::map<std::string, std::string>> StringMap(const YAML::Node& n, std::string_view field);
  Result<std::vector<Toleration>> Tolerations(const YAML::Node& n, std::string_view field,
                                              ExtraFields* extra, const std::string& path);
  Status Flavor(const YAML::Node& doc);
  Status ResourceGroups(const YAML::Node& n, std::vector<ResourceGroup>* out, bool allow_bl,
                        ExtraFields* extra);
  Result<LabelSelector> Selector(const YAML::Node& n, std::string_view field);
  Status ClusterQueueDoc(const YAML::Node& doc);
  Result<StopPolicy> StopPolicyEnum(const YAML::Node& n, std::string_view field);
  Status CohortDoc(const YAML::Node& doc);
  Status LocalQueueDoc(const YAML::Node& doc);
  Result<model::Tier> TierValue(const YAML::Node& n, const std::string& text);
  Status PriorityClassDoc(const YAML::Node& doc);
  Result<std::map<std::string, Amount>> ResourceList(const YAML::Node& n, const std::string& field);
  // Volcano Queue -> ClusterQueue (queue-semantics.md §7): nominal = deserved,
  // nominal + borrowingLimit = capability, lendingLimit = deserved - guarantee, reclaim Any
  // gated by `reclaimable`, weight = fair-sharing weight, unset resources unlimited.
  Status VolcanoQueue(const YAML::Node& doc);
  // A Go duration ("5m", "300s", "1h30m", "90s").
  Result<SimDuration> Duration(const YAML::Node& n, std::string_view field);
  // Kueue's Configuration: fairSharing and waitForPodsReady drive the twin; the rest is kept.
  Status ConfigurationDoc(const YAML::Node& doc, const std::string& api);
  Status PodGroupDoc(const YAML::Node& doc);
  Status NamespaceDoc(const YAML::Node& doc);

  std::string file_;
  Policy* policy_;
  std::string kind_;
  std::string name_;
};

}  // namespace steward::govern::policy_yaml

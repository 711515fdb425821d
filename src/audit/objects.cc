#include "audit/objects.h"

#include <algorithm>
#include <set>

namespace steward::audit {

std::string ObjectRef::Id() const {
  return namespace_name.empty() ? kind + "/" + name : kind + "/" + namespace_name + "/" + name;
}

std::string Subject::Key() const {
  return kind == "ServiceAccount" ? kind + ":" + namespace_name + ":" + name : kind + ":" + name;
}

govern::Amount Container::Get(const std::string& resource) const {
  govern::Amount v = 0;
  if (auto it = requests.find(resource); it != requests.end()) v = it->second;
  if (auto it = limits.find(resource); it != limits.end()) v = std::max(v, it->second);
  return v;
}

bool Container::Has(const std::string& resource) const {
  return requests.count(resource) > 0 || limits.count(resource) > 0;
}

govern::Amount Pod::Gpus() const {
  govern::Amount n = 0;
  for (const auto& c : containers) n += c.Get("nvidia.com/gpu");
  return n;
}

const Role* ObjectSet::FindRole(const std::string& kind, const std::string& namespace_name,
                                const std::string& name) const {
  const bool cluster = kind == "ClusterRole";
  for (const Role& r : roles)
    if (r.cluster == cluster && r.meta.ref.name == name &&
        (cluster || r.meta.ref.namespace_name == namespace_name))
      return &r;
  return nullptr;
}

const Node* ObjectSet::FindNode(const std::string& name) const {
  for (const Node& n : nodes)
    if (n.meta.ref.name == name) return &n;
  return nullptr;
}

size_t ObjectSet::ObjectCount() const {
  return namespaces.size() + resource_quotas.size() + limit_ranges.size() + roles.size() +
         bindings.size() + network_policies.size() + nodes.size() + pods.size() + pdbs.size() +
         device_plugin_configs.size() + policy.flavors.size() + policy.cluster_queues.size() +
         policy.local_queues.size() + policy.cohorts.size();
}

std::map<std::string, int> ObjectSet::KindCounts() const {
  std::map<std::string, int> c;
  auto add = [&](const std::string& kind, size_t n) {
    if (n > 0) c[kind] += static_cast<int>(n);
  };
  add("Namespace", namespaces.size());
  add("ResourceQuota", resource_quotas.size());
  add("LimitRange", limit_ranges.size());
  for (const Role& r : roles) add(r.cluster ? "ClusterRole" : "Role", 1);
  for (const RoleBinding& b : bindings) add(b.cluster ? "ClusterRoleBinding" : "RoleBinding", 1);
  add("NetworkPolicy", network_policies.size());
  add("Node", nodes.size());
  add("Pod", pods.size());
  add("PodDisruptionBudget", pdbs.size());
  std::set<std::string> config_maps;  // A ConfigMap may hold several sharing configs.
  for (const DevicePluginConfig& d : device_plugin_configs) config_maps.insert(d.meta.ref.Id());
  add("ConfigMap", config_maps.size());
  if (auto it = ignored_kinds.find("ConfigMap"); it != ignored_kinds.end())
    add("ConfigMap", it->second);
  add("ResourceFlavor", policy.flavors.size());
  add("ClusterQueue", policy.cluster_queues.size());
  add("LocalQueue", policy.local_queues.size());
  add("Cohort", policy.cohorts.size());
  add("WorkloadPriorityClass", policy.priority_classes.size());
  add("PodGroup", policy.pod_groups.size());
  return c;
}

}  // namespace steward::audit

#include <algorithm>
#include <set>

#include "audit/checks/checks.h"

namespace steward::audit::checks {

bool IsGpuNode(const Node& n) {
  if (n.gpu_capacity > 0) return true;
  auto it = n.meta.labels.find("nvidia.com/gpu.present");
  return it != n.meta.labels.end() && it->second == "true";
}

bool Admits(const Node& n, const std::vector<govern::Toleration>& tolerations) {
  for (const Taint& t : n.taints) {
    if (t.effect != "NoSchedule" && t.effect != "NoExecute") continue;
    const bool tolerated = std::ranges::any_of(tolerations, [&](const govern::Toleration& tol) {
      return tol.Tolerates(t.key, t.value, t.effect);
    });
    if (!tolerated) return false;
  }
  return true;
}

bool HasHardTaint(const Node& n) {
  return std::ranges::any_of(
      n.taints, [](const Taint& t) { return t.effect == "NoSchedule" || t.effect == "NoExecute"; });
}

Labels NamespaceLabels(const ObjectSet& o, const std::string& ns) {
  Labels labels;
  for (const Namespace& n : o.namespaces)
    if (n.meta.ref.name == ns) labels = n.meta.labels;
  labels["kubernetes.io/metadata.name"] = ns;
  return labels;
}

std::vector<std::string> KnownNamespaces(const ObjectSet& o) {
  std::set<std::string> s;
  for (const Namespace& n : o.namespaces) s.insert(n.meta.ref.name);
  for (const Pod& p : o.pods) s.insert(p.meta.ref.namespace_name);
  for (const NetworkPolicy& p : o.network_policies) s.insert(p.meta.ref.namespace_name);
  for (const ResourceQuotaObject& q : o.resource_quotas) s.insert(q.meta.ref.namespace_name);
  for (const govern::LocalQueue& q : o.policy.local_queues) s.insert(q.namespace_name);
  return {s.begin(), s.end()};
}

std::string SharingStrategy(const ObjectSet& o, const Node& n) {
  if (auto it = n.meta.labels.find("nvidia.com/gpu.sharing-strategy"); it != n.meta.labels.end())
    return it->second == "none" ? "" : it->second;
  if (auto it = n.meta.labels.find("nvidia.com/device-plugin.config"); it != n.meta.labels.end())
    for (const DevicePluginConfig& d : o.device_plugin_configs)
      if (d.key == it->second && d.replicas > 1) return d.strategy;
  return "";
}

std::string Join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += v[i];
  }
  return out;
}

std::string JoinFew(const std::vector<std::string>& v, size_t max) {
  if (v.size() <= max) return Join(v);
  std::vector<std::string> head(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(max));
  return Join(head) + " and " + std::to_string(v.size() - max) + " more";
}

std::map<std::string, std::vector<Grant>> TenantGrants(const AuditContext& c) {
  std::map<std::string, std::vector<Grant>> out;
  for (const RoleBinding& b : c.objects.bindings) {
    const Role* role = c.objects.FindRole(b.role_kind, b.meta.ref.namespace_name, b.role_name);
    const std::string scope = b.cluster ? "" : b.meta.ref.namespace_name;
    for (const Subject& s : b.subjects) {
      if (c.tenants.OfSubject(s.Key()).empty()) continue;
      auto& grants = out[s.Key()];
      if (role) {
        for (const PolicyRule& r : role->rules) grants.push_back({&b, role, &r, scope});
      } else if (b.role_kind == "ClusterRole" && b.role_name == "cluster-admin") {
        grants.push_back({&b, nullptr, nullptr, scope});  // Built in; never in a dump's rules.
      }
    }
  }
  return out;
}

namespace {
bool Contains(const std::vector<std::string>& v, std::string_view x) {
  return std::ranges::any_of(v, [&](const std::string& s) { return s == "*" || s == x; });
}
}  // namespace

bool IsClusterAdmin(const Grant& g) {
  return g.binding->role_kind == "ClusterRole" && g.binding->role_name == "cluster-admin";
}

bool Allows(const Grant& g, std::string_view group, std::string_view resource,
            std::string_view verb) {
  if (!g.rule) return IsClusterAdmin(g);
  if (!g.rule->resource_names.empty()) return false;  // Named objects only: not a general right.
  return Contains(g.rule->api_groups, group) && Contains(g.rule->resources, resource) &&
         Contains(g.rule->verbs, verb);
}

}  // namespace steward::audit::checks

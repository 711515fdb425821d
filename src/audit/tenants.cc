#include "audit/tenants.h"

namespace steward::audit {
namespace {
const std::string kNone;
const std::set<std::string> kNoTenants;
}  // namespace

TenantIndex::TenantIndex(const ObjectSet& o, std::string tenant_label)
    : label_(std::move(tenant_label)) {
  auto assign = [&](const std::string& ns, const std::string& tenant, const char* how) {
    if (ns.empty() || tenant.empty() || ns_tenant_.count(ns)) return;
    ns_tenant_[ns] = tenant;
    ns_how_[ns] = how;
    namespaces_[tenant].insert(ns);
  };
  // Precedence: the label, then Kueue, then Volcano (each namespace keeps its first tenant).
  for (const Namespace& n : o.namespaces)
    if (auto it = n.meta.labels.find(label_); it != n.meta.labels.end())
      assign(n.meta.ref.name, it->second, "label");
  for (const govern::LocalQueue& lq : o.policy.local_queues)
    assign(lq.namespace_name, lq.cluster_queue, "LocalQueue");
  for (const govern::PodGroupSpec& pg : o.policy.pod_groups)
    if (pg.queue != "default") assign(pg.namespace_name, pg.queue, "Volcano queue");
  for (const Pod& p : o.pods)
    if (auto it = p.meta.annotations.find("scheduling.volcano.sh/queue-name");
        it != p.meta.annotations.end() && it->second != "default")
      assign(p.meta.ref.namespace_name, it->second, "Volcano queue");

  for (const govern::LocalQueue& lq : o.policy.local_queues)
    if (const std::string& t = OfNamespace(lq.namespace_name); !t.empty())
      cq_tenants_[lq.cluster_queue].insert(t);
  for (const Node& n : o.nodes)
    if (auto it = n.meta.labels.find(label_); it != n.meta.labels.end())
      node_tenant_[n.meta.ref.name] = it->second;
  for (const RoleBinding& b : o.bindings) {
    const std::string& binding_tenant = b.cluster ? kNone : OfNamespace(b.meta.ref.namespace_name);
    for (const Subject& s : b.subjects) {
      if (s.kind == "ServiceAccount") {
        if (const std::string& t = OfNamespace(s.namespace_name); !t.empty())
          subject_tenants_[s.Key()].insert(t);
      } else if (!binding_tenant.empty()) {
        subject_tenants_[s.Key()].insert(binding_tenant);
      }
    }
  }
}

const std::string& TenantIndex::OfNamespace(const std::string& ns) const {
  auto it = ns_tenant_.find(ns);
  return it == ns_tenant_.end() ? kNone : it->second;
}

const std::string& TenantIndex::HowAssigned(const std::string& ns) const {
  auto it = ns_how_.find(ns);
  return it == ns_how_.end() ? kNone : it->second;
}

const std::string& TenantIndex::OfNode(const std::string& node) const {
  auto it = node_tenant_.find(node);
  return it == node_tenant_.end() ? kNone : it->second;
}

const std::set<std::string>& TenantIndex::OfClusterQueue(const std::string& cq) const {
  auto it = cq_tenants_.find(cq);
  return it == cq_tenants_.end() ? kNoTenants : it->second;
}

const std::set<std::string>& TenantIndex::OfSubject(const std::string& key) const {
  auto it = subject_tenants_.find(key);
  return it == subject_tenants_.end() ? kNoTenants : it->second;
}

}  // namespace steward::audit

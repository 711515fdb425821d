// Who is a tenant, and what belongs to whom: the index every tenancy check reads.
//
//   audit::TenantIndex t(objects, "steward.io/tenant");
//   t.OfNamespace("team-a-dev");   // "team-a", or "" when the namespace is no tenant's
//
// A namespace belongs to tenant T when it carries the tenant label with value T; otherwise,
// when one of its Kueue LocalQueues points at ClusterQueue T (or its Volcano PodGroups name
// queue T). Namespaces with neither are not tenants' (kube-system, the operators). A node
// belongs to T's dedicated pool when it carries the same label with value T; unlabelled nodes
// form the shared pool. A ClusterQueue belongs to the tenants whose namespaces have a
// LocalQueue pointing at it. RBAC subjects belong to a tenant through a ServiceAccount's
// namespace or a RoleBinding in a tenant namespace. Built once in O(objects); read-only after.
#pragma once

#include <map>
#include <set>
#include <string>

#include "audit/objects.h"

namespace steward::audit {

class TenantIndex {
 public:
  TenantIndex(const ObjectSet& objects, std::string tenant_label);

  const std::string& label() const { return label_; }
  // "" when the namespace belongs to no tenant.
  const std::string& OfNamespace(const std::string& namespace_name) const;
  const std::string& OfNode(const std::string& node_name) const;
  // Tenants whose LocalQueues point at the ClusterQueue (empty: none).
  const std::set<std::string>& OfClusterQueue(const std::string& cluster_queue) const;
  // Tenants a subject ("ServiceAccount:ns:name", "User:x", "Group:x") acts for.
  const std::set<std::string>& OfSubject(const std::string& subject_key) const;
  // Every tenant and its namespaces, in name order.
  const std::map<std::string, std::set<std::string>>& namespaces() const { return namespaces_; }
  // How each namespace was assigned ("label", "LocalQueue", "Volcano queue"), for messages.
  const std::string& HowAssigned(const std::string& namespace_name) const;

 private:
  std::string label_;
  std::map<std::string, std::string> ns_tenant_, ns_how_, node_tenant_;
  std::map<std::string, std::set<std::string>> namespaces_, cq_tenants_, subject_tenants_;
};

}  // namespace steward::audit

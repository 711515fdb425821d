#include "audit_live/cluster_reader.h"

#include "audit/loader.h"
#include "live/kind_lister.h"

namespace steward::audit_live {

const std::vector<AuditResource>& AuditResources() {
  static const std::vector<AuditResource> kResources = {
      {"Namespace", "", "namespaces", false},
      {"ResourceQuota", "", "resourcequotas", false},
      {"LimitRange", "", "limitranges", false},
      {"Role", "rbac.authorization.k8s.io", "roles", false},
      {"ClusterRole", "rbac.authorization.k8s.io", "clusterroles", false},
      {"RoleBinding", "rbac.authorization.k8s.io", "rolebindings", false},
      {"ClusterRoleBinding", "rbac.authorization.k8s.io", "clusterrolebindings", false},
      {"NetworkPolicy", "networking.k8s.io", "networkpolicies", false},
      {"Node", "", "nodes", false},
      {"Pod", "", "pods", false},
      {"PodDisruptionBudget", "policy", "poddisruptionbudgets", false},
      {"ConfigMap", "", "configmaps", false},
      {"ResourceFlavor", "kueue.x-k8s.io", "resourceflavors", true},
      {"ClusterQueue", "kueue.x-k8s.io", "clusterqueues", true},
      {"LocalQueue", "kueue.x-k8s.io", "localqueues", true},
      {"Cohort", "kueue.x-k8s.io", "cohorts", true},
      {"WorkloadPriorityClass", "kueue.x-k8s.io", "workloadpriorityclasses", true},
      {"Queue", "scheduling.volcano.sh", "queues", true},
      {"PodGroup", "scheduling.volcano.sh", "podgroups", true},
  };
  return kResources;
}

Result<ClusterRead> ReadClusterObjects(live::KubeClient* client, audit::ObjectSet* set) {
  std::vector<live::KindToList> kinds;
  for (const AuditResource& r : AuditResources())
    kinds.push_back({r.kind, r.group, r.plural, r.optional_group});
  STEWARD_ASSIGN_OR_RETURN(live::KindLists lists, live::ListKinds(client, kinds));
  const std::string& server = client->config().server;
  ClusterRead read;
  read.not_installed = std::move(lists.not_installed);
  read.objects = lists.objects;
  for (live::UnreadKind& u : lists.not_read)
    set->not_read.push_back({std::move(u.kind), std::move(u.reason)});
  for (const live::KindList& l : lists.lists) {
    STEWARD_RETURN_IF_ERROR(audit::ParseApiList(l.list, server + l.path, set));
    ++read.lists;
  }
  return read;
}

}  // namespace steward::audit_live

// The check functions of each layer (one .cc per layer) and the helpers they share. Private to
// the audit module: the public surface is audit/check.h's table.
#pragma once

#include <string>
#include <vector>

#include "audit/check.h"

namespace steward::audit::checks {

inline constexpr const char* kGpu = "nvidia.com/gpu";

// quota.cc
void GpuUnbounded(const AuditContext&, const Check&, std::vector<Finding>*);
void PoolOvercommitted(const AuditContext&, const Check&, std::vector<Finding>*);
void HamiQuotaWithoutGpuBound(const AuditContext&, const Check&, std::vector<Finding>*);
// rbac.cc
void ClusterAdminBinding(const AuditContext&, const Check&, std::vector<Finding>*);
void CreatePodsElsewhere(const AuditContext&, const Check&, std::vector<Finding>*);
void WildcardRule(const AuditContext&, const Check&, std::vector<Finding>*);
void EscalationVerbs(const AuditContext&, const Check&, std::vector<Finding>*);
void QuotaSelfService(const AuditContext&, const Check&, std::vector<Finding>*);
// network.cc
void NoDefaultDeny(const AuditContext&, const Check&, std::vector<Finding>*);
void DanglingPolicy(const AuditContext&, const Check&, std::vector<Finding>*);
void CrossTenantAllowed(const AuditContext&, const Check&, std::vector<Finding>*);
// nodes.cc
void GpuPoolUntainted(const AuditContext&, const Check&, std::vector<Finding>*);
void TolerationCrossesPool(const AuditContext&, const Check&, std::vector<Finding>*);
void FlavorReachesOtherPool(const AuditContext&, const Check&, std::vector<Finding>*);
// sharing.cc
void TimeSliceCrossTenant(const AuditContext&, const Check&, std::vector<Finding>*);
void MpsCrossTenant(const AuditContext&, const Check&, std::vector<Finding>*);
void FailRequestsGreaterThanOneOff(const AuditContext&, const Check&, std::vector<Finding>*);
void HamiPodWithoutGpuMem(const AuditContext&, const Check&, std::vector<Finding>*);
void GpuCoresAsHardLimit(const AuditContext&, const Check&, std::vector<Finding>*);

// Shared helpers (check_helpers.cc).
bool IsGpuNode(const Node& n);
// True when pods with these tolerations may be scheduled on `n` (every NoSchedule/NoExecute
// taint tolerated).
bool Admits(const Node& n, const std::vector<govern::Toleration>& tolerations);
bool HasHardTaint(const Node& n);
// A namespace's labels, including the kubernetes.io/metadata.name label the API server sets.
Labels NamespaceLabels(const ObjectSet& o, const std::string& namespace_name);
// Every namespace the input names (Namespace objects, and namespaces of namespaced objects).
std::vector<std::string> KnownNamespaces(const ObjectSet& o);
// A GPU sharing strategy of a node: "time-slicing", "mps" or "" (exclusive or unknown), from
// nvidia.com/gpu.sharing-strategy or the device plugin config the node selects.
std::string SharingStrategy(const ObjectSet& o, const Node& n);
// "a, b, c"
std::string Join(const std::vector<std::string>& v, std::string_view sep = ", ");
// "a, b, c and 97 more": node lists of a large pool stay readable in a message.
std::string JoinFew(const std::vector<std::string>& v, size_t max = 8);

// One RBAC grant: a rule of a role bound to a subject, and where it applies.
struct Grant {
  const RoleBinding* binding;
  const Role* role;  // Null when the role is not in the input (only cluster-admin is known).
  const PolicyRule* rule;
  std::string scope;  // Namespace, or "" = every namespace (ClusterRoleBinding).
};
// Every grant of every subject that acts for a tenant, keyed by subject.
std::map<std::string, std::vector<Grant>> TenantGrants(const AuditContext& c);
// Whether the rule (or cluster-admin when rule is null) allows verb on group/resource.
bool Allows(const Grant& g, std::string_view group, std::string_view resource,
            std::string_view verb);
bool IsClusterAdmin(const Grant& g);

}  // namespace steward::audit::checks

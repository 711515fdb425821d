// The kinds each check reads. Keep in step with the checks (audit/checks/*.cc); the unit test
// CoverageTest.EveryCheckHasInputs fails when a check has no entry.
#include "audit/coverage.h"

#include <algorithm>
#include <map>

#include "audit/check.h"

namespace steward::audit {
namespace {

// The kinds that assign namespaces to tenants (audit/tenants.h): every check uses them.
constexpr std::string_view kTenantKinds[] = {"Namespace", "LocalQueue", "PodGroup", "Pod"};

const std::map<std::string_view, CheckInputs>& Table() {
  static const std::map<std::string_view, CheckInputs> kTable = {
      {"quota.gpu-unbounded", {{"Namespace", "ResourceQuota"}, {"Queue"}}},
      {"quota.pool-overcommitted", {{"Node"}, {"ResourceQuota", "ResourceFlavor", "ClusterQueue"}}},
      {"quota.hami-no-gpu-bound", {{"ResourceQuota"}, {}}},
      {"rbac.cluster-admin", {{"RoleBinding", "ClusterRoleBinding"}, {"ClusterRole"}}},
      {"rbac.create-pods-elsewhere",
       {{"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}, {}}},
      {"rbac.wildcard", {{"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}, {}}},
      {"rbac.escalation-verbs", {{"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}, {}}},
      {"rbac.quota-self-service",
       {{"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}, {}}},
      {"network.no-default-deny", {{"Namespace", "NetworkPolicy"}, {}}},
      {"network.dangling-policy", {{"NetworkPolicy", "Pod"}, {}}},
      {"network.cross-tenant-allowed", {{"Namespace", "NetworkPolicy"}, {}}},
      {"nodes.gpu-pool-untainted", {{"Node"}, {}}},
      {"nodes.toleration-crosses-pool", {{"Node", "Pod"}, {}}},
      {"nodes.flavor-reaches-other-pool", {{"Node", "ResourceFlavor", "ClusterQueue"}, {}}},
      {"sharing.timeslice-cross-tenant", {{"Node", "Pod"}, {"ConfigMap"}}},
      {"sharing.mps-cross-tenant", {{"Node", "Pod"}, {"ConfigMap"}}},
      {"sharing.fail-requests-gt-one-off", {{"ConfigMap"}, {}}},
      {"sharing.hami-no-gpumem", {{"Pod"}, {}}},
      {"sharing.gpucores-soft-limit", {{"Pod"}, {}}},
  };
  return kTable;
}

bool Contains(const std::vector<std::string_view>& v, std::string_view x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

CheckInputs InputsOf(std::string_view check_id) {
  auto it = Table().find(check_id);
  if (it == Table().end()) return {};
  CheckInputs in = it->second;
  for (std::string_view k : kTenantKinds)
    if (!Contains(in.required, k) && !Contains(in.used, k)) in.used.push_back(k);
  return in;
}

const std::vector<std::string_view>& AuditedKinds() {
  static const std::vector<std::string_view> kKinds = {"Namespace",
                                                       "ResourceQuota",
                                                       "LimitRange",
                                                       "Role",
                                                       "ClusterRole",
                                                       "RoleBinding",
                                                       "ClusterRoleBinding",
                                                       "NetworkPolicy",
                                                       "Node",
                                                       "Pod",
                                                       "PodDisruptionBudget",
                                                       "ConfigMap",
                                                       "ResourceFlavor",
                                                       "ClusterQueue",
                                                       "LocalQueue",
                                                       "Cohort",
                                                       "WorkloadPriorityClass",
                                                       "Queue",
                                                       "PodGroup"};
  return kKinds;
}

std::vector<CheckCoverage> CoverageGaps(const std::vector<UnreadKind>& not_read) {
  std::vector<CheckCoverage> out;
  if (not_read.empty()) return out;
  auto unread = [&](std::string_view kind) {
    return std::any_of(not_read.begin(), not_read.end(),
                       [&](const UnreadKind& u) { return u.kind == kind; });
  };
  for (const Check& c : AllChecks()) {
    const CheckInputs in = InputsOf(c.id);
    CheckCoverage cov{std::string(c.id), true, {}};
    for (std::string_view k : AuditedKinds()) {
      const bool required = Contains(in.required, k);
      if ((!required && !Contains(in.used, k)) || !unread(k)) continue;
      cov.missing.emplace_back(k);
      if (required) cov.run = false;
    }
    if (!cov.missing.empty()) out.push_back(std::move(cov));
  }
  return out;
}

}  // namespace steward::audit

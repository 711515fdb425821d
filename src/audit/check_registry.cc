// The table of tenancy checks. Ids are stable (SARIF rule ids, docs/tenancy.md anchors): rename
// one only with a note in the docs.
#include <algorithm>
#include <tuple>

#include "audit/check.h"
#include "audit/checks/checks.h"

namespace steward::audit {

std::string_view LayerName(Layer l) {
  switch (l) {
    case Layer::kQuota:
      return "quota";
    case Layer::kRbac:
      return "rbac";
    case Layer::kNetwork:
      return "network";
    case Layer::kNodes:
      return "nodes";
    case Layer::kSharing:
      return "sharing";
  }
  return "quota";
}

std::string_view SeverityName(Severity s) {
  return s == Severity::kCritical ? "critical" : "warning";
}

Finding Check::Make(std::string tenant, std::vector<ObjectRef> objects, std::string message,
                    std::string fix) const {
  return {std::string(id),    layer,         severity, std::move(tenant), std::move(objects),
          std::move(message), std::move(fix)};
}

const std::vector<Check>& AllChecks() {
  using L = Layer;
  using S = Severity;
  namespace c = checks;
  static const std::vector<Check> kChecks = {
      {"quota.gpu-unbounded", L::kQuota, S::kCritical,
       "tenant namespace with neither a requests.nvidia.com/gpu ResourceQuota nor a LocalQueue",
       "resource-quotas.md (extended resources: requests. only); CIS 5.7.1; kubescape C-0009",
       c::GpuUnbounded},
      {"quota.pool-overcommitted", L::kQuota, S::kWarning,
       "nominal GPU quota of the tenants of a pool above its GPU capacity",
       "derived (Kueue nominalQuota vs ResourceFlavor capacity; quota creates no node "
       "restriction)",
       c::PoolOvercommitted},
      {"quota.hami-no-gpu-bound", L::kQuota, S::kWarning,
       "HAMi gpumem/gpucores quota without a GPU-count bound",
       "HAMi quota.go FitQuota (per-GPU values summed per container)", c::HamiQuotaWithoutGpuBound},
      {"rbac.cluster-admin", L::kRbac, S::kCritical, "tenant subject bound to cluster-admin",
       "CIS 5.1.1; kubescape C-0035; Polaris clusterrolebindingClusterAdmin",
       c::ClusterAdminBinding},
      {"rbac.create-pods-elsewhere", L::kRbac, S::kCritical,
       "tenant subject can create pods outside its namespaces", "CIS 5.1.4; kubescape C-0188",
       c::CreatePodsElsewhere},
      {"rbac.wildcard", L::kRbac, S::kWarning,
       "wildcard in a Role/ClusterRole granted to a tenant subject", "CIS 5.1.3; kubescape C-0187",
       c::WildcardRule},
      {"rbac.escalation-verbs", L::kRbac, S::kCritical,
       "tenant subject granted escalate, bind or impersonate", "CIS 5.1.8; kubescape C-0065",
       c::EscalationVerbs},
      {"rbac.quota-self-service", L::kRbac, S::kCritical,
       "tenant subject can change ClusterQueues, ResourceFlavors, Cohorts, Volcano Queues, "
       "ResourceQuotas or Nodes",
       "derived from CIS 5.1.x (a tenant that can change its own quota)", c::QuotaSelfService},
      {"network.no-default-deny", L::kNetwork, S::kWarning,
       "tenant namespace without a default-deny ingress NetworkPolicy",
       "CIS 5.3.2; kubescape C-0260, C-0206; kube-score pod-networkpolicy", c::NoDefaultDeny},
      {"network.dangling-policy", L::kNetwork, S::kWarning,
       "NetworkPolicy whose podSelector matches no pod",
       "kubescape C-0299; kube-score networkpolicy-targets-pod", c::DanglingPolicy},
      {"network.cross-tenant-allowed", L::kNetwork, S::kCritical,
       "NetworkPolicy allows traffic from or to another tenant's namespaces",
       "kubescape C-0054 (cluster internal networking); CIS 5.3.2", c::CrossTenantAllowed},
      {"nodes.gpu-pool-untainted", L::kNodes, S::kWarning,
       "dedicated GPU pool without a NoSchedule taint", "derived (tenancy-facts §4.2 gap)",
       c::GpuPoolUntainted},
      {"nodes.toleration-crosses-pool", L::kNodes, S::kCritical,
       "a tenant's pod tolerates another tenant's dedicated pool", "derived (tenancy-facts §4.4)",
       c::TolerationCrossesPool},
      {"nodes.flavor-reaches-other-pool", L::kNodes, S::kCritical,
       "a tenant's ClusterQueue flavor reaches another tenant's dedicated pool",
       "derived (Kueue ResourceFlavor nodeLabels/tolerations)", c::FlavorReachesOtherPool},
      {"sharing.timeslice-cross-tenant", L::kSharing, S::kCritical,
       "time-sliced GPU node shared by pods of several tenants",
       "k8s-device-plugin README: time-slicing does no isolation, one fault domain, all memory",
       c::TimeSliceCrossTenant},
      {"sharing.mps-cross-tenant", L::kSharing, S::kWarning,
       "MPS GPU node shared by pods of several tenants",
       "k8s-device-plugin README: MPS limits memory/compute per client but shares the device",
       c::MpsCrossTenant},
      {"sharing.fail-requests-gt-one-off", L::kSharing, S::kWarning,
       "GPU sharing config with failRequestsGreaterThanOne off",
       "k8s-device-plugin README (recommended true; >1 replica gives no extra compute)",
       c::FailRequestsGreaterThanOneOff},
      {"sharing.hami-no-gpumem", L::kSharing, S::kWarning,
       "HAMi pod without nvidia.com/gpumem (gets the whole card's memory)",
       "HAMi#1173 (no gpumem = whole card); HAMi device-configmap defaultMemory 0",
       c::HamiPodWithoutGpuMem},
      {"sharing.gpucores-soft-limit", L::kSharing, S::kWarning,
       "HAMi gpucores relied on as a hard limit",
       "Kueue using_hami.md (gpucores is a reactive throttle); HAMi#737", c::GpuCoresAsHardLimit},
  };
  return kChecks;
}

const Check* FindCheck(std::string_view id) {
  for (const Check& c : AllChecks())
    if (c.id == id) return &c;
  return nullptr;
}

namespace {
void Sort(std::vector<Finding>* f) {
  auto key = [](const Finding& x) {
    std::vector<std::string> ids;
    for (const auto& o : x.objects) ids.push_back(o.Id());
    return std::make_tuple(static_cast<int>(x.layer), x.id, x.tenant, ids, x.message);
  };
  std::ranges::stable_sort(*f, [&](const Finding& a, const Finding& b) { return key(a) < key(b); });
}
}  // namespace

std::vector<Finding> RunCheck(const Check& check, const ObjectSet& objects,
                              const AuditOptions& options) {
  TenantIndex tenants(objects, options.tenant_label);
  AuditContext ctx{objects, tenants, options};
  std::vector<Finding> out;
  check.run(ctx, check, &out);
  Sort(&out);
  return out;
}

AuditResult RunAudit(const ObjectSet& objects, const AuditOptions& options) {
  TenantIndex tenants(objects, options.tenant_label);
  AuditContext ctx{objects, tenants, options};
  AuditResult r;
  r.not_read = objects.not_read;
  r.coverage_gaps = CoverageGaps(objects.not_read);
  for (const Check& c : AllChecks()) {
    const bool skipped = std::ranges::any_of(
        r.coverage_gaps, [&](const CheckCoverage& g) { return g.id == c.id && !g.run; });
    if (skipped) continue;
    c.run(ctx, c, &r.findings);
    ++r.checks_run;
  }
  Sort(&r.findings);
  r.tenants = tenants.namespaces();
  r.objects = objects.ObjectCount();
  return r;
}

}  // namespace steward::audit

// Every check on a hand-made object set that violates it and on one that does not. The two
// sets of a case differ only in the planted fault, so the test pins what the check looks at.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "audit/check.h"
#include "audit/loader.h"

namespace steward::audit {
namespace {

struct Case {
  std::string check;
  std::string violating;
  std::string clean;
};

std::string Ns(const std::string& name, const std::string& tenant) {
  return "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: " + name +
         (tenant.empty() ? "" : ", labels: {steward.io/tenant: " + tenant + "}") + "}\n";
}
std::string GpuQuota(const std::string& ns, int gpus) {
  return "---\napiVersion: v1\nkind: ResourceQuota\nmetadata: {name: gpu, namespace: " + ns +
         "}\nspec: {hard: {requests.nvidia.com/gpu: " + std::to_string(gpus) + "}}\n";
}
std::string Node(const std::string& name, int gpus, const std::string& tenant, bool tainted,
                 const std::string& extra_labels = "") {
  std::string labels = "nvidia.com/gpu.product: H100";
  if (!tenant.empty()) labels += ", steward.io/tenant: " + tenant;
  if (!extra_labels.empty()) labels += ", " + extra_labels;
  std::string s = "---\napiVersion: v1\nkind: Node\nmetadata: {name: " + name + ", labels: {" +
                  labels + "}}\nspec: {";
  if (tainted) s += "taints: [{key: steward.io/tenant, value: " + tenant + ", effect: NoSchedule}]";
  return s + "}\nstatus: {allocatable: {nvidia.com/gpu: " + std::to_string(gpus) + "}}\n";
}
std::string GpuPod(const std::string& ns, const std::string& name, const std::string& node,
                   const std::string& limits = "nvidia.com/gpu: 1", const std::string& more = "") {
  return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: " + ns +
         ", labels: {app: " + name + "}}\nspec:\n  nodeName: " + node + "\n" + more +
         "  containers:\n  - name: c\n    resources: {limits: {" + limits + "}}\n";
}
std::string Binding(const std::string& kind, const std::string& ns, const std::string& name,
                    const std::string& role_kind, const std::string& role,
                    const std::string& subject) {
  return "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: " + kind +
         "\nmetadata: {name: " + name + (ns.empty() ? "" : ", namespace: " + ns) +
         "}\nroleRef: {kind: " + role_kind + ", name: " + role + "}\nsubjects: [" + subject + "]\n";
}
std::string Role(const std::string& kind, const std::string& ns, const std::string& name,
                 const std::string& rule) {
  return "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: " + kind +
         "\nmetadata: {name: " + name + (ns.empty() ? "" : ", namespace: " + ns) + "}\nrules: [" +
         rule + "]\n";
}
std::string NetPol(const std::string& ns, const std::string& name, const std::string& spec) {
  return "---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: " + name +
         ", namespace: " + ns + "}\nspec: " + spec + "\n";
}
const std::string kSaA = "{kind: ServiceAccount, name: bot, namespace: a}";
const std::string kTwoTenants = Ns("a", "ta") + Ns("b", "tb");
std::string Flavor(const std::string& name, const std::string& labels, const std::string& tol) {
  return "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: " + name +
         "}\nspec: {nodeLabels: {" + labels + "}" +
         (tol.empty() ? "" : ", tolerations: [" + tol + "]") + "}\n";
}
std::string Queue(const std::string& name, const std::string& flavor, int gpus,
                  const std::string& ns) {
  return "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: " + name +
         "}\nspec:\n  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: "
         "[nvidia.com/gpu]\n    flavors:\n    - name: " +
         flavor +
         "\n      resources: [{name: nvidia.com/gpu, nominalQuota: " + std::to_string(gpus) +
         "}]\n---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: q, "
         "namespace: " +
         ns + "}\nspec: {clusterQueue: " + name + "}\n";
}
std::string DevicePluginConfig(const std::string& body, const std::string& key = "cfg") {
  return "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: dp, namespace: gpu-operator}\n"
         "data:\n  " +
         key + ": |\n    version: v1\n    sharing:\n" + body;
}
const std::string kTolB =
    "  tolerations: [{key: steward.io/tenant, value: tb, effect: NoSchedule}]\n";
const std::string kHami = "  schedulerName: hami-scheduler\n";

std::vector<Case> Cases() {
  return {
      {"quota.gpu-unbounded", Ns("a", "ta"), Ns("a", "ta") + GpuQuota("a", 4)},
      {"quota.pool-overcommitted", Ns("a", "ta") + GpuQuota("a", 16) + Node("n1", 8, "ta", true),
       Ns("a", "ta") + GpuQuota("a", 8) + Node("n1", 8, "ta", true)},
      {"quota.hami-no-gpu-bound",
       Ns("a", "ta") + "---\napiVersion: v1\nkind: ResourceQuota\nmetadata: {name: h, namespace: "
                       "a}\nspec: {hard: {limits.nvidia.com/gpumem: 100000}}\n",
       Ns("a", "ta") + "---\napiVersion: v1\nkind: ResourceQuota\nmetadata: {name: h, namespace: "
                       "a}\nspec: {hard: {limits.nvidia.com/gpumem: 100000, "
                       "requests.nvidia.com/gpu: 4}}\n"},
      {"rbac.cluster-admin",
       Ns("a", "ta") + Binding("ClusterRoleBinding", "", "x", "ClusterRole", "cluster-admin", kSaA),
       Ns("a", "ta") + Binding("RoleBinding", "a", "x", "ClusterRole", "admin", kSaA)},
      {"rbac.create-pods-elsewhere",
       kTwoTenants +
           Role("ClusterRole", "", "pc", "{apiGroups: [''], resources: [pods], verbs: [create]}") +
           Binding("RoleBinding", "b", "x", "ClusterRole", "pc", kSaA),
       kTwoTenants +
           Role("ClusterRole", "", "pc", "{apiGroups: [''], resources: [pods], verbs: [create]}") +
           Binding("RoleBinding", "a", "x", "ClusterRole", "pc", kSaA)},
      {"rbac.wildcard",
       Ns("a", "ta") +
           Role("Role", "a", "r", "{apiGroups: [apps], resources: ['*'], verbs: [get]}") +
           Binding("RoleBinding", "a", "x", "Role", "r", kSaA),
       Ns("a", "ta") +
           Role("Role", "a", "r", "{apiGroups: [apps], resources: [deployments], verbs: [get]}") +
           Binding("RoleBinding", "a", "x", "Role", "r", kSaA)},
      {"rbac.escalation-verbs",
       Ns("a", "ta") +
           Role("Role", "a", "r",
                "{apiGroups: [rbac.authorization.k8s.io], resources: [roles], verbs: [get, "
                "escalate]}") +
           Binding("RoleBinding", "a", "x", "Role", "r", kSaA),
       Ns("a", "ta") +
           Role("Role", "a", "r",
                "{apiGroups: [rbac.authorization.k8s.io], resources: [roles], verbs: [get]}") +
           Binding("RoleBinding", "a", "x", "Role", "r", kSaA)},
      {"rbac.quota-self-service",
       Ns("a", "ta") +
           Role("ClusterRole", "", "r",
                "{apiGroups: [kueue.x-k8s.io], resources: [clusterqueues], verbs: [get, patch]}") +
           Binding("ClusterRoleBinding", "", "x", "ClusterRole", "r", kSaA),
       Ns("a", "ta") +
           Role("ClusterRole", "", "r",
                "{apiGroups: [kueue.x-k8s.io], resources: [clusterqueues], verbs: [get, list]}") +
           Binding("ClusterRoleBinding", "", "x", "ClusterRole", "r", kSaA)},
      {"network.no-default-deny",
       Ns("a", "ta") + NetPol("a", "p", "{podSelector: {}, ingress: [{}]}"),
       Ns("a", "ta") + NetPol("a", "p", "{podSelector: {}, policyTypes: [Ingress]}")},
      {"network.dangling-policy",
       Ns("a", "ta") + GpuPod("a", "web", "n1") +
           NetPol("a", "p", "{podSelector: {matchLabels: {app: wbe}}}"),
       Ns("a", "ta") + GpuPod("a", "web", "n1") +
           NetPol("a", "p", "{podSelector: {matchLabels: {app: web}}}")},
      {"network.cross-tenant-allowed",
       kTwoTenants + NetPol("a", "p",
                            "{podSelector: {}, ingress: [{from: [{namespaceSelector: {matchLabels: "
                            "{steward.io/tenant: tb}}}]}]}"),
       kTwoTenants + NetPol("a", "p",
                            "{podSelector: {}, ingress: [{from: [{namespaceSelector: {matchLabels: "
                            "{steward.io/tenant: ta}}}]}]}")},
      {"nodes.gpu-pool-untainted", Node("n1", 8, "ta", false), Node("n1", 8, "ta", true)},
      {"nodes.toleration-crosses-pool",
       kTwoTenants + Node("nb", 8, "tb", true) + GpuPod("a", "p", "", "nvidia.com/gpu: 1", kTolB),
       kTwoTenants + Node("nb", 8, "tb", true) + GpuPod("a", "p", "")},
      {"nodes.flavor-reaches-other-pool",
       kTwoTenants + Node("nb", 8, "tb", true) +
           Flavor("f", "nvidia.com/gpu.product: H100",
                  "{key: steward.io/tenant, operator: Exists}") +
           Queue("cq", "f", 4, "a"),
       kTwoTenants + Node("nb", 8, "tb", true) + Flavor("f", "nvidia.com/gpu.product: H100", "") +
           Queue("cq", "f", 4, "a")},
      {"sharing.timeslice-cross-tenant",
       kTwoTenants + Node("s", 8, "", false, "nvidia.com/gpu.sharing-strategy: time-slicing") +
           GpuPod("a", "p", "s") + GpuPod("b", "q", "s"),
       kTwoTenants + Node("s", 8, "", false, "nvidia.com/gpu.sharing-strategy: time-slicing") +
           GpuPod("a", "p", "s") + GpuPod("a", "q", "s")},
      {"sharing.mps-cross-tenant",
       kTwoTenants + Node("s", 8, "", false, "nvidia.com/device-plugin.config: m") +
           DevicePluginConfig("      mps: {failRequestsGreaterThanOne: true, resources: [{name: "
                              "nvidia.com/gpu, replicas: 4}]}\n",
                              "m") +
           GpuPod("a", "p", "s") + GpuPod("b", "q", "s"),
       kTwoTenants + Node("s", 8, "", false, "nvidia.com/device-plugin.config: m") +
           DevicePluginConfig("      mps: {failRequestsGreaterThanOne: true, resources: [{name: "
                              "nvidia.com/gpu, replicas: 4}]}\n",
                              "m") +
           GpuPod("a", "p", "s") + GpuPod("b", "q", "other")},
      {"sharing.fail-requests-gt-one-off",
       DevicePluginConfig(
           "      timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 4}]}\n"),
       DevicePluginConfig("      timeSlicing: {failRequestsGreaterThanOne: true, resources: "
                          "[{name: nvidia.com/gpu, replicas: 4}]}\n")},
      {"sharing.hami-no-gpumem", Ns("a", "ta") + GpuPod("a", "p", "h", "nvidia.com/gpu: 1", kHami),
       Ns("a", "ta") + GpuPod("a", "p", "h", "nvidia.com/gpu: 1, nvidia.com/gpumem: 4000", kHami)},
      {"sharing.gpucores-soft-limit",
       Ns("a", "ta") +
           GpuPod("a", "p", "h",
                  "nvidia.com/gpu: 1, nvidia.com/gpumem: 4000, nvidia.com/gpucores: 25"),
       Ns("a", "ta") +
           GpuPod("a", "p", "h",
                  "nvidia.com/gpu: 1, nvidia.com/gpumem: 4000, nvidia.com/gpucores: 100")},
  };
}

class CheckCase : public ::testing::TestWithParam<Case> {};

std::vector<Finding> RunOne(const std::string& check_id, const std::string& yaml) {
  ObjectSet objects;
  Status s = ParseObjects(yaml, "case.yaml", &objects);
  EXPECT_TRUE(s.ok()) << s.message();
  const Check* check = FindCheck(check_id);
  EXPECT_NE(check, nullptr) << check_id;
  return check ? RunCheck(*check, objects, AuditOptions{}) : std::vector<Finding>{};
}

TEST_P(CheckCase, FiresOnTheViolationOnly) {
  const Case& c = GetParam();
  const std::vector<Finding> bad = RunOne(c.check, c.violating);
  ASSERT_EQ(bad.size(), 1u) << c.check;
  EXPECT_EQ(bad[0].id, c.check);
  EXPECT_FALSE(bad[0].objects.empty());
  EXPECT_FALSE(bad[0].message.empty());
  EXPECT_FALSE(bad[0].fix.empty());
  EXPECT_TRUE(RunOne(c.check, c.clean).empty())
      << c.check << ": " << RunOne(c.check, c.clean)[0].message;
}

INSTANTIATE_TEST_SUITE_P(AllChecks, CheckCase, ::testing::ValuesIn(Cases()), [](const auto& info) {
  std::string n = info.param.check;
  for (char& ch : n)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
});

TEST(CheckTable, EveryCheckHasACaseAndAUniqueId) {
  std::set<std::string> with_case, ids;
  for (const Case& c : Cases()) with_case.insert(c.check);
  for (const Check& c : AllChecks()) {
    EXPECT_TRUE(ids.insert(std::string(c.id)).second) << c.id;
    EXPECT_TRUE(with_case.count(std::string(c.id))) << "no unit case for " << c.id;
    EXPECT_TRUE(std::string(c.id).starts_with(std::string(LayerName(c.layer)) + "."));
    EXPECT_FALSE(c.anchor.empty());
  }
  EXPECT_EQ(with_case.size(), AllChecks().size());
}

TEST(Tenants, LocalQueueMakesANamespaceATenantsWhenUnlabelled) {
  ObjectSet o;
  ASSERT_TRUE(ParseObjects(Ns("r", "") + Ns("x", "") + Queue("team-c", "f", 1, "r") +
                               Flavor("f", "a: b", ""),
                           "t.yaml", &o)
                  .ok());
  TenantIndex t(o, "steward.io/tenant");
  EXPECT_EQ(t.OfNamespace("r"), "team-c");
  EXPECT_EQ(t.HowAssigned("r"), "LocalQueue");
  EXPECT_EQ(t.OfNamespace("x"), "");
  EXPECT_EQ(t.OfClusterQueue("team-c").count("team-c"), 1u);
}

TEST(Tenants, TheLabelIsConfigurable) {
  ObjectSet o;
  ASSERT_TRUE(ParseObjects("apiVersion: v1\nkind: Namespace\nmetadata: {name: a, labels: "
                           "{owner: x}}\n",
                           "t.yaml", &o)
                  .ok());
  EXPECT_EQ(TenantIndex(o, "owner").OfNamespace("a"), "x");
  EXPECT_EQ(TenantIndex(o, "steward.io/tenant").OfNamespace("a"), "");
  AuditOptions opt;
  opt.tenant_label = "owner";
  EXPECT_EQ(RunAudit(o, opt).tenants.count("x"), 1u);
}

}  // namespace
}  // namespace steward::audit

// Reading kubectl's JSON/YAML output: Lists, multi-document YAML, JSON, Kueue objects through
// govern's importer, and errors that name file, line and field.
#include "audit/loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace steward::audit {
namespace {

TEST(Loader, ReadsAJsonListWithPositions) {
  const std::string json = R"({
  "apiVersion": "v1", "kind": "List",
  "items": [
    {"apiVersion": "v1", "kind": "Node",
     "metadata": {"name": "n1", "labels": {"steward.io/tenant": "a"}},
     "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
     "status": {"capacity": {"nvidia.com/gpu": "8"}, "allocatable": {"nvidia.com/gpu": "7"}}}
  ]
})";
  ObjectSet o;
  ASSERT_TRUE(ParseObjects(json, "nodes.json", &o).ok());
  ASSERT_EQ(o.nodes.size(), 1u);
  EXPECT_EQ(o.nodes[0].gpu_capacity, 7);  // allocatable wins over capacity.
  EXPECT_EQ(o.nodes[0].taints.size(), 1u);
  EXPECT_EQ(o.nodes[0].meta.ref.line, 4);
  EXPECT_EQ(o.nodes[0].meta.ref.Id(), "Node/n1");
}

TEST(Loader, KueueObjectsGoThroughTheGovernImporterInsideAList) {
  const std::string yaml = R"(apiVersion: v1
kind: List
items:
- apiVersion: kueue.x-k8s.io/v1beta1
  kind: LocalQueue
  metadata: {name: q, namespace: ns1}
  spec: {clusterQueue: cq}
- apiVersion: kueue.x-k8s.io/v1beta1
  kind: Workload
  metadata: {name: w, namespace: ns1}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: d, namespace: ns1}
)";
  ObjectSet o;
  ASSERT_TRUE(ParseObjects(yaml, "kueue.yaml", &o).ok());
  ASSERT_EQ(o.policy.local_queues.size(), 1u);
  EXPECT_EQ(o.policy.local_queues[0].namespace_name, "ns1");
  EXPECT_EQ(o.policy.local_queues[0].cluster_queue, "cq");
  EXPECT_EQ(o.ignored_kinds["Workload"], 1);
  EXPECT_EQ(o.ignored_kinds["Deployment"], 1);
}

TEST(Loader, DevicePluginSharingConfigs) {
  const std::string yaml = R"(apiVersion: v1
kind: ConfigMap
metadata: {name: dp, namespace: gpu-operator}
data:
  a: |
    version: v1
    sharing:
      timeSlicing:
        renameByDefault: false
        resources: [{name: nvidia.com/gpu, replicas: 4}]
  b: |
    version: v1
    sharing:
      mps:
        failRequestsGreaterThanOne: true
        resources: [{name: nvidia.com/gpu, replicas: 2}]
  unrelated: "hello"
)";
  ObjectSet o;
  ASSERT_TRUE(ParseObjects(yaml, "cm.yaml", &o).ok());
  ASSERT_EQ(o.device_plugin_configs.size(), 2u);
  EXPECT_EQ(o.device_plugin_configs[0].key, "a");
  EXPECT_EQ(o.device_plugin_configs[0].strategy, "time-slicing");
  EXPECT_EQ(o.device_plugin_configs[0].replicas, 4);
  EXPECT_FALSE(o.device_plugin_configs[0].fail_requests_greater_than_one);
  EXPECT_EQ(o.device_plugin_configs[1].strategy, "mps");
  EXPECT_TRUE(o.device_plugin_configs[1].fail_requests_greater_than_one);
}

TEST(Loader, NamespacedObjectsWithoutANamespaceAreInDefault) {
  const std::string yaml = R"(apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: b}
roleRef: {kind: Role, name: r}
subjects: [{kind: ServiceAccount, name: bot}]
---
apiVersion: v1
kind: Namespace
metadata: {name: ns}
)";
  ObjectSet o;
  ASSERT_TRUE(ParseObjects(yaml, "rb.yaml", &o).ok());
  ASSERT_EQ(o.bindings.size(), 1u);
  EXPECT_EQ(o.bindings[0].meta.ref.namespace_name, "default");
  EXPECT_EQ(o.bindings[0].subjects[0].namespace_name, "default");  // The binding's namespace.
  EXPECT_EQ(o.namespaces[0].meta.ref.namespace_name, "");          // Cluster-scoped.
}

struct BadInput {
  std::string name;
  std::string text;
  std::string expect;  // Substring of the error: "file:line:col: ... field".
};

class LoaderErrors : public ::testing::TestWithParam<BadInput> {};

TEST_P(LoaderErrors, NameFileLineAndField) {
  ObjectSet o;
  Status s = ParseObjects(GetParam().text, "in.yaml", &o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(GetParam().expect), std::string::npos) << s.message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LoaderErrors,
    ::testing::Values(
        BadInput{"BadQuantity",
                 "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a}\nspec:\n  "
                 "containers:\n  - name: c\n    resources: {limits: {nvidia.com/gpu: lots}}\n",
                 "in.yaml:7:"},
        BadInput{"BadQuantityField",
                 "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a}\nspec:\n  "
                 "containers:\n  - name: c\n    resources: {limits: {nvidia.com/gpu: lots}}\n",
                 "Pod a/p: spec.containers[0].resources.limits.nvidia.com/gpu"},
        BadInput{"MissingName", "apiVersion: v1\nkind: Namespace\nmetadata: {}\n",
                 "in.yaml:3:11: Namespace: metadata.name: required"},
        BadInput{"MissingKind", "apiVersion: v1\nmetadata: {name: x}\n", "kind: required"},
        BadInput{"BadRoleRef",
                 "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: "
                 "{name: b}\nroleRef: {kind: Role, name: r}\n",
                 "in.yaml:4:10: ClusterRoleBinding b: roleRef.kind"},
        BadInput{"BadSelectorOperator",
                 "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: p, "
                 "namespace: a}\nspec:\n  podSelector:\n    matchExpressions:\n    - {key: app, "
                 "operator: Is}\n",
                 "in.yaml:7:7: NetworkPolicy a/p: spec.podSelector.matchExpressions[0].operator"},
        BadInput{"YamlSyntax", "apiVersion: v1\nkind: [Node\n", "in.yaml:"},
        BadInput{"JsonSyntax", "{\"kind\": \"Node\",, }", "in.yaml:1:"},
        BadInput{"KueueFieldThroughGovern",
                 "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: "
                 "cq}\nspec:\n  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    "
                 "flavors:\n    - name: f\n      resources: [{name: nvidia.com/gpu, "
                 "nominalQuota: -3}]\n",
                 "in.yaml:9:"},
        BadInput{"ItemsNotAList", "apiVersion: v1\nkind: List\nitems: {a: b}\n",
                 "in.yaml:3:8: List: items"}),
    [](const auto& info) { return info.param.name; });

TEST(Loader, DirectoriesContributeTheirJsonAndYamlFiles) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "steward_audit_loader_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "a.yaml") << "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n";
  std::ofstream(dir / "b.json")
      << R"({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "b"}})";
  std::ofstream(dir / "notes.txt") << "not an object";
  ObjectSet o;
  Status s = LoadPaths({dir.string()}, &o);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(o.namespaces.size(), 2u);
  EXPECT_EQ(o.namespaces[0].meta.ref.name, "a");
  EXPECT_EQ(o.namespaces[1].meta.ref.name, "b");
  Status missing = LoadPaths({(dir / "nope.yaml").string()}, &o);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("nope.yaml"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace steward::audit

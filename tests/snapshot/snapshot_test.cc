#include "snapshot/snapshot.h"

#include <gtest/gtest.h>

#include "twin/scenario.h"

namespace steward::snapshot {
namespace {

kube::Node Node(const std::string& name) {
  kube::Node n;
  n.metadata.name = name;
  n.metadata.labels["nvidia.com/gpu.product"] = "NVIDIA-H100-80GB-HBM3";
  n.capacity = {{"nvidia.com/gpu", "8"}};
  return n;
}

TEST(SnapshotTest, NoGpuNodeIsAClearError) {
  ClusterObjects o;
  o.source = "https://api";
  kube::Node cpu;
  cpu.metadata.name = "cpu";
  o.nodes = {cpu};
  Result<Snapshot> s = BuildSnapshot(o, {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("no node with GPUs"), std::string::npos);
}

TEST(SnapshotTest, WithoutKueueEveryTeamMayUseTheWholeClusterAndTheScenarioParses) {
  ClusterObjects o;
  o.source = "https://api";
  o.nodes = {Node("a"), Node("b")};
  kube::Pod p;
  p.metadata.namespace_name = "ml";
  p.metadata.name = "solo";
  kube::Container c;
  c.resources.requests["nvidia.com/gpu"] = "4";
  p.containers = {c};
  p.node_name = "a";
  o.pods = {p};
  Result<Snapshot> s = BuildSnapshot(o, {});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->kueue_yaml.empty());
  EXPECT_EQ(s->team_quota_gpus.at("ml"), 16);
  Result<twin::Scenario> sc = twin::ParseScenario(ScenarioYaml(*s), "snap.yaml");
  ASSERT_TRUE(sc.ok()) << sc.status().message();
  EXPECT_EQ(sc->pools.size(), 1u);
  EXPECT_EQ(sc->pools[0].nodes, 2);
  ASSERT_EQ(sc->teams.size(), 1u);
  EXPECT_EQ(sc->policies.admission, "fifo-quota");
  ASSERT_EQ(sc->traces.size(), 1u);
  const std::string csv = WorkloadsCsv(*s);
  EXPECT_NE(csv.find("0,solo,ml,batch,1,4,86400"), std::string::npos) << csv;
}

TEST(SnapshotTest, KueueObjectsBecomeAPolicyAndTeamQuotas) {
  ClusterObjects o;
  o.nodes = {Node("a")};
  kube::Pod p;
  p.metadata.namespace_name = "ml";
  p.metadata.name = "x";
  p.metadata.labels["kueue.x-k8s.io/queue-name"] = "lq";
  kube::Container c;
  c.resources.requests["nvidia.com/gpu"] = "1";
  p.containers = {c};
  p.node_name = "a";
  o.pods = {p};
  kube::Namespace ns;
  ns.metadata.name = "ml";
  o.namespaces = {ns};
  using nlohmann::json;
  o.custom["resourceflavors"] = {
      {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
       {"kind", "ResourceFlavor"},
       {"metadata", {{"name", "f"}, {"uid", "u1"}, {"resourceVersion", "9"}}},
       {"spec", json::object()}}};
  o.custom["clusterqueues"] = {
      {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
       {"kind", "ClusterQueue"},
       {"metadata", {{"name", "cq"}}},
       {"spec",
        {{"namespaceSelector", json::object()},
         {"resourceGroups",
          {{{"coveredResources", {"nvidia.com/gpu"}},
            {"flavors",
             {{{"name", "f"},
               {"resources", {{{"name", "nvidia.com/gpu"}, {"nominalQuota", "6"}}}}}}}}}}}},
       {"status", {{"admittedWorkloads", 1}}}}};
  o.custom["localqueues"] = {{{"apiVersion", "kueue.x-k8s.io/v1beta1"},
                              {"kind", "LocalQueue"},
                              {"metadata", {{"name", "lq"}, {"namespace", "ml"}}},
                              {"spec", {{"clusterQueue", "cq"}}}}};
  Result<Snapshot> s = BuildSnapshot(o, {});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->policy_objects, 3);
  EXPECT_EQ(s->team_quota_gpus.at("ml"), 6);
  EXPECT_NE(s->kueue_yaml.find("kind: ClusterQueue"), std::string::npos);
  EXPECT_EQ(s->kueue_yaml.find("admittedWorkloads"), std::string::npos);  // No status.
  Result<twin::Scenario> sc = twin::ParseScenario(ScenarioYaml(*s), "snap.yaml");
  ASSERT_TRUE(sc.ok()) << sc.status().message();
  EXPECT_EQ(sc->policies.admission, "kueue");
  // A ClusterQueue whose quota is not a quantity is refused with its name.
  o.custom["clusterqueues"][0]["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]
          ["nominalQuota"] = "lots";
  Result<Snapshot> bad = BuildSnapshot(o, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cq"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace steward::snapshot

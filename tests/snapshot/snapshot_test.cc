#include "snapshot/snapshot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "twin/build_cluster.h"
#include "twin/scenario.h"
#include "twin/trace.h"

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

// A waiting Kueue Workload of two GPU pod sets (one with minCount) is written in the trace's long
// form, and the twin reads it back as the same pod sets.
TEST(SnapshotTest, WaitingWorkloadsPodSetsRoundTripThroughTheTrace) {
  ClusterObjects o;
  o.source = "https://api";
  o.nodes = {Node("a"), Node("b")};
  using nlohmann::json;
  auto pod_set = [](const std::string& name, int count, const char* gpus) {
    return json{
        {"name", name},
        {"count", count},
        {"template",
         {{"spec",
           {{"containers", {{{"resources", {{"requests", {{"nvidia.com/gpu", gpus}}}}}}}}}}}}};
  };
  json worker = pod_set("worker", 4, "2");
  worker["minCount"] = 2;
  o.custom["workloads"] = {
      {{"metadata",
        {{"name", "job-mp"},
         {"namespace", "ml"},
         {"creationTimestamp", "2026-01-01T00:00:00Z"},
         {"ownerReferences", {{{"kind", "Job"}, {"name", "mp"}}}}}},
       {"spec", {{"queueName", "ml"}, {"podSets", {pod_set("head", 1, "1"), worker}}}}}};
  Result<Snapshot> s = BuildSnapshot(o, {});
  ASSERT_TRUE(s.ok()) << s.status().message();
  const std::string csv = WorkloadsCsv(*s);
  EXPECT_NE(csv.find(",pod_sets\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("head:1:1;worker:4:2:2"), std::string::npos) << csv;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("steward-snapshot-pod-sets-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(WriteSnapshot(*s, dir).ok());
  Result<twin::Scenario> sc = twin::LoadScenario(dir / kScenarioFile);
  ASSERT_TRUE(sc.ok()) << sc.status().message();
  Result<model::Cluster> cluster = twin::BuildCluster(*sc);
  ASSERT_TRUE(cluster.ok());
  Result<twin::TraceLoad> load = twin::LoadTrace(sc->traces[0], *sc, *cluster);
  ASSERT_TRUE(load.ok()) << load.status().message();
  ASSERT_EQ(load->workloads.size(), 1u);
  const std::vector<model::PodSet>& sets = load->workloads[0].pod_sets;
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].name, "head");
  EXPECT_EQ(sets[0].count, 1);
  EXPECT_EQ(sets[0].gpus_per_pod, 1);
  EXPECT_EQ(sets[1].name, "worker");
  EXPECT_EQ(sets[1].count, 4);
  EXPECT_EQ(sets[1].gpus_per_pod, 2);
  EXPECT_EQ(sets[1].min_count, 2);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace steward::snapshot

#include "twin/trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "twin/build_cluster.h"
#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

using ::testing::HasSubstr;

std::string Data(const std::string& f) {
  return std::string(STEWARD_SOURCE_DIR) + "/tests/twin/testdata/" + f;
}

TEST(TraceTest, StewardCsvReplays) {
  Scenario s = testing::MustParse(
      testing::SmallScenarioYaml(2, "a:16", "traces: [{path: " + Data("jobs.csv") + "}]\n"));
  auto t = Twin::Create(s);
  ASSERT_TRUE(t.ok()) << t.status().message();
  Report r = (*t)->Run();
  EXPECT_EQ(r.workloads_submitted, 2);
  EXPECT_EQ(r.workloads_completed, 2);
  // 16 GPUs x 2 h at SM 0.6, plus 1 GPU x 0.5 h at 0.3.
  EXPECT_NEAR(r.sm_active_gpu_hours, 16 * 2 * 0.6 + 0.5 * 0.3, 1e-9);
  // The optional queue column names the LocalQueue; empty means the team's own.
  EXPECT_EQ((*t)->FindRun("train-a")->spec.queue, "lq-train");
  EXPECT_EQ((*t)->FindRun("ci-1")->spec.queue, "a");
  // The optional labels column: key=value pairs separated by ';'.
  EXPECT_EQ(
      (*t)->FindRun("train-a")->spec.labels,
      (std::map<std::string, std::string>{{"app", "llm"}, {"steward.io/reclaim-exempt", "true"}}));
  EXPECT_TRUE((*t)->FindRun("ci-1")->spec.labels.empty());
}

TEST(TraceTest, BadLabelNamesLineAndColumn) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(2, "a:16", ""));
  TraceSpec spec;
  spec.path = Data("bad_labels.csv");
  auto cluster = BuildCluster(s);
  Result<TraceLoad> load = LoadTrace(spec, s, *cluster);
  ASSERT_FALSE(load.ok());
  EXPECT_THAT(load.status().message(),
              HasSubstr("bad_labels.csv:3:7: labels: 'novalue' is not key=value"));
}

TEST(TraceTest, BadFieldNamesLineAndColumn) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(2, "a:16", ""));
  TraceSpec spec;
  spec.path = Data("bad_jobs.csv");
  auto cluster = BuildCluster(s);
  Result<TraceLoad> load = LoadTrace(spec, s, *cluster);
  ASSERT_FALSE(load.ok());
  EXPECT_THAT(load.status().message(),
              HasSubstr("bad_jobs.csv:3:6: gpus_per_pod: 'two' is not an integer"));
}

TEST(TraceTest, PodSetsColumnGivesSeveralPodSetsAndRowsWithoutItStayShort) {
  Scenario s = testing::MustParse(
      testing::SmallScenarioYaml(2, "a:16", "traces: [{path: " + Data("pod_sets.csv") + "}]\n"));
  auto cluster = BuildCluster(s);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  Result<TraceLoad> load = LoadTrace(s.traces[0], s, *cluster);
  ASSERT_TRUE(load.ok()) << load.status().message();
  ASSERT_EQ(load->workloads.size(), 2u);
  const auto& mpi = load->workloads[0].pod_sets;
  ASSERT_EQ(mpi.size(), 2u);
  EXPECT_EQ(mpi[0].name, "launcher");
  EXPECT_EQ(mpi[0].count, 1);
  EXPECT_EQ(mpi[0].gpus_per_pod, 1);
  EXPECT_EQ(mpi[1].name, "worker");
  EXPECT_EQ(mpi[1].count, 2);
  EXPECT_EQ(mpi[1].gpus_per_pod, 4);
  const auto& single = load->workloads[1].pod_sets;
  ASSERT_EQ(single.size(), 1u);
  EXPECT_EQ(single[0].name, "worker");
  EXPECT_EQ(single[0].count, 2);
  EXPECT_EQ(single[0].gpus_per_pod, 2);
  auto t = Twin::Create(s);
  ASSERT_TRUE(t.ok()) << t.status().message();
  Report r = (*t)->Run();
  EXPECT_EQ(r.workloads_completed, 2);
  // (1 + 2 x 4) GPUs x 1 h + 2 x 2 GPUs x 0.5 h, at the default SM-active 0.5.
  EXPECT_NEAR(r.sm_active_gpu_hours, (9 * 1.0 + 4 * 0.5) * 0.5, 1e-9);
}

TEST(TraceTest, BadPodSetsNameLineColumnAndWhat) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(2, "a:16", ""));
  auto cluster = BuildCluster(s);
  ASSERT_TRUE(cluster.ok());
  TraceSpec spec;
  spec.path = Data("bad_pod_sets.csv");
  Result<TraceLoad> load = LoadTrace(spec, s, *cluster);
  ASSERT_FALSE(load.ok());
  EXPECT_THAT(load.status().message(),
              HasSubstr("bad_pod_sets.csv:3:7: pod_sets: pod set 'worker': count 'two' is not an "
                        "integer"));
  const std::string header =
      "submit_seconds,name,team,kind,pods,gpus_per_pod,pod_sets,duration_seconds\n";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"0,j,a,training,2,,w:2:4,60",
       "2:7: pod_sets: give either pod_sets or pods and gpus_per_pod"},
      {"0,j,a,training,,8,w:2:4,60",
       "2:7: pod_sets: give either pod_sets or pods and gpus_per_pod"},
      {"0,j,a,inference,,,w:2:4,60",
       "2:7: pod_sets: an inference service's replicas are one pod set"},
      {"0,j,a,training,,,w:2,60", "2:7: pod_sets: 'w:2' is not name:count:gpus_per_pod"},
      {"0,j,a,training,,,w:1:1;w:2:4,60", "2:7: pod_sets: pod set 'w' twice"},
      {"0,j,a,training,,,Worker:1:1,60",
       "2:7: pod_sets: pod set name 'Worker' must be a DNS label"},
      {"0,j,a,training,,,w:0:1,60", "2:7: pod_sets: pod set 'w': count 0 must lie in [1, 1000000]"},
      {"0,j,a,training,,,w:1:65,60",
       "2:7: pod_sets: pod set 'w': gpus_per_pod 65 must lie in [1, 64]"},
      {"0,j,a,training,,,w:1:16,60",
       "2:7: pod_sets: a pod of 16 GPUs (pod set 'w') is larger than any node: the largest has 8"},
      {"0,j,a,training,,,;,60", "2:7: pod_sets: no pod set"},
      {"0,j,a,training,,,w:4:2:0,60", "2:7: pod_sets: pod set 'w': min_count 0 must lie in [1, 4]"},
      {"0,j,a,training,,,w:4:2:5,60", "2:7: pod_sets: pod set 'w': min_count 5 must lie in [1, 4]"},
      {"0,j,a,training,,,w:4:2:2:1,60",
       "2:7: pod_sets: 'w:4:2:2:1' is not name:count:gpus_per_pod[:min_count]"},
  };
  for (const auto& [row, want] : bad) {
    spec.path = testing::WriteTempFile("bad_row.csv", header + row + "\n");
    load = LoadTrace(spec, s, *cluster);
    ASSERT_FALSE(load.ok()) << row;
    EXPECT_THAT(load.status().message(), HasSubstr("bad_row.csv:" + want)) << row;
  }
  // Without a gpus_per_pod column every row must give its pod sets.
  spec.path = testing::WriteTempFile(
      "no_gpus.csv", "submit_seconds,name,team,kind,pod_sets,duration_seconds\n0,j,a,batch,,60\n");
  load = LoadTrace(spec, s, *cluster);
  ASSERT_FALSE(load.ok());
  EXPECT_THAT(load.status().message(), HasSubstr("no_gpus.csv:2:5: pod_sets: empty"));
}

// A fourth field is the pod set's min_count (Kueue's minCount); without it there is none.
TEST(TraceTest, PodSetsColumnMinCount) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(2, "a:16", ""));
  auto cluster = BuildCluster(s);
  ASSERT_TRUE(cluster.ok());
  TraceSpec spec;
  spec.path = testing::WriteTempFile(
      "min_count.csv",
      "submit_seconds,name,team,kind,pod_sets,duration_seconds\n0,j,a,batch,l:1:1;w:4:2:2,60\n");
  Result<TraceLoad> load = LoadTrace(spec, s, *cluster);
  ASSERT_TRUE(load.ok()) << load.status().message();
  const auto& sets = load->workloads.at(0).pod_sets;
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].min_count, 0);
  EXPECT_EQ(sets[1].count, 4);
  EXPECT_EQ(sets[1].gpus_per_pod, 2);
  EXPECT_EQ(sets[1].min_count, 2);
}

// cpu_milli / memory_mib columns: per pod, every pod set's; more than any node is an error.
TEST(TraceTest, CpuAndMemoryColumnsGoToEveryPodSet) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(2, "a:16", ""));
  auto cluster = BuildCluster(s);
  ASSERT_TRUE(cluster.ok());
  const int64_t node_cpu = cluster->node(0).cpu_milli;
  TraceSpec spec;
  spec.path = testing::WriteTempFile(
      "cpu.csv",
      "submit_seconds,name,team,kind,pod_sets,gpus_per_pod,cpu_milli,memory_mib,duration_seconds\n"
      "0,j,a,training,l:1:1;w:2:4,,8000,65536,60\n0,k,a,batch,,1,,,60\n");
  Result<TraceLoad> load = LoadTrace(spec, s, *cluster);
  ASSERT_TRUE(load.ok()) << load.status().message();
  for (const model::PodSet& ps : load->workloads[0].pod_sets) {
    EXPECT_EQ(ps.cpu_milli, 8000);
    EXPECT_EQ(ps.memory_mib, 65536);
  }
  EXPECT_EQ(load->workloads[1].pod_sets[0].cpu_milli, 0);
  spec.path = testing::WriteTempFile(
      "big_cpu.csv",
      "submit_seconds,name,team,kind,gpus_per_pod,cpu_milli,duration_seconds\n0,j,a,batch,1," +
          std::to_string(node_cpu + 1) + ",60\n");
  load = LoadTrace(spec, s, *cluster);
  ASSERT_FALSE(load.ok());
  EXPECT_THAT(load.status().message(),
              HasSubstr("big_cpu.csv:2:6: cpu_milli: a pod of " + std::to_string(node_cpu + 1) +
                        " milli-CPU is larger than any node"));
}

TEST(TraceTest, AlibabaNodesAndPods) {
  Scenario s = testing::MustParse("cluster: {alibaba_nodes: " + Data("alibaba_nodes.csv") +
                                  "}\nteams: [{name: ali, quota_gpus: 100}]\nhorizon_days: 1\n"
                                  "traces: [{format: alibaba, path: " +
                                  Data("alibaba_pods.csv") + ", team: ali, queue: ali-lq}]\n");
  auto cluster = BuildCluster(s);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  EXPECT_EQ(cluster->total_gpus(), 10);  // The CPU-only node is not part of the GPU twin.
  EXPECT_EQ(cluster->pools().size(), 2u);
  Result<TraceLoad> load = LoadTrace(s.traces[0], s, *cluster);
  ASSERT_TRUE(load.ok()) << load.status().message();
  ASSERT_EQ(load->workloads.size(), 2u);
  EXPECT_EQ(load->skipped_cpu_only, 1);
  EXPECT_DOUBLE_EQ(load->workloads[0].usage.used_gpu_fraction, 0.5);  // gpu_milli 500.
  EXPECT_EQ(load->workloads[1].gpu_model, cluster->FindGpuModel("V100M32"));
  EXPECT_EQ(load->workloads[1].duration, Seconds(7200));
  EXPECT_EQ(load->workloads[0].queue, "ali-lq");
  auto t = Twin::Create(s);
  ASSERT_TRUE(t.ok());
  Report r = (*t)->Run();
  EXPECT_EQ(r.workloads_completed, 2);
}

TEST(TraceTest, RealAlibabaTraceLoads) {
  const char* env = std::getenv("STEWARD_DATA");
  const std::string dir = env ? env : std::string(STEWARD_SOURCE_DIR) + "/../shared/data";
  const std::string nodes = dir + "/alibaba-gpu-v2023/openb_node_list_gpu_node.csv";
  if (!std::filesystem::exists(nodes)) GTEST_SKIP() << "no shared data at " << dir;
  Scenario s =
      testing::MustParse("cluster: {alibaba_nodes: " + nodes +
                         "}\nteams: [{name: ali, quota_gpus: 100000}]\n"
                         "traces: [{format: alibaba, path: " +
                         dir + "/alibaba-gpu-v2023/openb_pod_list_default.csv, team: ali}]\n");
  auto cluster = BuildCluster(s);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  EXPECT_EQ(cluster->total_gpus(), 6212);
  EXPECT_EQ(cluster->nodes().size(), 1213u);
  Result<TraceLoad> load = LoadTrace(s.traces[0], s, *cluster);
  ASSERT_TRUE(load.ok()) << load.status().message();
  EXPECT_EQ(load->workloads.size() + load->skipped_cpu_only, 8152u);
}

}  // namespace
}  // namespace steward::twin

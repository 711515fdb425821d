#include "twin/build_cluster.h"
#include "twin/trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

#include "place/experiment.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "place/alibaba_trace.h"
#include "test_util.h"

namespace steward::place {
namespace {

using testing::Node;

TEST(AlibabaTraceTest, ParsesPodsWithOptionalGpuSpec) {
  auto pods = ParseAlibabaPods(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos\n"
      "p1,4000,8192,1,500,,LS\np0,1000,0,2,1000,T4|G2,BE\np2,8000,1024,0,0,,LS\n",
      "pods.csv");
  ASSERT_TRUE(pods.ok()) << pods.status().ToString();
  ASSERT_EQ(pods->size(), 3u);
  EXPECT_EQ((*pods)[1].gpu_spec, "T4|G2");
  auto no_spec =
      ParseAlibabaPods("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,1,1,1000\n", "m.csv");
  ASSERT_TRUE(no_spec.ok());
  EXPECT_EQ((*no_spec)[0].gpu_spec, "");
}

TEST(AlibabaTraceTest, ErrorsNameFileLineColumnAndField) {
  auto bad =
      ParseAlibabaPods("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,1,x1,1000\n", "pods.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "pods.csv:2:7: num_gpu: 'x1' is not an integer");
  auto range =
      ParseAlibabaPods("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,1,1,1001\n", "pods.csv");
  ASSERT_FALSE(range.ok());
  EXPECT_NE(range.status().message().find("pods.csv:2:9: gpu_milli"), std::string::npos);
  auto missing = ParseAlibabaNodes("sn,cpu_milli,gpu,model\nn,1,1,T4\n", "nodes.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "nodes.csv:1: memory_mib: required column missing from header");
  auto short_row = ParseAlibabaNodes("sn,cpu_milli,memory_mib,gpu,model\nn,1,1\n", "nodes.csv");
  ASSERT_FALSE(short_row.ok());
  EXPECT_NE(short_row.status().message().find("nodes.csv:2"), std::string::npos);
  auto shared_multi =
      ParseAlibabaPods("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,1,2,500\n", "p.csv");
  EXPECT_FALSE(shared_multi.ok());
}

PreparedTrace Tiny(int pods, int gpus_per_pod = 1) {
  std::vector<TracePod> tp;
  for (int i = 0; i < pods; ++i)
    tp.push_back({"pod" + std::to_string(i), 1000, 1024, gpus_per_pod, 1000, ""});
  auto t = PrepareTrace({Node("a", 64, 2), Node("b", 64, 2)}, tp, "tiny");
  EXPECT_TRUE(t.ok());
  return std::move(t).value();
}

TEST(ExperimentTest, TunesUpWithClonesUntilTheNextWouldOvershoot) {
  // Capacity 4000 milli, target 1.3 × 4000 = 5200; 3 pods of 1000 -> 2 clones -> 5000.
  PreparedTrace t = Tiny(3);
  Rng rng(42);
  Sequence s = MakeSequence(t, ExperimentConfig{}, rng);
  EXPECT_EQ(s.pods.size(), 5u);
  EXPECT_EQ(s.ranks.size(), 2u);
  EXPECT_NE(s.ranks[0], s.ranks[1]);
}

TEST(ExperimentTest, TunesDownByRemovingPods) {
  PreparedTrace t = Tiny(8);  // 8000 > 5200: remove 3 pods.
  Rng rng(42);
  EXPECT_EQ(MakeSequence(t, ExperimentConfig{}, rng).pods.size(), 5u);
}

TEST(ExperimentTest, CurvesFollowArrivalOnTinyCluster) {
  // 5 whole-GPU pods on 4 GPUs: levels 25, 50, 75, 100 allocate exactly; the 5th fails.
  PreparedTrace t = Tiny(3);
  auto r = RunExperiment(t, "bestfit", ExperimentConfig{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->pods, 5);
  EXPECT_EQ(r->failed_pods, 1);
  EXPECT_EQ(r->alloc_ratio.size(), 131u);
  EXPECT_DOUBLE_EQ(r->alloc_ratio[25], 25.0);
  EXPECT_DOUBLE_EQ(r->alloc_ratio[100], 100.0);
  EXPECT_DOUBLE_EQ(r->alloc_ratio[125], 100.0);
  EXPECT_DOUBLE_EQ(r->alloc_ratio[130], 100.0);  // No event at 130: the last level carries.
  EXPECT_DOUBLE_EQ(r->final_alloc, 100.0);
}

// The real trace, one workload and one seed per policy (fast): lands near the paper's mean.
std::filesystem::path DataDir() {
  if (const char* d = std::getenv("STEWARD_DATA")) return d;
  return std::filesystem::path(STEWARD_SOURCE_DIR) / ".." / "shared" / "data";
}

TEST(ExperimentTest, RealTraceDefaultWorkloadMatchesPaperForFgdAndBestFit) {
  std::filesystem::path dir = DataDir() / "alibaba-gpu-v2023";
  if (!std::filesystem::exists(dir / "openb_pod_list_default.csv")) GTEST_SKIP() << "no data";
  auto nodes = LoadAlibabaNodes(dir / "openb_node_list_gpu_node.csv");
  ASSERT_TRUE(nodes.ok());
  auto pods = LoadAlibabaPods(dir / "openb_pod_list_default.csv");
  ASSERT_TRUE(pods.ok());
  auto t = PrepareTrace(*nodes, *pods, "openb_pod_list_default");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->cluster.total_gpus(), 6212);
  EXPECT_EQ(t->pods.size(), 8152u);
  // Published means (fgd-protocol.md §8.1): FGD 95.39, Best-Fit 93.08; one seed sits within
  // ~0.4 points of the mean.
  auto fgd = RunExperiment(*t, "fgd", ExperimentConfig{});
  ASSERT_TRUE(fgd.ok());
  EXPECT_NEAR(fgd->alloc_ratio[130], 95.39, 0.6);
  EXPECT_NEAR(fgd->alloc_ratio[80], 80.02, 0.1);
  auto bf = RunExperiment(*t, "bestfit", ExperimentConfig{});
  ASSERT_TRUE(bf.ok());
  EXPECT_NEAR(bf->alloc_ratio[130], 93.08, 0.6);
  EXPECT_GT(bf->frag_ratio[90], fgd->frag_ratio[90]);  // FGD fragments less (Fig. 7).
}

}  // namespace
}  // namespace steward::place

// CPU and memory per pod (generators' cpu_milli / memory_mib): placement checks them against
// each node's allocatable and gives them back when the pod leaves; without them the twin counts
// GPUs only.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

using ::testing::HasSubstr;
using testing::MakeTwin;
using testing::SmallScenarioYaml;

// Two nodes of 8 GPUs, 64 cores and 512 GiB each; four 2-GPU batch jobs of one hour arrive at
// once. `per_pod` is the generator's extra fields.
std::string FourJobs(const std::string& per_pod) {
  return testing::FourTwoGpuJobsYaml("cpu_milli: 64000, memory_mib: 524288,", per_pod);
}

int Running(const Twin& t) { return testing::RunningWorkloads(t); }

TEST(PodResourcesTest, CpuPerPodLimitsPodsPerNodeAndIsGivenBack) {
  // GPUs alone: all four fit at once (8 of 16 GPUs).
  auto gpus_only = MakeTwin(FourJobs(""));
  gpus_only->RunUntil(kSimStart + Seconds(600));
  EXPECT_EQ(Running(*gpus_only), 4);
  // 40 of a node's 64 cores per pod: one pod per node, two jobs wait for the first two.
  auto cpu = MakeTwin(FourJobs(", cpu_milli: 40000"));
  cpu->RunUntil(kSimStart + Seconds(600));
  EXPECT_EQ(Running(*cpu), 2);
  std::set<model::NodeId> nodes;
  for (const WorkloadRun& r : cpu->runs())
    if (!r.pods.empty()) nodes.insert(r.pods[0].node);
  EXPECT_EQ(nodes.size(), 2u);
  // The CPU is given back when they finish: the other two run, and all four complete.
  Report r = cpu->Run();
  EXPECT_EQ(r.workloads_completed, 4);
}

TEST(PodResourcesTest, MemoryPerPodLimitsPodsPerNode) {
  // 300 GiB of a node's 512 per pod: one pod per node.
  auto mem = MakeTwin(FourJobs(", memory_mib: 307200"));
  mem->RunUntil(kSimStart + Seconds(600));
  EXPECT_EQ(Running(*mem), 2);
  // 200 GiB: two per node, all four at once.
  auto fits = MakeTwin(FourJobs(", memory_mib: 204800"));
  fits->RunUntil(kSimStart + Seconds(600));
  EXPECT_EQ(Running(*fits), 4);
}

TEST(PodResourcesTest, PodLargerThanAnyNodeIsAnErrorNamingTheField) {
  Result<Scenario> s = ParseScenario(FourJobs(", cpu_milli: 65000"), "big.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(),
              HasSubstr("generators[0].cpu_milli: a pod of 65000 milli-CPU is larger than any "
                        "node: the largest has 64000"));
  s = ParseScenario(FourJobs(", memory_mib: -1"), "neg.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("generators[0].memory_mib: must lie in [0, "));
}

// Kueue would preempt `lo` for `mid` (quota full, lower priority), but the node's CPU would still
// be short: one node of 8 GPUs and 64 cores; hi (training, 4 GPUs, 48 cores) and lo (batch, 4
// GPUs, 8 cores) run; mid (training, 4 GPUs, 20 cores) would find 16 cores once lo is gone.
// The twin evicts nobody and mid waits with the reason that says so.
TEST(PodResourcesTest, NoPreemptionWhenTheFreedNodeWouldStillLackCpu) {
  TwinOptions o;
  // team-a's ClusterQueue: 8 GPUs and 128 cores (the CPU quota never binds; the node does).
  o.policy_files = {testing::WriteTempFile(
      "preempt-cpu-policy.yaml",
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: h100}\n---\n"
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: team-a}\n"
      "spec:\n  namespaceSelector: {}\n  preemption: {withinClusterQueue: LowerPriority}\n"
      "  resourceGroups:\n  - coveredResources: [nvidia.com/gpu, cpu]\n    flavors:\n"
      "    - name: h100\n      resources:\n      - {name: nvidia.com/gpu, nominalQuota: 8}\n"
      "      - {name: cpu, nominalQuota: 128}\n---\n"
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\n"
      "metadata: {name: team-a, namespace: team-a}\nspec: {clusterQueue: team-a}\n")};
  auto job = [](const char* name, const char* kind, double start, int cores) {
    return testing::Once(
        name, "team-a", kind, 1, start,
        "gpus_per_pod: 4, duration_hours: 10, cpu_milli: " + std::to_string(cores * 1000));
  };
  auto t = Twin::Create(testing::MustParse(SmallScenarioYaml(
                            1, "team-a:0,team-b:0",
                            "generators:\n" + job("hi", "training", 0, 48) +
                                job("lo", "batch", 0, 8) + job("mid", "training", 0.1, 20),
                            1, "cpu_milli: 64000,")),
                        o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  (*t)->RunUntil(kSimStart + Minutes(30));
  const WorkloadRun* lo = (*t)->FindRun("lo-000000");
  const WorkloadRun* mid = (*t)->FindRun("mid-000000");
  ASSERT_NE(lo, nullptr);
  ASSERT_NE(mid, nullptr);
  EXPECT_NE(lo->state, RunState::kPending) << "lo was evicted for nothing";
  EXPECT_EQ(lo->epoch, 0u) << "lo was torn down";
  EXPECT_EQ(mid->state, RunState::kPending);
  EXPECT_EQ(mid->reason_detail, "preempting would free quota but no node its pods fit on");
}

}  // namespace
}  // namespace steward::twin

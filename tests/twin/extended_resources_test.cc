// Extended resources (pools' and generators' `extended_resources`): placement checks a pod's
// request against each node's allocatable and gives it back when the pod leaves; scenario and
// trace errors name the field; the API front shows them on nodes and pods.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "twin/build_cluster.h"
#include "twin/trace.h"
#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

using ::testing::HasSubstr;
using testing::MakeTwin;
using testing::SmallScenarioYaml;

// Two nodes of 8 GPUs, each with `fpgas` example.com/fpga; four 2-GPU batch jobs of one hour
// arrive at once, `per_pod` the generator's extra fields.
std::string FourJobs(int fpgas, const std::string& per_pod) {
  return testing::FourTwoGpuJobsYaml(
      "extended_resources: {example.com/fpga: " + std::to_string(fpgas) + "},", per_pod);
}

int Running(const Twin& t) { return testing::RunningWorkloads(t); }

TEST(ExtendedResourcesTest, RequestLimitsPodsPerNodeAndIsGivenBack) {
  // Without a request the FPGAs do not matter: all four run (8 of 16 GPUs).
  auto none = MakeTwin(FourJobs(1, ""));
  none->RunUntil(kSimStart + Seconds(600));
  EXPECT_EQ(Running(*none), 4);
  // One FPGA per pod, one per node: one job per node, two wait for the first two.
  auto fpga = MakeTwin(FourJobs(1, ", extended_resources: {example.com/fpga: 1}"));
  fpga->RunUntil(kSimStart + Seconds(600));
  EXPECT_EQ(Running(*fpga), 2);
  std::set<model::NodeId> nodes;
  for (const WorkloadRun& r : fpga->runs())
    if (!r.pods.empty()) nodes.insert(r.pods[0].node);
  EXPECT_EQ(nodes.size(), 2u);
  // Given back at the finish: the other two run, and all four complete.
  Report r = fpga->Run();
  EXPECT_EQ(r.workloads_completed, 4);
  // Two per node: all four at once.
  auto two = MakeTwin(FourJobs(2, ", extended_resources: {example.com/fpga: 1}"));
  two->RunUntil(kSimStart + Seconds(600));
  EXPECT_EQ(Running(*two), 4);
}

TEST(ExtendedResourcesTest, ScenarioErrorsNameTheField) {
  auto error = [](const std::string& yaml) {
    Result<Scenario> s = ParseScenario(yaml, "x.yaml");
    return s.ok() ? std::string("ok") : s.status().message();
  };
  EXPECT_THAT(error(FourJobs(1, ", extended_resources: {example.com/fpga: 2}")),
              HasSubstr("generators[0].extended_resources.example.com/fpga: a pod asks for 2 "
                        "example.com/fpga but the most any node has is 1"));
  EXPECT_THAT(error(FourJobs(1, ", extended_resources: {example.com/nic: 1}")),
              HasSubstr("generators[0].extended_resources.example.com/nic: a pod asks for 1 "
                        "example.com/nic but the most any node has is 0"));
  EXPECT_THAT(error(FourJobs(1, ", extended_resources: {example.com/fpga: 0}")),
              HasSubstr("generators[0].extended_resources.example.com/fpga: must be a whole "
                        "count in [1, "));
  EXPECT_THAT(error(FourJobs(1, ", extended_resources: {nvidia.com/gpu: 1}")),
              HasSubstr("generators[0].extended_resources.nvidia.com/gpu: not an extended "
                        "resource name"));
  EXPECT_THAT(error(FourJobs(1, ", extended_resources: {fpga: 1}")),
              HasSubstr("generators[0].extended_resources.fpga: not an extended resource name"));
  const std::string five = testing::FourTwoGpuJobsYaml(
      "extended_resources: {a.io/a: 1, a.io/b: 1, a.io/c: 1, a.io/d: 1, a.io/e: 1},", "");
  EXPECT_THAT(error(five), HasSubstr("cluster.pools[0].extended_resources.a.io/e: more than 4 "
                                     "distinct extended resources"));
  // The line of the field is named.
  EXPECT_THAT(error(FourJobs(1, ", extended_resources: {example.com/fpga: 2}")),
              HasSubstr("x.yaml:"));
}

TEST(ExtendedResourcesTest, TraceColumnGivesEveryPodSetAndErrorsNameLineAndColumn) {
  auto scenario = testing::MustParse(FourJobs(2, ""));
  auto cluster = BuildCluster(scenario);
  ASSERT_TRUE(cluster.ok());
  auto load = [&](const std::string& csv) {
    TraceSpec spec;
    spec.path = testing::WriteTempFile("extended.csv", csv);
    return LoadTrace(spec, scenario, *cluster);
  };
  const std::string header =
      "submit_seconds,name,team,kind,gpus_per_pod,extended_resources,duration_seconds\n";
  auto ok = load(header + "0,j,a,batch,1,example.com/fpga=2,60\n0,k,a,batch,1,,60\n");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  ASSERT_EQ(ok->workloads.size(), 2u);
  const auto& want = std::map<std::string, int64_t>{{"example.com/fpga", 2}};
  EXPECT_EQ(ok->workloads[0].pod_sets[0].extended_resources, want);
  EXPECT_TRUE(ok->workloads[1].pod_sets[0].extended_resources.empty());
  auto too_many = load(header + "0,j,a,batch,1,example.com/fpga=3,60\n");
  ASSERT_FALSE(too_many.ok());
  EXPECT_THAT(too_many.status().message(), HasSubstr(":2:"));
  EXPECT_THAT(too_many.status().message(), HasSubstr("extended_resources"));
  EXPECT_THAT(too_many.status().message(), HasSubstr("a pod of 3 example.com/fpga is larger than "
                                                     "any node: the largest has 2"));
  auto unknown = load(header + "0,j,a,batch,1,example.com/nic=1,60\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("no node has extended resource "
                                                    "'example.com/nic'"));
  auto malformed = load(header + "0,j,a,batch,1,example.com/fpga,60\n");
  ASSERT_FALSE(malformed.ok());
  EXPECT_THAT(malformed.status().message(), HasSubstr("is not name=count"));
}

}  // namespace
}  // namespace steward::twin

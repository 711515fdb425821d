// Semantic checks of a scenario (issue 16): a generator whose pods no node can hold, a GPU
// model no node has, a team nobody defined; each an error naming file, line and field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "twin/build_cluster.h"
#include "twin/scenario.h"
#include "twin/trace.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

using ::testing::HasSubstr;

// Two pools: 8-GPU H100 nodes and 4-GPU L4 nodes; A100 is declared but on no node.
std::string Cluster(const std::string& generator_fields) {
  return "name: s\ncluster:\n"
         "  gpu_models: [{name: H100}, {name: L4}, {name: A100}]\n"
         "  pools:\n"
         "    - {name: big, nodes: 2, gpus_per_node: 8, gpu_model: H100}\n"
         "    - {name: small, nodes: 2, gpus_per_node: 4, gpu_model: L4}\n"
         "teams: [{name: a, quota_gpus: 16}]\n"
         "generators:\n"
         "  - name: g\n"
         "    team: a\n"
         "    kind: batch\n"
         "    arrival: {rate_per_hour: 1}\n" +
         generator_fields;
}

Status Parse(const std::string& yaml) { return ParseScenario(yaml, "s.yaml").status(); }

TEST(ScenarioSemanticsTest, PodsThatFitTheLargestNodeOfTheirModelAreAccepted) {
  for (const char* fields :
       {"    gpus_per_pod: 8\n", "    gpus_per_pod: 4\n    gpu_model: L4\n",
        "    gpus_per_pod: {dist: choice, values: [1, 2, 8]}\n",
        "    gpus_per_pod: {dist: uniform, min: 1, max: 8}\n",
        "    gpus_per_pod: {dist: lognormal, median: 2, sigma: 1}\n",
        // A value with weight 0 is never drawn.
        "    gpus_per_pod: {dist: choice, values: [8, 16], weights: [1, 0]}\n"}) {
    Status s = Parse(Cluster(fields));
    EXPECT_TRUE(s.ok()) << fields << s.message();
  }
}

TEST(ScenarioSemanticsTest, APodLargerThanEveryNodeIsAnErrorNamingTheField) {
  struct Case {
    std::string fields, expect;
  };
  const Case cases[] = {
      {"    gpus_per_pod: 16\n",
       "s.yaml:13:19: generators[0].gpus_per_pod: a pod of 16 GPUs is larger than any node: the "
       "largest has 8 GPUs"},
      {"    gpus_per_pod: 8\n    gpu_model: L4\n",
       "s.yaml:13:19: generators[0].gpus_per_pod: a pod of 8 GPUs is larger than any node: the "
       "largest node of GPU model 'L4' has 4 GPUs"},
      {"    gpus_per_pod: {dist: choice, values: [1, 16]}\n", "a pod of 16 GPUs"},
      {"    gpus_per_pod: {dist: uniform, min: 1, max: 12}\n", "a pod of 12 GPUs"},
      // Unbounded shapes are capped; only when even the smallest draw is too large.
      {"    gpus_per_pod: {dist: lognormal, median: 20, sigma: 1, min: 10}\n", "a pod of 10 GPUs"},
  };
  for (const Case& c : cases) {
    Status s = Parse(Cluster(c.fields));
    ASSERT_FALSE(s.ok()) << c.fields;
    EXPECT_THAT(s.message(), HasSubstr(c.expect)) << c.fields;
  }
}

TEST(ScenarioSemanticsTest, AGpuModelNoNodeHasIsAnError) {
  Status s = Parse(Cluster("    gpu_model: A100\n"));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("s.yaml:13:16: generators[0].gpu_model: no node has GPU "
                                     "model 'A100'"));
}

TEST(ScenarioSemanticsTest, UnknownTeamsAreErrors) {
  std::string yaml = Cluster("");
  yaml.replace(yaml.find("team: a"), 7, "team: b");
  Status g = Parse(yaml);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.message(), HasSubstr("s.yaml:10:11: generators[0].team: unknown team 'b'"));

  Status t = Parse(Cluster("traces:\n  - {path: t.csv, team: nobody}\n"));
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.message(), HasSubstr("s.yaml:14:25: traces[0].team: unknown team 'nobody'"));

  // A trace row naming a team the scenario does not define.
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(2, "a:16", ""));
  TraceSpec spec;
  spec.path = testing::WriteTempFile(
      "team.csv",
      "submit_seconds,name,team,kind,pods,gpus_per_pod,duration_seconds\n0,j,zz,batch,1,1,60\n");
  Result<TraceLoad> r = LoadTrace(spec, s, BuildCluster(s).value());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("team.csv:2:3: team: unknown team 'zz'"));
}

TEST(ScenarioSemanticsTest, ATraceRowLargerThanEveryNodeIsAnError) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(2, "a:16", ""));  // 8-GPU nodes.
  TraceSpec spec;
  spec.path =
      testing::WriteTempFile("big.csv",
                             "submit_seconds,name,team,kind,pods,gpus_per_pod,duration_seconds\n"
                             "0,fits,a,batch,1,8,60\n"
                             "0,huge,a,batch,1,16,60\n");
  Result<TraceLoad> r = LoadTrace(spec, s, BuildCluster(s).value());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("big.csv:3:6: gpus_per_pod: a pod of 16 GPUs is larger than any node"));
}

}  // namespace
}  // namespace steward::twin

// A generator's `pod_sets:` (issue 17): several pod sets per workload, as Kueue's spec.podSets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "twin/scenario.h"
#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

using ::testing::HasSubstr;

std::string WithGenerator(const std::string& fields) {
  return testing::SmallScenarioYaml(
      2, "a:16",
      "generators:\n  - name: g\n    team: a\n    kind: training\n"
      "    arrival: {process: once, count: 1}\n    duration_hours: 2\n" +
          fields);
}

TEST(PodSetsTest, EveryWorkloadHasEveryPodSetAndHoldsTheirSum) {
  auto t = testing::MakeTwin(
      WithGenerator("    pod_sets:\n      - {name: launcher, count: 1, gpus_per_pod: 1}\n"
                    "      - {name: worker, count: 2, gpus_per_pod: 4}\n"));
  t->RunUntil(kSimStart + Minutes(10));
  const WorkloadRun* run = t->FindRun("g-000000");
  ASSERT_NE(run, nullptr);
  ASSERT_EQ(run->spec.pod_sets.size(), 2u);
  EXPECT_EQ(run->spec.pod_sets[0].name, "launcher");
  EXPECT_EQ(run->spec.pod_sets[1].count, 2);
  EXPECT_EQ(run->spec.TotalGpus(), 9);  // 1 + 2 x 4
  EXPECT_TRUE(run->spec.IsGang());      // Three pods, placed together.
  EXPECT_EQ(run->state, RunState::kRunning);
  EXPECT_EQ(run->pods.size(), 3u);
  EXPECT_EQ(run->GpusHeld(), 9);
}

TEST(PodSetsTest, BadPodSetsAreErrorsNamingTheField) {
  struct Case {
    const char* fields;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{
           {"    pods: 2\n    pod_sets: [{name: w, count: 2, gpus_per_pod: 8}]\n",
            "generators[0].pod_sets: give either pod_sets or pods and gpus_per_pod"},
           {"    pod_sets: []\n", "pod_sets: must be a non-empty list"},
           {"    pod_sets: [{name: w}, {name: w}]\n", "pod_sets[1].name: pod set 'w' twice"},
           {"    pod_sets: [{name: Worker}]\n", "pod_sets[0].name: must be a DNS label"},
           {"    pod_sets: [{name: w, count: 0}]\n", "pod_sets[0].count: must lie in [1, "},
           {"    pod_sets: [{name: w, gpus_per_pod: 16}]\n",
            "pod_sets: a pod of 16 GPUs is larger than any node"},
           {"    pod_sets: [{name: w, replicas: 2}]\n", "pod_sets[0].replicas: unknown field"},
       }) {
    SCOPED_TRACE(c.fields);
    auto s = ParseScenario(WithGenerator(c.fields), "s.yaml");
    ASSERT_FALSE(s.ok());
    EXPECT_THAT(s.status().message(), HasSubstr(c.error));
  }
  auto inference = ParseScenario(
      testing::SmallScenarioYaml(2, "a:16",
                                 "generators:\n  - {name: svc, team: a, kind: inference,"
                                 " arrival: {process: once, count: 1}, min_replicas: 1,"
                                 " max_replicas: 2, pod_sets: [{name: r}]}\n"),
      "s.yaml");
  ASSERT_FALSE(inference.ok());
  EXPECT_THAT(inference.status().message(), HasSubstr("one pod set"));
}

}  // namespace
}  // namespace steward::twin

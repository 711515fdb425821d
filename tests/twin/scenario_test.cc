#include "twin/scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "twin/build_cluster.h"
#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

using ::testing::HasSubstr;

TEST(ScenarioTest, DefaultIsTheDocumentedCluster) {
  Scenario s = DefaultScenario();
  Result<model::Cluster> c = BuildCluster(s);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->total_gpus(), 10240);
  EXPECT_EQ(c->nodes().size(), 1280u);
  EXPECT_EQ(c->num_racks(), 320);  // Racks of 4.
  EXPECT_EQ(c->num_leaves(), 40);  // Scalable units of 32 nodes.
  EXPECT_EQ(s.teams.size(), 6u);
  EXPECT_EQ(c->node(0).labels.at("nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3");
  EXPECT_TRUE(c->SameLeaf(0, 31));
  EXPECT_FALSE(c->SameLeaf(31, 32));
}

struct BadCase {
  const char* name;
  std::string yaml;
  std::string expect;  // Substring of the error.
};

class ScenarioErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(ScenarioErrorTest, NamesLineAndField) {
  Result<Scenario> s = ParseScenario(GetParam().yaml, "bad.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr(GetParam().expect));
  EXPECT_THAT(s.status().message(), HasSubstr("bad.yaml:"));
}

const std::string kCluster =
    "cluster:\n  gpu_models: [{name: H100}]\n  pools: [{name: p, nodes: 2, gpu_model: H100}]\n";

INSTANTIATE_TEST_SUITE_P(
    Cases, ScenarioErrorTest,
    ::testing::Values(
        BadCase{"syntax", "cluster:\n  nodes: [1\n", "bad.yaml:3"},
        BadCase{"unknown_top_field", kCluster + "teams: []\nhorizon: 3\n",
                "bad.yaml:5:1: horizon: unknown field"},
        BadCase{"missing_teams", kCluster, "teams: is required"},
        BadCase{"negative_nodes",
                "cluster:\n  gpu_models: [{name: H100}]\n  pools: [{name: p, nodes: -2, gpu_model: "
                "H100}]\nteams: []\n",
                "cluster.pools[0].nodes: must be > 0"},
        BadCase{"unknown_model",
                "cluster:\n  gpu_models: [{name: H100}]\n  pools: [{name: p, nodes: 2, gpu_model: "
                "A100}]\nteams: []\n",
                "bad.yaml:3:42: cluster.pools[0].gpu_model: unknown GPU model 'A100'"},
        BadCase{"not_a_number", kCluster + "teams: [{name: a, quota_gpus: lots}]\n",
                "teams[0].quota_gpus: cannot read 'lots' as an integer"},
        BadCase{"unknown_team",
                kCluster + "teams: [{name: a, quota_gpus: 8}]\ngenerators:\n"
                           "  - {name: g, team: b, kind: batch, arrival: {rate_per_hour: 1}}\n",
                "bad.yaml:6:21: generators[0].team: unknown team 'b'"},
        BadCase{"bad_kind",
                kCluster + "teams: [{name: a, quota_gpus: 8}]\ngenerators:\n"
                           "  - {name: g, team: a, kind: daemon, arrival: {rate_per_hour: 1}}\n",
                "generators[0].kind: unknown kind 'daemon'"},
        BadCase{"bad_distribution",
                kCluster + "teams: [{name: a, quota_gpus: 8}]\ngenerators:\n"
                           "  - {name: g, team: a, kind: batch, arrival: {rate_per_hour: 1},\n"
                           "     duration_hours: {dist: gamma, mean: 2}}\n",
                "generators[0].duration_hours.dist: unknown distribution 'gamma'"},
        BadCase{"fraction_out_of_range",
                kCluster + "teams: [{name: a, quota_gpus: 8}]\ngenerators:\n"
                           "  - {name: g, team: a, kind: batch, arrival: {rate_per_hour: 1},\n"
                           "     usage: {sm_active: 1.5}}\n",
                "generators[0].usage.sm_active: must lie in [0, 1]"},
        BadCase{"integer_field_fraction", kCluster + "teams: [{name: a, quota_gpus: 8.5}]\n",
                "teams[0].quota_gpus: must be an integer"},
        BadCase{"unknown_mig_profile",
                kCluster + "teams: [{name: a, quota_gpus: 8}]\ngenerators:\n"
                           "  - {name: g, team: a, kind: notebook, arrival: {rate_per_hour: 1},\n"
                           "     mig_profile: 1g.5gb}\n",
                "bad.yaml:7:19: generators[0].mig_profile: unknown MIG profile '1g.5gb' "
                "(1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb)"},
        BadCase{"mig_needs_capable_model",
                kCluster + "teams: [{name: a, quota_gpus: 8}]\ngenerators:\n"
                           "  - {name: g, team: a, kind: notebook, arrival: {rate_per_hour: 1},\n"
                           "     mig_profile: 2g.20gb}\n",
                "generators[0].mig_profile: no GPU model of the cluster is mig_capable"},
        BadCase{"right_size_unknown_mig_profile",
                kCluster + "teams: [{name: a, quota_gpus: 8}]\ngenerators:\n"
                           "  - {name: g, team: a, kind: notebook, arrival: {rate_per_hour: 1},\n"
                           "     right_size: {mig_profile: 2g.30gb}}\n",
                "generators[0].right_size.mig_profile: unknown MIG profile '2g.30gb'"},
        BadCase{"right_size_mig_needs_capable_model",
                kCluster + "teams: [{name: a, quota_gpus: 8}]\ngenerators:\n"
                           "  - {name: g, team: a, kind: notebook, arrival: {rate_per_hour: 1},\n"
                           "     right_size: {mig_profile: 2g.20gb}}\n",
                "generators[0].right_size.mig_profile: no GPU model of the cluster is mig_capable"},
        BadCase{"right_size_unknown_field",
                kCluster + "teams: [{name: a, quota_gpus: 8}]\ngenerators:\n"
                           "  - {name: g, team: a, kind: batch, arrival: {rate_per_hour: 1},\n"
                           "     right_size: {to_used: true}}\n",
                "generators[0].right_size.to_used: unknown field"},
        BadCase{"shared_pod_takes_one_gpu",
                kCluster + "teams: [{name: a, quota_gpus: 8}]\ngenerators:\n"
                           "  - {name: g, team: a, kind: batch, arrival: {rate_per_hour: 1},\n"
                           "     gpus_per_pod: 2, gpu_milli: 500}\n",
                "generators[0].gpus_per_pod: must be 1 for a pod that shares a GPU"},
        BadCase{"gpu_milli_range",
                kCluster + "teams: [{name: a, quota_gpus: 8}]\ngenerators:\n"
                           "  - {name: g, team: a, kind: batch, arrival: {rate_per_hour: 1},\n"
                           "     gpu_milli: 1500}\n",
                "generators[0].gpu_milli: must lie in [1, 1000]"},
        BadCase{"too_many_gpus_per_node",
                "cluster:\n  gpu_models: [{name: H100}]\n  pools: [{name: p, nodes: 2, gpu_model: "
                "H100, gpus_per_node: 32}]\nteams: []\n",
                "cluster.pools[0].gpus_per_node: must lie in [1, 16]"},
        BadCase{"reclaim_order",
                kCluster + "teams: []\nreclaim:\n  notify_after_minutes: 90\n"
                           "  reclaim_after_minutes: 60\n",
                "bad.yaml:7:26: reclaim.reclaim_after_minutes: must be greater than "
                "notify_after_minutes (90)"},
        BadCase{"reclaim_kind", kCluster + "teams: []\nreclaim: {kinds: [notebook, daemon]}\n",
                "bad.yaml:5:29: reclaim.kinds[1]: unknown kind 'daemon'"},
        BadCase{"reclaim_kind_twice", kCluster + "teams: []\nreclaim: {kinds: [ci, batch]}\n",
                "reclaim.kinds[1]: kind 'batch' is listed twice"},
        BadCase{"reclaim_threshold", kCluster + "teams: []\nreclaim: {idle_sm_active_below: 0}\n",
                "reclaim.idle_sm_active_below: must lie in (0, 1]"},
        BadCase{"reclaim_unknown_field", kCluster + "teams: []\nreclaim: {after: 3}\n",
                "reclaim.after: unknown field"},
        BadCase{"reclaim_exempt_not_a_map", kCluster + "teams: []\nreclaim: {exempt_labels: [a]}\n",
                "reclaim.exempt_labels: must be a mapping"},
        BadCase{"generator_labels",
                kCluster + "teams: [{name: a, quota_gpus: 8}]\ngenerators:\n"
                           "  - {name: g, team: a, kind: batch, arrival: {rate_per_hour: 1},\n"
                           "     labels: {app: [x]}}\n",
                "generators[0].labels.app: must be a scalar"},
        BadCase{"empty", "", "empty scenario"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ScenarioTest, DistributionsParse) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(
      2, "a:16",
      "generators:\n  - name: g\n    team: a\n    kind: batch\n    arrival: {rate_per_hour: 2}\n"
      "    gpus_per_pod: {dist: choice, values: [1, 8], weights: [3, 1]}\n"
      "    duration_hours: {dist: lognormal, median: 2, sigma: 0.5, max: 10}\n"));
  ASSERT_EQ(s.generators.size(), 1u);
  EXPECT_DOUBLE_EQ(s.generators[0].gpus_per_pod.Mean(), (3 * 1 + 1 * 8) / 4.0);
  EXPECT_EQ(s.generators[0].duration_hours.kind, Distribution::Kind::kLogNormal);
  EXPECT_EQ(s.generators[0].tier, model::Tier::kDev);
}

TEST(ScenarioTest, GeneratorQueueDefaultsToTheTeam) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(
      2, "a:16",
      "generators:\n"
      "  - {name: named, team: a, queue: lq-named, kind: batch, arrival: {process: once, count: "
      "1}}\n"
      "  - {name: plain, team: a, kind: batch, arrival: {process: once, count: 1}}\n"));
  auto t = Twin::Create(s);
  ASSERT_TRUE(t.ok()) << t.status().message();
  (*t)->RunUntil(kSimStart);
  ASSERT_EQ((*t)->runs().size(), 2u);
  for (const WorkloadRun& run : (*t)->runs())
    EXPECT_EQ(run.spec.queue, run.spec.name.starts_with("named") ? "lq-named" : "a")
        << run.spec.name;
}

TEST(ScenarioTest, ReclaimDefaultsAreOffAndDryRun) {
  Scenario s = DefaultScenario();
  EXPECT_FALSE(s.reclaim.enabled);  // The default scenario stays naive.
  EXPECT_TRUE(s.reclaim.dry_run);
  EXPECT_EQ(s.reclaim.notify_after_minutes, 30);
  EXPECT_EQ(s.reclaim.reclaim_after_minutes, 60);
  EXPECT_EQ(s.reclaim.idle_sm_active_below, 0.05);
  EXPECT_EQ(s.reclaim.kinds, std::vector<model::WorkloadKind>{model::WorkloadKind::kNotebook});
  EXPECT_EQ(s.reclaim.exempt_labels.at("steward.io/reclaim-exempt"), "true");
}

TEST(ScenarioTest, ReclaimSectionParses) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(
      1, "a:8",
      "reclaim:\n  enabled: true\n  dry_run: false\n  notify_after_minutes: 10\n"
      "  reclaim_after_minutes: 20\n  idle_sm_active_below: 0.1\n  kinds: [notebook, ci]\n"
      "  exempt_labels: {serving: \"*\"}\n"));
  EXPECT_TRUE(s.reclaim.enabled);
  EXPECT_FALSE(s.reclaim.dry_run);
  EXPECT_EQ(s.reclaim.notify_after_minutes, 10);
  EXPECT_EQ(s.reclaim.reclaim_after_minutes, 20);
  EXPECT_EQ(s.reclaim.idle_sm_active_below, 0.1);
  EXPECT_EQ(s.reclaim.kinds, (std::vector<model::WorkloadKind>{model::WorkloadKind::kNotebook,
                                                               model::WorkloadKind::kBatch}));
  // The scenario's exemptions replace the default ones.
  EXPECT_EQ(s.reclaim.exempt_labels, (std::map<std::string, std::string>{{"serving", "*"}}));
}

TEST(ScenarioTest, GeneratedWorkloadsCarryTheirLabelsAndGenerator) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(
      2, "a:16",
      "generators:\n"
      "  - {name: nb, team: a, kind: notebook, arrival: {process: once, count: 1},"
      " labels: {app: jupyter, steward.io/reclaim-exempt: \"true\"}}\n"));
  auto t = Twin::Create(s);
  ASSERT_TRUE(t.ok()) << t.status().message();
  (*t)->RunUntil(kSimStart);
  ASSERT_EQ((*t)->runs().size(), 1u);
  EXPECT_EQ((*t)->runs()[0].spec.labels,
            (std::map<std::string, std::string>{{"app", "jupyter"},
                                                {"app.kubernetes.io/name", "nb"},
                                                {"steward.io/reclaim-exempt", "true"}}));
  // A generator's own app.kubernetes.io/name wins over its name.
  Scenario named = testing::MustParse(testing::SmallScenarioYaml(
      2, "a:16",
      "generators:\n"
      "  - {name: nb, team: a, kind: notebook, arrival: {process: once, count: 1},"
      " labels: {app.kubernetes.io/name: jupyterlab}}\n"));
  auto n = Twin::Create(named);
  ASSERT_TRUE(n.ok());
  (*n)->RunUntil(kSimStart);
  EXPECT_EQ((*n)->runs()[0].spec.labels.at("app.kubernetes.io/name"), "jupyterlab");
}

}  // namespace
}  // namespace steward::twin

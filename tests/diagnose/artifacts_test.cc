// diagnose --out: the after scenario's edits, the Kueue YAML's limits and the directory rule,
// on a small hand-written scenario whose expected values are worked out in the comments.
#include "diagnose/artifacts.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "diagnose/after_scenario.h"
#include "govern/policy_io.h"

namespace steward::diagnose {
namespace {

namespace fs = std::filesystem;

constexpr const char* kScenario = R"(name: small
seed: 3
horizon_days: 1
cluster:
  gpu_models: [{name: H100, product_label: NVIDIA-H100-80GB-HBM3, mig_capable: true}]
  pools: [{name: h100, nodes: 4, gpus_per_node: 8, gpu_model: H100}]
teams:
  - {name: serve, quota_gpus: 16}
  - {name: train, quota_gpus: 16}
policies:
  admission: fifo-quota
generators:
  - name: api
    team: serve
    kind: inference
    arrival: {process: once, count: 2}
    gpus_per_pod: 1
    min_replicas: 3
    max_replicas: 6
    usage: {busy: 0.3, sm_active: 0.2}
  - name: lora
    team: train
    kind: training
    arrival: {rate_per_hour: 1}
    gpus_per_pod: 8
    usage: {used_gpu_fraction: 0.5, busy: 0.8, sm_active: 0.4}
  - name: sweep
    team: train
    kind: batch
    arrival: {rate_per_hour: 1}
    gpus_per_pod: {dist: choice, values: [2, 8], weights: [1, 1]}
)";

twin::Scenario Parsed() {
  Result<twin::Scenario> s = twin::ParseScenario(kScenario, "small.yaml");
  EXPECT_TRUE(s.ok()) << s.status().message();
  return *s;
}

RightSizing Row(const std::string& cls, int requested, int recommended, int sevenths = 0) {
  RightSizing r;
  r.workload_class = cls;
  r.gpus_per_pod = requested;
  r.recommended_gpus_per_pod = recommended;
  r.mig_sevenths = sevenths;
  r.gpu_hours_freed_by_sharing = sevenths > 0 ? 120 : 0;
  return r;
}

fs::path FreshDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("steward_artifacts_test_" + name);
  fs::remove_all(dir);
  return dir;
}

TEST(AfterScenarioTest, AppliesEachChangeToItsGenerators) {
  ScenarioChanges c;
  c.governance_file = "kueue.yaml";
  c.reclaim = ReclaimChange{};
  c.right_sizing = {Row("serve/api", 1, 1, 2), Row("train/lora", 8, 4), Row("train/sweep", 8, 4),
                    Row("train/none", 8, 4)};
  Result<AfterScenario> a = RewriteScenario(kScenario, "small.yaml", c);
  ASSERT_TRUE(a.ok()) << a.status().message();
  // It parses as a scenario, with the kueue admitter and enforcing reclaim.
  Result<twin::Scenario> s = twin::ParseScenario(a->yaml, "after.yaml");
  ASSERT_TRUE(s.ok()) << s.status().message() << "\n" << a->yaml;
  EXPECT_EQ(s->name, "small-after");
  EXPECT_EQ(s->policies.admission, "kueue");
  ASSERT_EQ(s->policies.governance.size(), 1u);
  EXPECT_TRUE(s->reclaim.enabled);
  EXPECT_FALSE(s->reclaim.dry_run);
  // api: a 2g instance; SM-active 0.2 x 7/2 = 0.7, busy max(0.3, 0.7) = 0.7.
  EXPECT_EQ(s->generators[0].mig_profile, "2g.20gb");
  EXPECT_DOUBLE_EQ(s->generators[0].usage.sm_active.value, 0.7);
  EXPECT_DOUBLE_EQ(s->generators[0].usage.busy.value, 0.7);
  // lora: 4 GPUs instead of 8, driving the same 4 (used fraction 0.5 x 8 / 4 = 1).
  EXPECT_DOUBLE_EQ(s->generators[1].gpus_per_pod.value, 4);
  EXPECT_DOUBLE_EQ(s->generators[1].usage.used_gpu_fraction.value, 1);
  // sweep: the 8 of its choice becomes 4, the 2 stays.
  EXPECT_EQ(s->generators[2].gpus_per_pod.values, (std::vector<double>{2, 4}));
  ASSERT_EQ(a->mig_rows_applied.size(), 1u);
  ASSERT_EQ(a->skipped.size(), 1u);  // train/none has no generator.
  EXPECT_NE(a->skipped[0].find("train/none"), std::string::npos);
}

TEST(AfterScenarioTest, MigScaledCapsAtOne) {
  EXPECT_DOUBLE_EQ(MigScaled(0.3, 3), 0.7);
  EXPECT_DOUBLE_EQ(MigScaled(0.5, 2), 1.0);
  EXPECT_DOUBLE_EQ(MigScaled(0.5, 0), 0.5);
}

TEST(ArtifactsTest, KueueYamlLoadsWithLimits) {
  const twin::Scenario s = Parsed();
  govern::Policy policy;
  ASSERT_TRUE(govern::ImportYaml(CohortKueueYaml(s, 5), "kueue.yaml", &policy).ok());
  ASSERT_TRUE(govern::ValidatePolicy(&policy).ok());
  ASSERT_EQ(policy.cluster_queues.size(), 2u);
  ASSERT_EQ(policy.cohorts.size(), 1u);
  for (const govern::ClusterQueue& cq : policy.cluster_queues) {
    const govern::ResourceQuota& q = cq.resource_groups[0].flavors[0].resources[0];
    EXPECT_EQ(cq.cohort, "small");
    ASSERT_TRUE(q.borrowing_limit && q.lending_limit);
    EXPECT_EQ(*q.borrowing_limit, 16);
    // serve keeps its services' floor: 2 services x 3 replicas x 1 GPU = 6, lends 10.
    EXPECT_EQ(*q.lending_limit, cq.name == "serve" ? 10 : 16) << cq.name;
  }
  EXPECT_EQ(policy.local_queues.size(), 2u);
}

Diagnosis CaseDiagnosis() {
  Diagnosis d;
  d.source.frames = 12;
  d.source.step_seconds = 3600;  // 12 hours diagnosed.
  d.waste_gpu_hours_by_cause = {{"queueing", 50}, {"zombie", 30}, {"dataloader_stall", 20}};
  d.recommendations = {{"queueing", "borrow", 50, 0},
                       {"zombie", "reclaim", 30, 0},
                       {"dataloader_stall", "fix the loader", 20, 0}};
  d.right_sizing = {Row("serve/api", 1, 1, 2), Row("train/lora", 8, 4), Row("train/full", 8, 8)};
  return d;
}

TEST(ArtifactsTest, WritesOneArtifactPerRecommendationAndTheScenario) {
  const twin::Scenario s = Parsed();
  const fs::path dir = FreshDir("write");
  ArtifactOptions o;
  o.dir = dir;
  o.scenario = &s;
  o.scenario_text = kScenario;
  o.scenario_dir = ".";
  Result<ArtifactSet> set = WriteArtifacts(CaseDiagnosis(), o);
  ASSERT_TRUE(set.ok()) << set.status().message();
  std::map<std::string, std::string> kind_of;
  for (const Artifact& a : set->artifacts) {
    kind_of[a.path] = a.kind;
    EXPECT_TRUE(fs::exists(dir / a.path)) << a.path;
  }
  EXPECT_EQ(kind_of["kueue.yaml"], "kueue");
  EXPECT_EQ(kind_of["reclaim.yaml"], "idle-reclaim");
  EXPECT_EQ(kind_of["after.yaml"], "scenario");
  // Two rows change something (train/full keeps 8): two patches.
  EXPECT_EQ(kind_of["rightsize/serve-api-1gpu.patch.yaml"], "right-sizing-patch");
  EXPECT_EQ(kind_of["rightsize/train-lora-8gpu.patch.yaml"], "right-sizing-patch");
  EXPECT_EQ(set->artifacts.size(), 5u);
  ASSERT_EQ(set->not_written.size(), 1u);
  EXPECT_EQ(set->not_written[0].cause, "dataloader_stall");
  // The cohort holds the MIG row's freed GPUs as devices: 120 GPU-hours / 12 h = 10.
  const YAML::Node patch = YAML::LoadFile((dir / "rightsize/serve-api-1gpu.patch.yaml").string());
  const YAML::Node c = patch["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["name"].as<std::string>(), "replica");  // The twin's service container.
  EXPECT_EQ(c["resources"]["limits"]["nvidia.com/mig-2g.20gb"].as<std::string>(), "1");
  EXPECT_TRUE(c["resources"]["limits"]["nvidia.com/gpu"].IsNull());
  govern::Policy policy;
  std::ifstream in(dir / "kueue.yaml");
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_TRUE(govern::ImportYaml(text.str(), "kueue.yaml", &policy).ok());
  ASSERT_EQ(policy.cohorts[0].resource_groups[0].flavors[0].resources[0].nominal, 10);

  // Writing again into the same directory replaces the previous artifacts ...
  EXPECT_TRUE(CheckOutDir(dir).ok());
  ASSERT_TRUE(WriteArtifacts(CaseDiagnosis(), o).ok());
  // ... but a file nobody listed is refused, by name.
  std::ofstream(dir / "mine.txt") << "x";
  const Status refused = CheckOutDir(dir);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("mine.txt"), std::string::npos) << refused.message();
  fs::remove_all(dir);
}

TEST(ArtifactsTest, WithoutAScenarioWritesWhatNeedsNoQuotas) {
  const fs::path dir = FreshDir("noscenario");
  ArtifactOptions o;
  o.dir = dir;
  Result<ArtifactSet> set = WriteArtifacts(CaseDiagnosis(), o);
  ASSERT_TRUE(set.ok()) << set.status().message();
  for (const Artifact& a : set->artifacts) {
    EXPECT_NE(a.kind, "kueue");
    EXPECT_NE(a.kind, "scenario");
  }
  // queueing, dataloader_stall and the after scenario are not written, each with a reason.
  EXPECT_EQ(set->not_written.size(), 3u);
  const YAML::Node patch = YAML::LoadFile((dir / "rightsize/train-lora-8gpu.patch.yaml").string());
  EXPECT_EQ(patch["spec"]["template"]["spec"]["containers"][0]["name"].as<std::string>(),
            "CONTAINER");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace steward::diagnose

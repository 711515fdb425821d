// Import/export of Kueue and Volcano YAML: validation errors with positions, preserved unknown
// fields, max_usable, the Volcano mapping and the import -> export -> import round trip.
#include "govern/policy_io.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "govern/governance_engine.h"
#include "test_util.h"

namespace steward::govern {
namespace {

using ::testing::HasSubstr;

std::string Repo(const std::string& rel) { return std::string(STEWARD_SOURCE_DIR) + "/" + rel; }

nlohmann::json Json(const Policy& p) {
  auto j = PolicyToJson(p, -1, /*include_warnings=*/false);
  EXPECT_TRUE(j.ok()) << j.status().ToString();
  return nlohmann::json::parse(*j);
}

TEST(PolicyIoTest, SurfaceExampleMaxUsable) {
  Policy p = testing::MustImport(R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: h100}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: research}
spec:
  namespaceSelector: {}
  cohort: org
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu", cpu, memory]
    flavors:
    - name: h100
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 64, borrowingLimit: 16}
      - {name: cpu, nominalQuota: 500m}
      - {name: memory, nominalQuota: 1Gi, lendingLimit: 512Mi}
)");
  auto cq = Json(p)["cluster_queues"][0];
  EXPECT_EQ(cq["name"], "research");
  EXPECT_EQ(cq["cohort"], "org");
  auto gpu = cq["quotas"][0];
  EXPECT_EQ(gpu["nominal"], 64);
  EXPECT_EQ(gpu["borrowing_limit"], 16);
  EXPECT_TRUE(gpu["lending_limit"].is_null());
  EXPECT_EQ(gpu["max_usable"], 64);  // Alone in its cohort: nothing to borrow.
  EXPECT_DOUBLE_EQ(cq["quotas"][1]["nominal"].get<double>(), 0.5);  // CPU in cores.
  EXPECT_EQ(cq["quotas"][2]["nominal"], 1073741824);                // Bytes.
  EXPECT_EQ(cq["quotas"][2]["lending_limit"], 536870912);
  EXPECT_EQ(cq["quotas"][2]["max_usable"], 1073741824);  // 512Mi local + 512Mi pooled.
}

TEST(PolicyIoTest, ExampleFilesMaxUsable) {
  auto p = ImportPolicyFiles({Repo("examples/kueue/lending-limit.yaml")});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  auto j = Json(*p);
  EXPECT_DOUBLE_EQ(j["cluster_queues"][0]["quotas"][0]["max_usable"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(j["cluster_queues"][1]["quotas"][0]["max_usable"].get<double>(), 21.0);
  // gpu-org: research pool 64 + 128 + 16 = 208; org = 208 + (256 - 192) = 272.
  p = ImportPolicyFiles({Repo("examples/kueue/gpu-org.yaml")});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  auto e = GovernanceEngine::Create(*p);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->MaxUsable("inference", "h100", "nvidia.com/gpu"), 464);     // 192 + 272.
  EXPECT_EQ((*e)->MaxUsable("llm-training", "h100", "nvidia.com/gpu"), 192);  // 128 + BL 64.
  EXPECT_EQ((*e)->MaxUsable("notebooks", "h100", "nvidia.com/gpu"), 32);      // 16 + BL 16.
  // case 2: 256 + 256 in one cohort; with-limits caps borrowing at 128.
  p = ImportPolicyFiles({Repo("examples/case2/no-limits.yaml")});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*GovernanceEngine::Create(*p))->MaxUsable("team-a", "h100", "nvidia.com/gpu"), 512);
  p = ImportPolicyFiles({Repo("examples/case2/with-limits.yaml")});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*GovernanceEngine::Create(*p))->MaxUsable("team-a", "h100", "nvidia.com/gpu"), 384);
}

TEST(PolicyIoTest, RoundTripIsLossless) {
  for (const char* f : {"examples/kueue/gpu-org.yaml", "examples/kueue/lending-limit.yaml",
                        "examples/case2/no-limits.yaml", "examples/case2/with-limits.yaml",
                        "examples/volcano/queues.yaml", "examples/kueue/config.yaml",
                        "tests/govern/testdata/unknown-fields.yaml"}) {
    auto first = ImportPolicyFiles({Repo(f)});
    ASSERT_TRUE(first.ok()) << f << ": " << first.status().ToString();
    std::string yaml = ExportKueueYaml(*first);
    Policy second;
    ASSERT_TRUE(ImportYaml(yaml, "exported.yaml", &second).ok()) << yaml;
    ASSERT_TRUE(ValidatePolicy(&second).ok());
    EXPECT_EQ(Json(*first), Json(second)) << f << "\n" << yaml;
    EXPECT_EQ(ExportKueueYaml(second), yaml) << f;
  }
}

TEST(PolicyIoTest, UnknownFieldsArePreservedAndReported) {
  auto p = ImportPolicyFiles({Repo("tests/govern/testdata/unknown-fields.yaml")});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const ClusterQueue* cq = p->FindClusterQueue("cq");
  ASSERT_NE(cq, nullptr);
  EXPECT_EQ(cq->extra.count("spec.admissionChecks"), 1u);
  EXPECT_EQ(cq->extra.count("spec.futureField"), 1u);
  EXPECT_EQ(cq->extra.count("metadata.labels"), 1u);
  EXPECT_EQ(p->passthrough_documents.size(), 1u);  // The AdmissionCheck.
  std::string warnings;
  for (const auto& w : p->warnings) warnings += w + "\n";
  EXPECT_THAT(warnings, HasSubstr("unknown-fields.yaml:"));
  EXPECT_THAT(warnings, HasSubstr("spec.futureField"));
  EXPECT_THAT(warnings, HasSubstr("AdmissionCheck"));
  std::string out = ExportKueueYaml(*p);
  EXPECT_THAT(out, HasSubstr("futureField"));
  EXPECT_THAT(out, HasSubstr("admissionChecks"));
  EXPECT_THAT(out, HasSubstr("kind: AdmissionCheck"));
}

struct BadCase {
  const char* name;
  const char* spec;  // ClusterQueue spec lines (indented by 2).
  const char* want;  // Substring of the error.
};

TEST(PolicyIoTest, InvalidSpecsNameObjectFieldAndLine) {
  const BadCase cases[] = {
      {"bad quantity",
       "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"
       "      resources: [{name: cpu, nominalQuota: 12x}]\n",
       "test.yaml:10:45:"},
      {"bad quantity field",
       "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"
       "      resources: [{name: cpu, nominalQuota: 12x}]\n",
       "ClusterQueue bad: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"},
      {"missing nominal",
       "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"
       "      resources: [{name: cpu}]\n",
       "nominalQuota: required"},
      {"resource count",
       "  resourceGroups:\n  - coveredResources: [cpu, memory]\n    flavors:\n    - name: f\n"
       "      resources: [{name: cpu, nominalQuota: 1}]\n",
       "lists 1 resources but the group covers 2"},
      {"resource not covered",
       "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"
       "      resources: [{name: memory, nominalQuota: 1}]\n",
       "not in coveredResources"},
      {"borrowingLimit without cohort",
       "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"
       "      resources: [{name: cpu, nominalQuota: 1, borrowingLimit: 1}]\n",
       "borrowingLimit: must be null when cohort is empty"},
      {"lendingLimit above nominal",
       "  cohort: c\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"
       "      resources: [{name: cpu, nominalQuota: 1, lendingLimit: 2}]\n",
       "exceeds nominalQuota"},
      {"queueing strategy", "  queueingStrategy: Random\n",
       "spec.queueingStrategy: \"Random\" is not one of"},
      {"preemption value", "  preemption: {withinClusterQueue: Any}\n",
       "spec.preemption.withinClusterQueue"},
      {"borrow without reclaim", "  preemption: {borrowWithinCohort: {policy: LowerPriority}}\n",
       "requires reclaimWithinCohort"},
      {"flavor in two groups",
       "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors: [{name: f, resources: [{name: "
       "cpu, nominalQuota: 1}]}]\n"
       "  - coveredResources: [memory]\n    flavors: [{name: f, resources: [{name: memory, "
       "nominalQuota: 1}]}]\n",
       "more than one resource group"},
  };
  for (const auto& c : cases) {
    std::string yaml = std::string(
                           "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata:\n  "
                           "name: bad\nspec:\n") +
                       c.spec;
    Policy p;
    Status s = ImportYaml(yaml, "test.yaml", &p);
    ASSERT_FALSE(s.ok()) << c.name;
    EXPECT_THAT(s.message(), HasSubstr(c.want)) << c.name;
  }
  Policy p;
  Status s = ImportYaml("a: [1\n", "broken.yaml", &p);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("broken.yaml:"));
  s = ImportYaml(
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata: {name: "
      "x}\nvalue: high\n",
      "pc.yaml", &p);
  EXPECT_THAT(s.message(), HasSubstr("pc.yaml:4:"));
  EXPECT_THAT(s.message(), HasSubstr("WorkloadPriorityClass x: value"));
  s = ImportYaml(
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: q}\nspec: {}\n",
      "lq.yaml", &p);
  EXPECT_THAT(s.message(), HasSubstr("spec.clusterQueue: required"));
  Policy dup;
  ASSERT_TRUE(
      ImportYaml(
          "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: f}\n---\n"
          "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: f}\n",
          "dup.yaml", &dup)
          .ok());
  s = ValidatePolicy(&dup);
  EXPECT_THAT(s.message(), HasSubstr("ResourceFlavor f: duplicate name"));
}

TEST(PolicyIoTest, AcceptsV1beta2Aliases) {
  Policy p = testing::MustImport(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  cohortName: org
  flavorFungibility: {whenCanBorrow: Borrow, whenCanPreempt: Preempt}
)");
  EXPECT_EQ(p.cluster_queues[0].cohort, "org");
  EXPECT_EQ(p.cluster_queues[0].when_can_borrow, FungibilityPolicy::kMayStopSearch);
  EXPECT_EQ(p.cluster_queues[0].when_can_preempt, FungibilityPolicy::kMayStopSearch);
}

// Volcano: training deserved 64 / capability 96 / guarantee 32 -> nominal 64, BL 32, LL 32;
// serving deserved = guarantee 48 -> LL 0; research capability 32 only -> nominal 0, BL 32.
// Cluster 256 GPUs: cohort pool = 256 - (64 + 48 + 0) = 144; SQ = 144 + 32 + 0 + 0 = 176.
TEST(PolicyIoTest, VolcanoQueuesMapOntoTheEngine) {
  auto p = ImportPolicyFiles({Repo("examples/volcano/queues.yaml")});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const ClusterQueue* t = p->FindClusterQueue("training");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->origin, "volcano");
  EXPECT_DOUBLE_EQ(t->fair_weight, 4.0);
  const auto& gpu = t->resource_groups[0].flavors[0].resources;
  auto q =
      std::find_if(gpu.begin(), gpu.end(), [](auto& r) { return r.resource == "nvidia.com/gpu"; });
  EXPECT_EQ(q->nominal, 64);
  EXPECT_EQ(*q->borrowing_limit, 32);
  EXPECT_EQ(*q->lending_limit, 32);
  EXPECT_FALSE(p->FindClusterQueue("serving")->reclaimable);
  ASSERT_EQ(p->pod_groups.size(), 1u);
  EXPECT_EQ(p->pod_groups[0].min_member, 4);
  SetVolcanoClusterCapacity(&*p, {{"nvidia.com/gpu", 256, {}, {}}});
  auto e = GovernanceEngine::Create(*p);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)->MaxUsable("training", kVolcanoFlavor, "nvidia.com/gpu"), 96);  // capability.
  EXPECT_EQ((*e)->MaxUsable("research", kVolcanoFlavor, "nvidia.com/gpu"), 32);
  EXPECT_EQ((*e)->MaxUsable("serving", kVolcanoFlavor, "nvidia.com/gpu"), 48 + 176);
  // The PodGroup is a 4-pod gang of 8 GPUs each; CPU is not declared by every queue and is
  // ignored where undeclared (Volcano: unset = unlimited).
  WorkloadRequest r = PodGroupToRequest(p->pod_groups[0], 1);
  EXPECT_EQ(r.pod_sets[0].count, 4);
  Decision d = (*e)->TryAdmit(r, kSimStart);
  ASSERT_EQ(d.mode, AdmissionMode::kFit) << d.Message();
  ASSERT_TRUE((*e)->Admit(r, d, kSimStart).ok());
  EXPECT_EQ((*e)->Usage("training", kVolcanoFlavor, "nvidia.com/gpu"), 32);
  r.available_pods = 3;
  r.id = 2;
  EXPECT_EQ((*e)->TryAdmit(r, kSimStart).primary_reason(), PendingReason::kGangIncomplete);
  // Volcano validation: guarantee <= deserved <= capability.
  Policy bad;
  Status s = ImportYaml(R"(apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q}
spec:
  capability: {nvidia.com/gpu: 4}
  deserved: {nvidia.com/gpu: 8}
)",
                        "q.yaml", &bad);
  EXPECT_THAT(s.message(),
              HasSubstr("Queue q: spec.deserved.nvidia.com/gpu: deserved 8 exceeds capability 4"));
}

TEST(PolicyIoTest, ReclaimableFalseProtectsAVolcanoQueue) {
  Policy p = testing::MustImport(R"(apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: a}
spec: {deserved: {nvidia.com/gpu: 4}, reclaimable: false}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: b}
spec: {deserved: {nvidia.com/gpu: 4}}
)");
  for (bool reclaimable : {false, true}) {
    Policy q = p;
    q.cluster_queues[0].reclaimable = reclaimable;
    auto e = GovernanceEngine::Create(q);
    ASSERT_TRUE(e.ok());
    for (int i = 1; i <= 8; ++i) testing::MustAdmit(**e, testing::WorkloadBuilder(i, "a").Gpus(1));
    Decision d = (*e)->TryAdmit(testing::WorkloadBuilder(9, "b").Gpus(2), kSimStart);
    EXPECT_EQ(d.mode == AdmissionMode::kNeedsPreemption, reclaimable) << d.Message();
  }
}

// policy import --json has no cluster: a Volcano queue's max_usable is its capability (null
// without one), what the twin allows on any cluster at least that large.
TEST(PolicyIoTest, VolcanoMaxUsableIsTheCapability) {
  auto p = ImportPolicyFiles({Repo("examples/volcano/queues.yaml")});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const nlohmann::json j = Json(*p);
  std::map<std::string, nlohmann::json> gpu;
  for (const auto& cq : j["cluster_queues"])
    for (const auto& q : cq["quotas"])
      if (q["resource"] == "nvidia.com/gpu") gpu[cq["name"]] = q["max_usable"];
  EXPECT_EQ(gpu["training"], 96);  // deserved 64 + borrowing up to capability 96.
  EXPECT_EQ(gpu["research"], 32);  // capability 32, nothing deserved.
  EXPECT_TRUE(gpu["serving"].is_null()) << gpu["serving"];  // No capability: the cluster.
  // With the cluster known (the twin's 256 GPUs), the same queue gets the same 96.
  SetVolcanoClusterCapacity(&*p, {{"nvidia.com/gpu", 256, {}, {}}});
  auto e = GovernanceEngine::Create(*p);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->MaxUsable("training", kVolcanoFlavor, "nvidia.com/gpu"), 96);
}

// Volcano-only Queue fields are not ClusterQueue fields: export writes them as annotations,
// and import reads them back, so the round trip stays lossless and the YAML stays valid Kueue.
TEST(PolicyIoTest, VolcanoOnlyFieldsExportAsAnnotations) {
  Policy p = testing::MustImport(R"(apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q}
spec:
  deserved: {nvidia.com/gpu: 4}
  dequeueStrategy: fifo
  priority: 3
  reclaimable: false
)");
  ASSERT_EQ(p.cluster_queues[0].extra.at("spec.dequeueStrategy"), "fifo");
  const std::string yaml = ExportKueueYaml(p);
  // Annotation values are strings: quoted, or "3" and "false" would read as other types.
  EXPECT_THAT(yaml, HasSubstr("steward.io/volcano.dequeueStrategy: \"fifo\""));
  EXPECT_THAT(yaml, HasSubstr("steward.io/volcano.priority: \"3\""));
  EXPECT_THAT(yaml, HasSubstr("steward.io/reclaimable: \"false\""));
  EXPECT_THAT(yaml, ::testing::Not(HasSubstr("\n  dequeueStrategy:")));
  EXPECT_THAT(yaml, ::testing::Not(HasSubstr("\n  priority:")));
  Policy back;
  ASSERT_TRUE(ImportYaml(yaml, "exported.yaml", &back).ok()) << yaml;
  ASSERT_TRUE(ValidatePolicy(&back).ok());
  EXPECT_EQ(back.cluster_queues[0].extra, p.cluster_queues[0].extra);
  EXPECT_EQ(ExportKueueYaml(back), yaml);
}

// Kueue's Configuration (queue-semantics.md §1.10): v1beta1 enables by `enable` and defaults
// blockAdmission to it; v1beta2 enables by presence, timeout 30 min, blockAdmission false.
TEST(PolicyIoTest, KueueConfigurationV1beta1) {
  Policy p = testing::MustImport(R"(apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
manageJobsWithoutQueueName: true
fairSharing:
  enable: true
waitForPodsReady:
  enable: true
  timeout: 2m30s
  requeuingStrategy:
    timestamp: Creation
    backoffBaseSeconds: 10
    backoffMaxSeconds: 100
    backoffLimitCount: 3
)");
  ASSERT_TRUE(p.configuration.has_value());
  const KueueConfiguration& c = *p.configuration;
  EXPECT_TRUE(c.fair_sharing);
  const WaitForPodsReadyConfig& w = c.wait_for_pods_ready;
  EXPECT_TRUE(w.enable);
  EXPECT_EQ(w.timeout, Seconds(150));  // 2 min + 30 s.
  EXPECT_TRUE(w.block_admission);      // v1beta1: defaults to `enable`.
  EXPECT_EQ(w.requeuing_timestamp, "Creation");
  EXPECT_EQ(w.backoff_base, Seconds(10));
  EXPECT_EQ(w.backoff_max, Seconds(100));
  ASSERT_TRUE(w.backoff_limit_count.has_value());
  EXPECT_EQ(*w.backoff_limit_count, 3);
  EXPECT_EQ(c.extra.count("manageJobsWithoutQueueName"), 1u);  // Kept for export.
  // Export and re-import reproduce it, the unmodelled field included.
  std::string yaml = ExportKueueYaml(p);
  EXPECT_THAT(yaml, HasSubstr("manageJobsWithoutQueueName: true"));
  Policy back;
  ASSERT_TRUE(ImportYaml(yaml, "exported.yaml", &back).ok()) << yaml;
  EXPECT_EQ(Json(p)["configuration"], Json(back)["configuration"]) << yaml;
  EXPECT_EQ(Json(back)["configuration"]["wait_for_pods_ready"]["timeout_seconds"], 150.0);
}

TEST(PolicyIoTest, KueueConfigurationV1beta1DefaultsOff) {
  Policy p = testing::MustImport(R"(apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
waitForPodsReady:
  timeout: 90s
)");
  ASSERT_TRUE(p.configuration.has_value());
  EXPECT_FALSE(p.configuration->fair_sharing);
  EXPECT_FALSE(p.configuration->wait_for_pods_ready.enable);  // v1beta1 needs enable: true.
  EXPECT_FALSE(p.configuration->wait_for_pods_ready.block_admission);  // = enable.
  EXPECT_EQ(p.configuration->wait_for_pods_ready.timeout, Seconds(90));
}

TEST(PolicyIoTest, KueueConfigurationV1beta2EnablesByPresence) {
  Policy p = testing::MustImport(R"(apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
fairSharing: {}
)");
  ASSERT_TRUE(p.configuration.has_value());
  const KueueConfiguration& c = *p.configuration;
  EXPECT_TRUE(c.fair_sharing);
  EXPECT_TRUE(c.wait_for_pods_ready.enable);  // Defaulting always creates the block.
  EXPECT_EQ(c.wait_for_pods_ready.timeout, Minutes(30));
  EXPECT_FALSE(c.wait_for_pods_ready.block_admission);
  EXPECT_EQ(c.wait_for_pods_ready.backoff_base, Seconds(60));
  EXPECT_EQ(c.wait_for_pods_ready.backoff_max, Seconds(3600));
  EXPECT_FALSE(c.wait_for_pods_ready.backoff_limit_count.has_value());
  // A disabled v1beta2 block (Steward reads `enable: false`) survives export -> import.
  Policy off = testing::MustImport(R"(apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady: {enable: false}
)");
  EXPECT_FALSE(off.configuration->fair_sharing);
  Policy back;
  ASSERT_TRUE(ImportYaml(ExportKueueYaml(off), "exported.yaml", &back).ok());
  ASSERT_TRUE(back.configuration.has_value());
  EXPECT_FALSE(back.configuration->wait_for_pods_ready.enable);
  EXPECT_FALSE(back.configuration->fair_sharing);
}

TEST(PolicyIoTest, KueueConfigurationBadInputNamesFileLineField) {
  Policy p;
  Status s = ImportYaml(R"(apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
waitForPodsReady:
  enable: true
  timeout: 5 minutes
)",
                        "kueue-config.yaml", &p);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("kueue-config.yaml:5:"));
  EXPECT_THAT(s.message(), HasSubstr("waitForPodsReady.timeout"));
  EXPECT_THAT(s.message(), HasSubstr("invalid duration \"5 minutes\""));
  for (const char* bad : {".s", "5", "1.2.3s", "-5m", "5d"}) {
    Policy q;
    Status e = ImportYaml(fmt::format("apiVersion: config.kueue.x-k8s.io/v1beta2\n"
                                      "kind: Configuration\nwaitForPodsReady:\n  timeout: \"{}\"\n",
                                      bad),
                          "c.yaml", &q);
    EXPECT_FALSE(e.ok()) << bad;
    EXPECT_THAT(e.message(), HasSubstr("c.yaml:4:")) << bad;
  }
  Policy q;
  s = ImportYaml(R"(apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  requeuingStrategy: {timestamp: Later}
)",
                 "c.yaml", &q);
  EXPECT_THAT(s.message(), HasSubstr("waitForPodsReady.requeuingStrategy.timestamp"));
  Policy twice;
  const char* doc = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n";
  ASSERT_TRUE(ImportYaml(doc, "a.yaml", &twice).ok());
  s = ImportYaml(doc, "b.yaml", &twice);
  EXPECT_THAT(s.message(), HasSubstr("a second Kueue Configuration"));
}

}  // namespace
}  // namespace steward::govern

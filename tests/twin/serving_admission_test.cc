// policies.serving_admission: per-replica under the kueue admitter (docs/tidal.md, "The
// lendingLimit form"): an autoscaled service is admitted replica by replica, as Kueue's
// Deployment integration admits each pod as its own Workload, so its ClusterQueue's usage
// follows its replicas up and down, and a replica the quota does not hold waits with Kueue's
// reason. Also the lendingLimit patch through TwinClusterControl.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "twin/twin.h"
#include "twin/twin_cluster_control.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

// Serving (nominal 6, borrowingLimit 0, lendingLimit 0) and training (nominal 10) in one cohort.
constexpr const char* kQueues = R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: serving}
spec:
  cohort: tidal
  namespaceSelector: {}
  queueingStrategy: BestEffortFIFO
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: default-flavor
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 6, borrowingLimit: 0, lendingLimit: 0}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: training}
spec:
  cohort: tidal
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: default-flavor
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 10}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: serving, namespace: serving}
spec: {clusterQueue: serving}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: training, namespace: training}
spec: {clusterQueue: training}
)";

// One service of 1-GPU replicas, 1 to 8: 160 req/s at 14:00 wants 16 (8 at most), 40 at the
// trough wants 4 (target 0.5 x 20 req/s per replica).
std::string ScenarioYaml(const std::string& serving_admission) {
  return R"(name: per-replica
seed: 3
horizon_days: 2
sample_minutes: 30
cluster:
  gpu_models: [{name: H100}]
  pools: [{name: p, nodes: 2, gpus_per_node: 8, gpu_model: H100}]
teams: [{name: serving, quota_gpus: 6}, {name: training, quota_gpus: 10}]
faults: {enabled: false}
remediation: {enabled: false}
policies:
  governance: [queues.yaml]
  serving_admission: )" +
         serving_admission + R"(
generators:
  - name: chat
    team: serving
    kind: inference
    arrival: {process: once, count: 1}
    gpus_per_pod: 1
    min_replicas: 1
    max_replicas: 8
    traffic: {peak_rps: 160, trough_fraction: 0.25, peak_hour: 14}
    capacity_per_replica: 20
    autoscaler: {target_utilization: 0.5}
)";
}

std::unique_ptr<Twin> Make(const std::string& serving_admission, int borrowing_limit = 0) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) /
      ("serving-admission-" + serving_admission + std::to_string(borrowing_limit));
  std::filesystem::create_directories(dir);
  std::string queues = kQueues;
  queues.replace(queues.find("borrowingLimit: 0"), 17,
                 "borrowingLimit: " + std::to_string(borrowing_limit));
  std::ofstream(dir / "queues.yaml") << queues;
  std::ofstream(dir / "scenario.yaml") << ScenarioYaml(serving_admission);
  Result<Scenario> s = LoadScenario(dir / "scenario.yaml");
  if (!s.ok()) throw std::runtime_error(s.status().ToString());
  auto t = Twin::Create(std::move(s).value());
  if (!t.ok()) throw std::runtime_error(t.status().ToString());
  return std::move(t).value();
}

const QuotaUsage* GpuQuota(const SchedulerReport& r, const std::string& cq) {
  for (const ClusterQueueReport& q : r.cluster_queues)
    if (q.name == cq)
      for (const QuotaUsage& u : q.quotas)
        if (u.resource == "nvidia.com/gpu") return &u;
  return nullptr;
}

TEST(ServingAdmissionTest, PerReplicaUsageFollowsTheReplicasAndQuotaCapsThem) {
  std::unique_ptr<Twin> twin = Make("per-replica");
  int most = 0, fewest = 1 << 30, capped = 0;
  for (SimTime t = kSimStart + Minutes(15); t <= kSimStart + Hours(48); t = t + Minutes(15)) {
    twin->RunUntil(t);
    const WorkloadRun* run = twin->FindRun("chat-000000");
    ASSERT_NE(run, nullptr);
    const int replicas = static_cast<int>(run->pods.size());
    const QuotaUsage* q = GpuQuota(twin->Scheduler(), "serving");
    ASSERT_NE(q, nullptr);
    // One GPU charged per replica, at every instant: up with a scale-up, down with a scale-down.
    EXPECT_EQ(q->usage, replicas) << t.ToHours();
    most = std::max(most, replicas);
    fewest = std::min(fewest, replicas);
    if (run->desired_replicas > replicas) {
      // The replicas the quota does not hold wait with the admission's reason, kept across the
      // autoscaler's syncs: the cohort has room (training idles) but serving may not borrow.
      ++capped;
      EXPECT_EQ(run->reason, "cohort_borrowing_limit") << t.ToHours();
    }
  }
  EXPECT_EQ(most, 6);    // The peak wants 8: the nominal quota holds 6 (no borrowing).
  EXPECT_LT(fewest, 6);  // The trough wants 4 or 5; the others' charges were given back.
  EXPECT_GT(capped, 0);
}

TEST(ServingAdmissionTest, AtItsPeakSizeTheServiceHoldsItsQueueThroughTheTrough) {
  // The same service as one Workload of max_replicas (8) pods: above the nominal 6 with no
  // borrowing, it is never admitted; with borrowingLimit 2 it borrows 2 of training's idle
  // quota through the cohort and the queue's usage is 8 whatever the replicas do.
  std::unique_ptr<Twin> twin = Make("peak", /*borrowing_limit=*/2);
  twin->RunUntil(kSimStart + Hours(26));  // 02:00, the trough: 40 req/s want 4 replicas.
  const QuotaUsage* q = GpuQuota(twin->Scheduler(), "serving");
  ASSERT_NE(q, nullptr);
  const WorkloadRun* run = twin->FindRun("chat-000000");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(q->usage, 8);
  EXPECT_GE(run->pods.size(), 1u);
  EXPECT_LT(run->pods.size(), 6u);
}

TEST(ServingAdmissionTest, TheLendingLimitIsPatchedThroughTheControlInterface) {
  std::unique_ptr<Twin> twin = Make("per-replica");
  auto added = twin->AddController(std::make_unique<testing::OpsProbe>());
  ASSERT_TRUE(added.ok());
  twin->RunUntil(kSimStart + Hours(1));
  TwinClusterControl c(*static_cast<testing::OpsProbe*>(*added)->ops_);
  auto serving = [&] {
    for (const control::QueueInfo& q : c.ClusterQueues())
      if (q.name == "serving") return q;
    return control::QueueInfo{};
  };
  control::QueueInfo q = serving();
  EXPECT_EQ(q.cohort, "tidal");
  ASSERT_EQ(q.quotas.size(), 1u);
  EXPECT_EQ(q.quotas[0].lending_limit, std::optional<std::string>("0"));
  control::QueueQuota quota = q.quotas[0];
  quota.lending_limit = "4";
  Status s = c.PatchQueueQuota("serving", q.resource_version, quota, "test");
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(serving().quotas[0].lending_limit, std::optional<std::string>("4"));
  EXPECT_EQ(serving().quotas[0].nominal, "6");
  EXPECT_EQ(GpuQuota(twin->Scheduler(), "serving")->lending_limit, std::optional<double>(4));
  // Above the nominal quota, or not whole GPUs: refused, nothing changes.
  q = serving();
  quota.lending_limit = "7";
  EXPECT_EQ(c.PatchQueueQuota("serving", q.resource_version, quota, "test").code(),
            Status::Code::kInvalidArgument);
  quota.lending_limit = "1.5";
  EXPECT_EQ(c.PatchQueueQuota("serving", q.resource_version, quota, "test").code(),
            Status::Code::kInvalidArgument);
  // Both at once, nominal down: the limit goes first, so it never exceeds the nominal quota.
  quota.lending_limit = "2";
  quota.nominal = "3";
  Status both = c.PatchQueueQuota("serving", q.resource_version, quota, "test");
  ASSERT_TRUE(both.ok()) << both.ToString();
  EXPECT_EQ(serving().quotas[0].nominal, "3");
  EXPECT_EQ(serving().quotas[0].lending_limit, std::optional<std::string>("2"));
  // Removed: everything the queue holds is lendable again.
  q = serving();
  quota.lending_limit.reset();
  ASSERT_TRUE(c.PatchQueueQuota("serving", q.resource_version, quota, "test").ok());
  EXPECT_FALSE(serving().quotas[0].lending_limit.has_value());
}

}  // namespace
}  // namespace steward::twin

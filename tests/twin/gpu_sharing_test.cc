// GPU sharing in the twin (docs/tidal.md "Sharing a GPU"): one GPU holding a serving replica
// and a fine-tune, each on half of it (or on a MIG instance), under each sharing mode. The
// service's p99 and the fine-tune's speed are hand-computed from the interference model; a
// scenario without gpu_sharing reports nothing new.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "twin/report.h"
#include "twin/scenario.h"
#include "twin/twin.h"

namespace steward::twin {
namespace {

// One H100, a replica at a flat 10 rps (capacity 40, idle p99 100 ms) and a fine-tune (busy
// 0.9, SM-active 0.65) that runs all day. `share` is each pod's GPU share line.
std::string Scenario1Gpu(const std::string& pool_extra, const std::string& share) {
  return R"(
name: share-1
seed: 1
horizon_days: 1
cluster:
  gpu_models: [{name: H100, product_label: H100, mig_capable: true}]
  pools: [{name: p, nodes: 1, gpus_per_node: 1, gpu_model: H100)" +
         pool_extra + R"(}]
teams: [{name: serving, quota_gpus: 1}, {name: training, quota_gpus: 1}]
faults: {enabled: false}
remediation: {enabled: false}
policies: {admission: fifo-quota, placement: binpack, startup_seconds: 90}
generators:
  - name: chat
    team: serving
    kind: inference
    arrival: {process: once}
    gpus_per_pod: 1
    )" + share +
         R"(
    min_replicas: 1
    max_replicas: 1
    traffic: {peak_rps: 10, trough_fraction: 1}
    capacity_per_replica: 40
    latency: {model: mm1, base_p99_ms: 100}
    slo: {p99_ms: 1000}
  - name: tune
    team: training
    kind: training
    arrival: {process: once}
    gpus_per_pod: 1
    )" + share +
         R"(
    duration_hours: 100
    usage: {busy: 0.9, sm_active: 0.65}
)";
}

Report RunText(const std::string& text) {
  auto s = ParseScenario(text, "share.yaml");
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  auto t = Twin::Create(std::move(s).value());
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return (*t)->Run();
}

// The reported p99 is its histogram bucket's upper bound: within 2.4 % above the exact value.
void ExpectP99(double reported, double exact) {
  EXPECT_GE(reported, exact * (1 - 1e-9));
  EXPECT_LE(reported, exact * 1.024);
}

TEST(GpuSharingTest, TimeSlicingHalvesTheReplicaWhileTheNeighbourComputes) {
  const Report r = RunText(Scenario1Gpu(", gpu_sharing: time-slicing", "gpu_milli: 500"));
  ASSERT_TRUE(r.tidal.sharing.enabled);
  EXPECT_EQ(r.tidal.sharing.pools.at("p"), "time-slicing");
  ASSERT_EQ(r.tidal.services.size(), 1u);
  const ServiceReport& s = r.tidal.services[0];
  ASSERT_TRUE(s.sharing);
  // Both start at 90 s: beside each other, and slowed, the whole day after.
  EXPECT_NEAR(s.shared_replica_hours, 24 - 90 / 3600.0, 15 / 3600.0);
  EXPECT_NEAR(s.slowed_replica_hours, s.shared_replica_hours, 1e-9);
  // Rate factor 0.1 + 0.9 / 2 = 0.55: mu 22, rho 10 / 22; 90 % of requests wait a 2 ms slice.
  // P(T > t) = 0.1 e^(-a t) + 0.9 e^(-a (t - 2)) = 0.01, a = 0.55 ln(100) / 100 (1 - 10/22).
  const double a = 0.55 * std::log(100.0) / 100 * (1 - 10.0 / 22);
  ExpectP99(s.p99_latency_ms, std::log(100 * (0.1 + 0.9 * std::exp(2 * a))) / a);
  // The fine-tune gets the GPU whenever the replica is idle and half of it while it serves
  // (utilization 10 / 22): speed 1 - 10 / 44.
  const SharingReport& g = r.tidal.sharing;
  EXPECT_NEAR(g.training_gpu_hours_beside_serving, 0.5 * s.shared_replica_hours, 1e-6);
  EXPECT_NEAR(g.training_effective_gpu_hours_beside_serving / g.training_gpu_hours_beside_serving,
              1 - 10.0 / 44, 1e-9);
}

TEST(GpuSharingTest, MpsSlowsTheReplicaABoundedAmount) {
  const Report r = RunText(Scenario1Gpu(", gpu_sharing: mps", "gpu_milli: 500"));
  const ServiceReport& s = r.tidal.services[0];
  // Service time x (1 + 0.5 x 0.65 x 0.5) = 1.1625: rho = 10 x 1.1625 / 40, and the p99 is
  // 100 x 1.1625 / (1 - rho).
  const double rho = 10 * 1.1625 / 40;
  ExpectP99(s.p99_latency_ms, 100 * 1.1625 / (1 - rho));
  EXPECT_NEAR(s.slowed_replica_hours, s.shared_replica_hours, 1e-9);
  // The fine-tune beside a replica busy rho of the time on half the GPU: 1 / (1 + 0.5 rho / 2).
  const SharingReport& g = r.tidal.sharing;
  EXPECT_NEAR(g.training_effective_gpu_hours_beside_serving / g.training_gpu_hours_beside_serving,
              1 / (1 + 0.25 * rho), 1e-9);
}

TEST(GpuSharingTest, MigIsIsolatedAndMatchesARunWithoutANeighbour) {
  const Report mig = RunText(Scenario1Gpu(", gpu_sharing: time-slicing", "mig_profile: 3g.40gb"));
  const ServiceReport& s = mig.tidal.services[0];
  EXPECT_GT(s.shared_replica_hours, 23.9);  // Beside the fine-tune all day ...
  EXPECT_EQ(s.slowed_replica_hours, 0);     // ... and never slowed by it.
  ExpectP99(s.p99_latency_ms, 100 / (1 - 10.0 / 40));
  EXPECT_EQ(mig.tidal.sharing.training_effective_gpu_hours_beside_serving,
            mig.tidal.sharing.training_gpu_hours_beside_serving);
  // The same replica with no sharing model at all: the same latency.
  const Report alone = RunText(Scenario1Gpu("", "mig_profile: 3g.40gb"));
  EXPECT_EQ(alone.tidal.services[0].p99_latency_ms, s.p99_latency_ms);
  EXPECT_EQ(alone.tidal.services[0].slo_minutes_violated, s.slo_minutes_violated);
}

TEST(GpuSharingTest, WithoutGpuSharingNothingNewIsReported) {
  const Report r = RunText(Scenario1Gpu("", "gpu_milli: 500"));
  EXPECT_FALSE(r.tidal.sharing.enabled);
  EXPECT_FALSE(r.tidal.services[0].sharing);
  // Interference is not modelled: the homogeneous p99 of rho 1/4.
  ExpectP99(r.tidal.services[0].p99_latency_ms, 100 / (1 - 10.0 / 40));
  const nlohmann::json j = ToJson(r);
  EXPECT_FALSE(j["tidal"].contains("gpu_sharing"));
  EXPECT_FALSE(j["tidal"]["services"][0].contains("shared_replica_hours"));
  // With it, the keys are there (and the nodes carry the sharing-strategy label).
  const nlohmann::json s = ToJson(RunText(Scenario1Gpu(", gpu_sharing: mps", "gpu_milli: 500")));
  EXPECT_TRUE(s["tidal"].contains("gpu_sharing"));
  EXPECT_TRUE(s["tidal"]["services"][0].contains("slowed_replica_hours"));
}

TEST(GpuSharingTest, NodesCarryTheSharingStrategyLabel) {
  auto s = ParseScenario(Scenario1Gpu(", gpu_sharing: mps", "gpu_milli: 500"), "share.yaml");
  ASSERT_TRUE(s.ok());
  auto t = Twin::Create(std::move(s).value());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)->cluster().node(0).labels.at("nvidia.com/gpu.sharing-strategy"), "mps");
  auto plain = Twin::Create(ParseScenario(Scenario1Gpu("", "gpu_milli: 500"), "s.yaml").value());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)->cluster().node(0).labels.count("nvidia.com/gpu.sharing-strategy"), 0u);
}

}  // namespace
}  // namespace steward::twin

// The serving fields of a scenario and the tidal section: what they read, and errors naming
// the file, line and field.
#include <gtest/gtest.h>

#include "twin/scenario.h"

namespace steward::twin {
namespace {

constexpr const char* kBase = R"(
cluster:
  gpu_models: [{name: H100, product_label: H100}]
  pools: [{name: p, nodes: 2, gpus_per_node: 8, gpu_model: H100}]
teams: [{name: serving, quota_gpus: 8}, {name: training, quota_gpus: 8}]
generators:
  - name: chat
    team: serving
    kind: inference
    arrival: {process: once}
    min_replicas: 1
    max_replicas: 8
)";

Result<Scenario> Parse(const std::string& extra) {
  return ParseScenario(std::string(kBase) + extra, "s.yaml");
}

TEST(ServingScenarioTest, ReadsTrafficLatencySloAutoscalerAndTidal) {
  auto s =
      Parse(R"(    traffic: {peak_rps: 100, trough_fraction: 0.3, noise: 0.1, bursts_per_day: 2}
    capacity_per_replica: 20
    latency: {model: mm1, base_p99_ms: 80}
    slo: {p99_ms: 400}
    autoscaler: {target_utilization: 0.7, scale_down_stabilization_seconds: 120}
tidal: {lend_to: training, reserve: 8, forecast: {days: 2, bucket_minutes: 30}}
)");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const ServingSpec& v = s->generators[0].serving;
  EXPECT_TRUE(v.enabled());
  EXPECT_EQ(v.traffic.peak_rps, 100);
  EXPECT_EQ(v.traffic.trough_fraction, 0.3);
  EXPECT_EQ(v.capacity_per_replica, 20);
  EXPECT_EQ(v.latency.base_p99_ms, 80);
  EXPECT_EQ(v.slo_p99_ms, 400);
  EXPECT_EQ(v.autoscaler.target_utilization, 0.7);
  EXPECT_EQ(v.autoscaler.sync_seconds, 15);  // The HPA default.
  EXPECT_EQ(v.autoscaler.scale_down_stabilization_seconds, 120);
  EXPECT_TRUE(s->UsesServing());
  EXPECT_TRUE(s->tidal.enabled);
  EXPECT_EQ(s->tidal.lend_from, "serving");  // The traffic services' queue.
  EXPECT_EQ(s->tidal.lend_to_namespace, "training");
  EXPECT_EQ(s->tidal.reserve_gpus, 8);
  EXPECT_EQ(s->tidal.forecast_days, 2);
}

TEST(ServingScenarioTest, ReadsTheLendingLimitForm) {
  auto s = Parse(R"(    traffic: {peak_rps: 100}
    capacity_per_replica: 20
policies: {governance: [q.yaml], serving_admission: per-replica}
tidal: {lend_from: serving, lend_to: training, lend_by: lending-limit}
)");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->policies.serving_per_replica);
  EXPECT_TRUE(s->tidal.lend_by_lending_limit);
  // Defaults: services at their peak, nominal quota moved.
  auto d = Parse(
      "    traffic: {peak_rps: 100}\n    capacity_per_replica: 20\n"
      "tidal: {lend_to: training}\n");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_FALSE(d->policies.serving_per_replica);
  EXPECT_FALSE(d->tidal.lend_by_lending_limit);
}

TEST(ServingScenarioTest, WithoutTrafficNothingChanges) {
  auto s = Parse("");
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->UsesServing());
  EXPECT_FALSE(DefaultScenario().UsesServing());
}

TEST(ServingScenarioTest, ErrorsNameTheField) {
  struct Case {
    const char* name;
    std::string extra;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"unknown traffic field",
       "    traffic: {peak_rps: 1, peek: 2}\n    capacity_per_replica: 1\n",
       "s.yaml:13:28: generators[0].traffic.peek: unknown field"},
      {"capacity required", "    traffic: {peak_rps: 1}\n",
       "generators[0].capacity_per_replica: is required"},
      {"slo without traffic", "    slo: {p99_ms: 100}\n",
       "generators[0].slo: needs a traffic model"},
      {"trough out of range",
       "    traffic: {peak_rps: 1, trough_fraction: 1.5}\n"
       "    capacity_per_replica: 1\n",
       "generators[0].traffic.trough_fraction: must lie in (0, 1]"},
      {"stabilization over an hour",
       "    traffic: {peak_rps: 1}\n    capacity_per_replica: 1\n"
       "    autoscaler: {scale_down_stabilization_seconds: 4000}\n",
       "scale_down_stabilization_seconds: must be less than or equal to 3600"},
      {"unknown latency model",
       "    traffic: {peak_rps: 1}\n    capacity_per_replica: 1\n    latency: {model: mg1}\n",
       "generators[0].latency.model: unknown latency model 'mg1' (mm1)"},
      {"tidal needs traffic", "tidal: {lend_to: training}\n", "tidal: lends a serving fleet"},
      {"tidal unknown team",
       "    traffic: {peak_rps: 1}\n    capacity_per_replica: 1\ntidal: {lend_to: batch}\n",
       "tidal.lend_to: no team (fifo-quota queue) 'batch'"},
      {"tidal bad reserve",
       "    traffic: {peak_rps: 1}\n    capacity_per_replica: 1\n"
       "tidal: {lend_to: training, reserve: lots}\n",
       "tidal.reserve: must be 'hpa-step' or a whole number of GPUs"},
      {"tidal bucket",
       "    traffic: {peak_rps: 1}\n    capacity_per_replica: 1\n"
       "tidal: {lend_to: training, forecast: {bucket_minutes: 7}}\n",
       "tidal.forecast.bucket_minutes: must be a whole number of minutes that divides a day"},
      {"tidal lend_by value",
       "    traffic: {peak_rps: 1}\n    capacity_per_replica: 1\n"
       "tidal: {lend_to: training, lend_by: borrowing}\n",
       "tidal.lend_by: must be 'nominal' or 'lending-limit'"},
      {"lending-limit under fifo-quota",
       "    traffic: {peak_rps: 1}\n    capacity_per_replica: 1\n"
       "tidal: {lend_to: training, lend_by: lending-limit}\n",
       "tidal.lend_by: lending-limit lends through a Kueue cohort: needs policies.governance"},
      {"lending-limit with services at their peak",
       "    traffic: {peak_rps: 1}\n    capacity_per_replica: 1\n"
       "policies: {governance: [q.yaml]}\n"
       "tidal: {lend_to: training, lend_by: lending-limit}\n",
       "tidal.lend_by: lending-limit needs policies.serving_admission: per-replica"},
      {"serving_admission value", "policies: {serving_admission: per-pod}\n",
       "policies.serving_admission: must be 'peak' or 'per-replica'"},
  };
  for (const Case& c : cases) {
    auto s = Parse(c.extra);
    ASSERT_FALSE(s.ok()) << c.name;
    EXPECT_NE(s.status().message().find(c.error), std::string::npos)
        << c.name << ": " << s.status().message();
  }
}

// The cluster section with a pool's gpu_sharing and the interference coefficients.
Result<Scenario> ParseSharing(const std::string& pool_extra, const std::string& cluster_extra) {
  const std::string text = R"(
cluster:
  gpu_models: [{name: H100, product_label: H100}]
  pools: [{name: p, nodes: 2, gpus_per_node: 8, gpu_model: H100)" +
                           pool_extra + "}]\n" + cluster_extra +
                           R"(teams: [{name: serving, quota_gpus: 8}]
generators: [{name: chat, team: serving, kind: inference, arrival: {process: once}}]
)";
  return ParseScenario(text, "s.yaml");
}

TEST(ServingScenarioTest, ReadsGpuSharingAndInterference) {
  auto s = ParseSharing(", gpu_sharing: time-slicing",
                        "  interference: {mps_slowdown_per_load: 0.8, mps_max_slowdown: 2, "
                        "time_slice_ms: 5}\n");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->pools[0].gpu_sharing, GpuSharingMode::kTimeSlicing);
  EXPECT_EQ(s->interference.mps_slowdown_per_load, 0.8);
  EXPECT_EQ(s->interference.mps_max_slowdown, 2);
  EXPECT_EQ(s->interference.time_slice_ms, 5);
  // Defaults: no sharing model, and the documented coefficients.
  auto d = ParseSharing("", "");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->pools[0].gpu_sharing, GpuSharingMode::kNone);
  EXPECT_EQ(d->interference.mps_slowdown_per_load, 0.5);
  EXPECT_EQ(d->interference.mps_max_slowdown, 1.3);
  EXPECT_EQ(d->interference.time_slice_ms, 2);
  // A label that agrees is fine.
  EXPECT_TRUE(
      ParseSharing(", gpu_sharing: mps, labels: {nvidia.com/gpu.sharing-strategy: mps}", "").ok());
}

TEST(ServingScenarioTest, GpuSharingErrorsNameTheField) {
  struct Case {
    const char* name;
    std::string pool, cluster, error;
  };
  const std::vector<Case> cases = {
      {"unknown mode", ", gpu_sharing: mig", "",
       "cluster.pools[0].gpu_sharing: must be 'none', 'mps' or 'time-slicing'"},
      {"label disagrees",
       ", gpu_sharing: mps, labels: {nvidia.com/gpu.sharing-strategy: time-slicing}", "",
       "cluster.pools[0].gpu_sharing: says 'mps' but the pool's label "
       "nvidia.com/gpu.sharing-strategy says 'time-slicing'"},
      {"cap below 1", "", "  interference: {mps_max_slowdown: 0.9}\n",
       "cluster.interference.mps_max_slowdown: must be at least 1"},
      {"negative slice", "", "  interference: {time_slice_ms: -1}\n",
       "cluster.interference.time_slice_ms"},
      {"unknown key", "", "  interference: {slice: 1}\n",
       "cluster.interference.slice: unknown field"},
  };
  for (const Case& c : cases) {
    auto s = ParseSharing(c.pool, c.cluster);
    ASSERT_FALSE(s.ok()) << c.name;
    EXPECT_NE(s.status().message().find(c.error), std::string::npos)
        << c.name << ": " << s.status().message();
    EXPECT_NE(s.status().message().find("s.yaml:"), std::string::npos) << c.name;
  }
}

}  // namespace
}  // namespace steward::twin

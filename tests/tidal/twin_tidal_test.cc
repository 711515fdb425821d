// Tidal lending on the twin (examples/tidal/scenario.yaml): serving replicas are pods, the
// controller lends the trough through TwinClusterControl, serving keeps its SLO, training gets
// more GPU-hours than under the static split, and the run is deterministic.
#include "tidal/twin_tidal.h"

#include <gtest/gtest.h>

#include "twin/report.h"
#include "twin/scenario.h"
#include "twin/twin.h"

namespace steward::tidal {
namespace {

twin::Scenario Example() {
  auto s = twin::LoadScenario(std::string(STEWARD_SOURCE_DIR) + "/examples/tidal/scenario.yaml");
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::move(s).value();
}

twin::Report RunScenario(twin::Scenario s, double days = 0) {
  twin::TwinOptions o;
  o.days = days;
  auto t = twin::Twin::Create(std::move(s), o);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  auto attached = AttachTidal(**t);
  EXPECT_TRUE(attached.ok());
  twin::Report r = (*t)->Run();
  if (*attached) {
    EXPECT_TRUE((*attached)->status().ok()) << (*attached)->status().ToString();
  }
  return r;
}

TEST(TwinTidalTest, LendsTheTroughKeepsTheSloAndTrainingGains) {
  const twin::Report tidal = RunScenario(Example());
  twin::Scenario static_split = Example();
  static_split.tidal.enabled = false;
  const twin::Report fixed = RunScenario(std::move(static_split));

  ASSERT_TRUE(tidal.tidal.enabled);
  EXPECT_TRUE(tidal.tidal.lending);
  EXPECT_FALSE(fixed.tidal.lending);
  EXPECT_GT(tidal.tidal.gpu_hours_lent, 0);
  EXPECT_GT(tidal.tidal.reclaims, 0);
  EXPECT_EQ(tidal.tidal.max_lent_gpus % 8, 0);  // Whole nodes.
  // Serving keeps its objective in both runs; training gains.
  EXPECT_EQ(tidal.tidal.slo_minutes_violated, 0) << twin::ToJson(tidal)["tidal"].dump();
  EXPECT_EQ(fixed.tidal.slo_minutes_violated, 0) << twin::ToJson(fixed)["tidal"].dump();
  EXPECT_EQ(fixed.tidal.training_gpu_hours_gained, 0);
  EXPECT_GT(tidal.tidal.training_gpu_hours_gained, 0);
  EXPECT_GT(tidal.tidal.training_gpu_hours, fixed.tidal.training_gpu_hours);
  EXPECT_GT(tidal.allocation_rate, fixed.allocation_rate);
  // The replicas are pods: inference holds GPUs, at most the serving team's quota.
  ASSERT_EQ(tidal.tidal.services.size(), 2u);
  const double inference = tidal.allocated_gpu_hours_by_kind.at("inference");
  EXPECT_GT(inference, 0);
  EXPECT_LE(inference, 96 * 24 * 7.0);
}

TEST(TwinTidalTest, SameSeedSameReport) {
  const std::string a = twin::ToJson(RunScenario(Example(), 3)).dump();
  const std::string b = twin::ToJson(RunScenario(Example(), 3)).dump();
  EXPECT_EQ(a, b);
  twin::Scenario other = Example();
  other.seed = 2;
  EXPECT_NE(a, twin::ToJson(RunScenario(std::move(other), 3)).dump());
}

TEST(TwinTidalTest, UnderProvisionedServingMissesItsSlo) {
  // Serving's quota far below the peak: the autoscaler asks, quota refuses, latency rises.
  twin::Scenario s = Example();
  s.tidal.enabled = false;
  s.teams[0].quota_gpus = 32;
  const twin::Report r = RunScenario(std::move(s), 2);
  EXPECT_GT(r.tidal.slo_minutes_violated, 60);
}

TEST(TwinTidalTest, ScenariosWithoutServingHaveNoTidalSection) {
  twin::TwinOptions o;
  o.days = 0.05;
  auto t = twin::Twin::Create(twin::DefaultScenario(), o);
  ASSERT_TRUE(t.ok());
  const nlohmann::json j = twin::ToJson((*t)->Run());
  EXPECT_FALSE(j.contains("tidal"));
  EXPECT_FALSE(j.contains("training_jct_seconds"));
}

// examples/tidal/elastic.yaml: the same borrowers elastic and at a fixed size, same seed. The
// elastic ones are shrunk instead of evicted, and lose less work (a shrink costs the kept
// workers' regroup pause; an eviction every worker's restore, and a wait to be readmitted).
TEST(TwinTidalTest, ElasticBorrowersShrinkAndLoseLessWorkThanFixedSize) {
  auto loaded =
      twin::LoadScenario(std::string(STEWARD_SOURCE_DIR) + "/examples/tidal/elastic.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  twin::Scenario fixed_size = *loaded;
  for (twin::GeneratorSpec& g : fixed_size.generators) g.elastic = false;
  const twin::Report elastic = RunScenario(std::move(loaded).value());
  const twin::Report fixed = RunScenario(std::move(fixed_size));

  EXPECT_GT(elastic.tidal.reclaims, 0);
  EXPECT_GT(elastic.tidal.reclaim_shrinks, 0);
  EXPECT_GT(fixed.tidal.reclaim_evictions, 0);
  EXPECT_EQ(fixed.tidal.reclaim_shrinks, 0);
  EXPECT_LT(elastic.tidal.reclaim_evictions, fixed.tidal.reclaim_evictions);
  EXPECT_LT(elastic.lost_gpu_hours, fixed.lost_gpu_hours);
  EXPECT_GT(elastic.faults.lost_gpu_hours_by_cause.at("resize"), 0);
  EXPECT_EQ(elastic.tidal.slo_minutes_violated, 0);
  EXPECT_EQ(fixed.tidal.slo_minutes_violated, 0);
  // The shrinks are reported only where a scenario has elastic jobs.
  EXPECT_TRUE(twin::ToJson(elastic)["tidal"].contains("reclaim_shrinks"));
  EXPECT_FALSE(twin::ToJson(fixed)["tidal"].contains("reclaim_shrinks"));
  EXPECT_FALSE(twin::ToJson(RunScenario(Example(), 1))["tidal"].contains("gpus_shrunk"));
}

}  // namespace
}  // namespace steward::tidal

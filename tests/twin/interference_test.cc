// The noisy-neighbour model (twin/interference.h) with hand-computed values per mode, its
// monotonicity, and the mixture p99 of unlike replicas (twin/latency_model.h).
#include "twin/interference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "twin/latency_model.h"

namespace steward::twin {
namespace {

// A fine-tune on half a GPU: SM-active 0.65 and busy 0.9 while computing.
constexpr GpuLoad kTraining{0.65 * 0.5, 0.9};

TEST(InterferenceTest, ParsesTheSharingStrategyVocabulary) {
  GpuSharingMode m = GpuSharingMode::kNone;
  ASSERT_TRUE(ParseGpuSharingMode("time-slicing", &m));
  EXPECT_EQ(m, GpuSharingMode::kTimeSlicing);
  ASSERT_TRUE(ParseGpuSharingMode("mps", &m));
  EXPECT_EQ(m, GpuSharingMode::kMps);
  ASSERT_TRUE(ParseGpuSharingMode("none", &m));
  EXPECT_EQ(m, GpuSharingMode::kNone);
  EXPECT_FALSE(ParseGpuSharingMode("mig", &m));
  EXPECT_FALSE(ParseGpuSharingMode("timeslicing", &m));
  EXPECT_EQ(GpuSharingModeName(GpuSharingMode::kTimeSlicing), "time-slicing");
}

TEST(InterferenceTest, MigIsIsolatedWhateverTheNeighbour) {
  const InterferenceSpec spec;
  const std::vector<GpuLoad> heavy = {{1, 1}, {1, 1}};
  for (GpuSharingMode mode :
       {GpuSharingMode::kNone, GpuSharingMode::kMps, GpuSharingMode::kTimeSlicing}) {
    const ReplicaEffect e = ReplicaInterference(spec, mode, /*mig=*/true, heavy);
    EXPECT_EQ(e.rate_factor, 1);
    EXPECT_EQ(e.wait_share, 0);
    EXPECT_EQ(NeighbourSpeed(spec, mode, /*mig=*/true, heavy), 1);
  }
}

TEST(InterferenceTest, NoneAndNoNeighbourLeaveTheReplicaAlone) {
  const InterferenceSpec spec;
  const std::vector<GpuLoad> one = {kTraining};
  EXPECT_EQ(ReplicaInterference(spec, GpuSharingMode::kNone, false, one).rate_factor, 1);
  EXPECT_EQ(NeighbourSpeed(spec, GpuSharingMode::kNone, false, one), 1);
  for (GpuSharingMode mode : {GpuSharingMode::kMps, GpuSharingMode::kTimeSlicing}) {
    const ReplicaEffect alone = ReplicaInterference(spec, mode, false, {});
    EXPECT_EQ(alone.rate_factor, 1);
    EXPECT_EQ(alone.wait_share, 0);
    EXPECT_EQ(NeighbourSpeed(spec, mode, false, {}), 1);
  }
}

TEST(InterferenceTest, MpsSlowsABoundedAmount) {
  const InterferenceSpec spec;  // 0.5 per unit of load, at most 1.3x.
  // L = 0.65 x 0.5 = 0.325: service time x (1 + 0.5 x 0.325) = 1.1625.
  const ReplicaEffect e =
      ReplicaInterference(spec, GpuSharingMode::kMps, false, std::vector<GpuLoad>{kTraining});
  EXPECT_NEAR(e.rate_factor, 1 / 1.1625, 1e-12);
  EXPECT_EQ(e.wait_share, 0);  // MPS clients run concurrently: no slice to wait for.
  // Two heavy neighbours: L = 1.4 would stretch 1.7x; the cap holds it at 1.3x.
  const std::vector<GpuLoad> heavy = {{0.9, 1}, {0.5, 1}};
  EXPECT_NEAR(ReplicaInterference(spec, GpuSharingMode::kMps, false, heavy).rate_factor, 1 / 1.3,
              1e-12);
  // The neighbour's side: a replica at utilization 0.5 on half the GPU, L = 0.25: 1 / 1.125.
  EXPECT_NEAR(NeighbourSpeed(spec, GpuSharingMode::kMps, false, std::vector<GpuLoad>{{0.25, 0.5}}),
              1 / 1.125, 1e-12);
  // Configurable: a cap of 1 means MPS never slows.
  InterferenceSpec flat;
  flat.mps_max_slowdown = 1;
  EXPECT_EQ(ReplicaInterference(flat, GpuSharingMode::kMps, false, heavy).rate_factor, 1);
}

TEST(InterferenceTest, TimeSlicingTakesTurnsAndWaitsASlice) {
  const InterferenceSpec spec;  // 2 ms slices.
  // One neighbour with work 90 % of the time: the replica gets the whole GPU 10 % of the time
  // and half of it 90 %: 0.1 + 0.45 = 0.55; 90 % of its requests wait one 2 ms slice.
  const ReplicaEffect e = ReplicaInterference(spec, GpuSharingMode::kTimeSlicing, false,
                                              std::vector<GpuLoad>{kTraining});
  EXPECT_NEAR(e.rate_factor, 0.55, 1e-12);
  EXPECT_NEAR(e.wait_share, 0.9, 1e-12);
  EXPECT_NEAR(e.wait_ms, 2, 1e-12);
  // Two neighbours busy half the time each: K = 0, 1, 2 with 1/4, 1/2, 1/4; the share is
  // 1/4 + 1/2 x 1/2 + 1/4 x 1/3 = 7/12; P(K >= 1) = 3/4, E[K | K >= 1] = 1 / (3/4) = 4/3
  // slices.
  const std::vector<GpuLoad> two = {{0.3, 0.5}, {0.3, 0.5}};
  const ReplicaEffect e2 = ReplicaInterference(spec, GpuSharingMode::kTimeSlicing, false, two);
  EXPECT_NEAR(e2.rate_factor, 7.0 / 12, 1e-12);
  EXPECT_NEAR(e2.wait_share, 0.75, 1e-12);
  EXPECT_NEAR(e2.wait_ms, 2 * 4.0 / 3, 1e-12);
  // The neighbour's side: a replica busy 40 % of the time leaves it 0.6 + 0.4 / 2 = 0.8.
  EXPECT_NEAR(
      NeighbourSpeed(spec, GpuSharingMode::kTimeSlicing, false, std::vector<GpuLoad>{{0.2, 0.4}}),
      0.8, 1e-12);
}

TEST(InterferenceTest, SlowerAsTheNeighbourWorksMoreAndOrderedByMode) {
  const InterferenceSpec spec;
  for (GpuSharingMode mode : {GpuSharingMode::kMps, GpuSharingMode::kTimeSlicing}) {
    double previous = 1, previous_speed = 1;
    for (int i = 0; i <= 20; ++i) {
      const double x = i / 20.0;
      const std::vector<GpuLoad> n = {{x * 0.5, x}};
      const double f = ReplicaInterference(spec, mode, false, n).rate_factor;
      const double s = NeighbourSpeed(spec, mode, false, n);
      EXPECT_LE(f, previous) << GpuSharingModeName(mode) << " at " << x;
      EXPECT_LE(s, previous_speed) << GpuSharingModeName(mode) << " at " << x;
      EXPECT_GT(f, 0);
      previous = f;
      previous_speed = s;
    }
    EXPECT_LT(previous, 1);  // A busy neighbour does slow it.
  }
  // A training neighbour: time-slicing hurts more than MPS, MPS more than MIG.
  const std::vector<GpuLoad> n = {kTraining};
  const double ts = ReplicaInterference(spec, GpuSharingMode::kTimeSlicing, false, n).rate_factor;
  const double mps = ReplicaInterference(spec, GpuSharingMode::kMps, false, n).rate_factor;
  const double mig = ReplicaInterference(spec, GpuSharingMode::kMps, true, n).rate_factor;
  EXPECT_LT(ts, mps);
  EXPECT_LT(mps, mig);
}

TEST(MixtureLatencyTest, AlikeReplicasGiveTheHomogeneousP99) {
  LatencySpec spec;
  spec.base_p99_ms = 100;
  for (double rps : {0.0, 30.0, 59.0, 90.0}) {
    const double homogeneous = P99LatencyMs(spec, rps, 10, 10);
    const std::vector<ReplicaGroup> one = {{10, 1, 0, 0}};
    const std::vector<ReplicaGroup> split = {{4, 1, 0, 0}, {6, 1, 0, 0}};
    EXPECT_NEAR(MixtureP99LatencyMs(spec, rps, one, 10), homogeneous, 1e-9 * homogeneous) << rps;
    EXPECT_NEAR(MixtureP99LatencyMs(spec, rps, split, 10), homogeneous, 1e-9 * homogeneous) << rps;
  }
  // Overloaded (rho >= 1) or no replica: the timeout, as the homogeneous formula says.
  EXPECT_EQ(MixtureP99LatencyMs(spec, 100, std::vector<ReplicaGroup>{{10, 1, 0, 0}}, 10),
            spec.timeout_ms);
  EXPECT_EQ(MixtureP99LatencyMs(spec, 5, std::vector<ReplicaGroup>{}, 10), spec.timeout_ms);
}

TEST(MixtureLatencyTest, HandComputedTwoReplicasOneSlowed) {
  LatencySpec spec;
  spec.base_p99_ms = 100;
  // 8 rps over two replicas of capacity 10: 4 each. The fast one (rho 0.4) answers in
  // Exp(0.6 ln100 / 100 ms); the slowed one (factor 0.5, rho 0.8) in Exp(0.1 ln100 / 100 ms).
  // 0.5 e^(-a t) = 0.01 for the slow one gives t = 100 ln(50) / (0.1 ln(100)) = 849.49 ms; the
  // fast one's tail there is e^-51, nothing.
  const std::vector<ReplicaGroup> g = {{1, 1, 0, 0}, {1, 0.5, 0, 0}};
  EXPECT_NEAR(MixtureP99LatencyMs(spec, 8, g, 10), 1000 * std::log(50) / std::log(100), 1e-5);
  // The same replicas with a 10 ms wait for every request of the slowed one: 10 ms later.
  const std::vector<ReplicaGroup> w = {{1, 1, 0, 0}, {1, 0.5, 10, 1}};
  EXPECT_NEAR(MixtureP99LatencyMs(spec, 8, w, 10), 10 + 1000 * std::log(50) / std::log(100), 1e-5);
  // A wait for all of one homogeneous fleet's requests shifts its p99 by the wait.
  EXPECT_NEAR(MixtureP99LatencyMs(spec, 50, std::vector<ReplicaGroup>{{10, 1, 7, 1}}, 10), 200 + 7,
              1e-5);
}

TEST(MixtureLatencyTest, RisesWithTheShareOfSlowedReplicas) {
  LatencySpec spec;
  spec.base_p99_ms = 50;
  double previous = 0;
  for (int slowed = 0; slowed <= 8; ++slowed) {
    const std::vector<ReplicaGroup> g = {{8 - slowed, 1, 0, 0}, {slowed, 0.7, 2, 0.9}};
    const double p99 = MixtureP99LatencyMs(spec, 40, g, 10);  // rho 0.5, slowed 0.71.
    EXPECT_GT(p99, previous) << slowed;
    EXPECT_LT(p99, spec.timeout_ms);
    previous = p99;
  }
  // One overloaded replica in 200 (0.5 % of the requests time out) leaves the p99 below the
  // timeout; one in 50 (2 %) makes it the timeout.
  const double below = MixtureP99LatencyMs(
      spec, 1000, std::vector<ReplicaGroup>{{199, 1, 0, 0}, {1, 0.4, 0, 0}}, 10);
  EXPECT_LT(below, spec.timeout_ms);
  EXPECT_GT(below, P99LatencyMs(spec, 1000, 200, 10));
  EXPECT_EQ(
      MixtureP99LatencyMs(spec, 250, std::vector<ReplicaGroup>{{49, 1, 0, 0}, {1, 0.4, 0, 0}}, 10),
      spec.timeout_ms);
}

}  // namespace
}  // namespace steward::twin

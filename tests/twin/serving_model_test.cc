// The serving model's parts: the traffic curve, the latency model, a service's SLO accounting.
#include <gtest/gtest.h>

#include <cmath>

#include "twin/latency_model.h"
#include "twin/service_model.h"
#include "twin/traffic.h"

namespace steward::twin {
namespace {

SimTime At(double hours) { return kSimStart + SecondsF(hours * 3600); }

TEST(LatencyModelTest, MM1QuantileScalesWithOneOverOneMinusLoad) {
  LatencySpec spec;
  spec.base_p99_ms = 50;
  spec.timeout_ms = 30000;
  EXPECT_DOUBLE_EQ(P99LatencyMs(spec, 10, 2, 10), 100);       // rho 0.5.
  EXPECT_NEAR(P99LatencyMs(spec, 18, 2, 10), 500, 1e-9);      // rho 0.9.
  EXPECT_DOUBLE_EQ(P99LatencyMs(spec, 0, 0, 10), 50);         // No traffic.
  EXPECT_DOUBLE_EQ(P99LatencyMs(spec, 5, 0, 10), 30000);      // Nobody serves.
  EXPECT_DOUBLE_EQ(P99LatencyMs(spec, 20, 2, 10), 30000);     // rho 1: unbounded queue.
  EXPECT_DOUBLE_EQ(P99LatencyMs(spec, 19.99, 2, 10), 30000);  // Capped at the timeout.
}

TEST(TrafficTest, DayAndWeekShape) {
  TrafficSpec spec;
  spec.peak_rps = 100;
  spec.trough_fraction = 0.4;
  spec.peak_hour = 14;
  spec.weekend_factor = 0.5;
  Traffic t(spec, 7);
  EXPECT_NEAR(t.RateAt(At(14)), 100, 1e-9);           // Peak.
  EXPECT_NEAR(t.RateAt(At(2)), 40, 1e-9);             // Trough, twelve hours later.
  EXPECT_NEAR(t.RateAt(At(8)), 70, 1e-9);             // Half way: 40 + 60 x 0.5.
  EXPECT_NEAR(t.RateAt(At(5 * 24 + 14)), 50, 1e-9);   // Saturday.
  EXPECT_NEAR(t.RateAt(At(7 * 24 + 14)), 100, 1e-9);  // Monday again.
}

TEST(TrafficTest, NoiseIsDeterministicPerStepAndCentred) {
  TrafficSpec spec;
  spec.peak_rps = 100;
  spec.trough_fraction = 1;  // Flat: only noise moves it.
  spec.noise = 0.1;
  spec.noise_minutes = 5;
  Traffic a(spec, 3), b(spec, 3), c(spec, 4);
  EXPECT_EQ(a.RateAt(At(1)), b.RateAt(At(1)));
  EXPECT_EQ(a.RateAt(At(1)), a.RateAt(At(1) + Seconds(60)));  // Same 5-minute step.
  EXPECT_NE(a.RateAt(At(1)), c.RateAt(At(1)));
  double sum = 0;
  const int steps = 20000;
  for (int i = 0; i < steps; ++i) sum += a.RateAt(kSimStart + Minutes(5) * i);
  EXPECT_NEAR(sum / steps, 100, 0.5);  // Mean 1 +- 0.1 / sqrt(20000) x 5.
}

TEST(TrafficTest, BurstsMultiplyTheRate) {
  TrafficSpec spec;
  spec.peak_rps = 100;
  spec.trough_fraction = 1;
  spec.bursts_per_day = 24;
  spec.burst_factor = 2;
  spec.burst_minutes = 30;
  Traffic t(spec, 11);
  int in = 0, out = 0;
  for (int m = 0; m < 3 * 1440; m += 7) {
    const double r = t.RateAt(kSimStart + Minutes(m));
    ASSERT_TRUE(r == 100 || r == 200) << r;
    (r == 200 ? in : out)++;
  }
  // A burst an hour on average, 30 minutes long: in a burst 1 - exp(-0.5) = 39 % of the time.
  EXPECT_NEAR(static_cast<double>(in) / (in + out), 0.39, 0.08);
}

TEST(TrafficTest, ReplayHoldsEachRow) {
  TrafficSpec spec;
  spec.csv = "replay.csv";
  spec.points = {{0, 10}, {60, 20}};
  spec.csv_scale = 2;
  Traffic t(spec, 1);
  EXPECT_EQ(t.RateAt(kSimStart + Seconds(30)), 20);
  EXPECT_EQ(t.RateAt(kSimStart + Seconds(60)), 40);
  EXPECT_EQ(t.RateAt(kSimStart + Seconds(1000)), 40);  // The last row holds.
}

TEST(ServiceModelTest, UnderProvisionedServiceMissesItsSlo) {
  ServingSpec spec;
  spec.traffic.peak_rps = 100;
  spec.traffic.trough_fraction = 1;  // A flat 100 rps.
  spec.capacity_per_replica = 10;
  spec.latency.base_p99_ms = 50;
  spec.slo_p99_ms = 200;  // Missed above rho 0.75.
  ServiceModel m(spec, 1, 100, 1, kSimStart);
  EXPECT_EQ(m.initial_replicas(), 17);  // ceil(100 / 6).
  // 17 ready for ten minutes: rho 0.59, p99 121 ms: no violation.
  for (int s = 0; s <= 600; s += 15) m.Step(kSimStart + Seconds(s), 17);
  EXPECT_EQ(m.Stats().slo_minutes_violated, 0);
  // 12 ready (rho 0.83, p99 300 ms) for the next five minutes: five minutes violated.
  for (int s = 615; s <= 900; s += 15) m.Step(kSimStart + Seconds(s), 12);
  m.Close(kSimStart + Seconds(915));
  const ServiceStats st = m.Stats();
  EXPECT_NEAR(st.slo_minutes_violated, 5, 1e-9);
  // A third of the requests saw 300 ms: the p99 bucket is 300 ms (within its 2.3 % width).
  EXPECT_NEAR(st.p99_latency_ms, 300, 300 * 0.024);
  EXPECT_NEAR(st.requests, 100 * 915, 1e-6);
}

TEST(ServiceModelTest, SlowedReplicasRaiseTheP99AndAreCounted) {
  ServingSpec spec;
  spec.traffic.peak_rps = 100;
  spec.traffic.trough_fraction = 1;  // A flat 100 rps.
  spec.capacity_per_replica = 10;
  spec.latency.base_p99_ms = 50;
  spec.slo_p99_ms = 200;
  ServiceModel m(spec, 1, 100, 1, kSimStart);
  // 20 ready replicas, rho 0.5: p99 100 ms. Described as one unslowed group (12 of them beside
  // a MIG neighbour), the latency is the homogeneous one and nothing is slowed.
  for (int s = 0; s <= 600; s += 15)
    m.Step(kSimStart + Seconds(s), 20, ReplicaSharing{{{20, 1, 0, 0}}, 12});
  ServiceStats st = m.Stats();
  EXPECT_TRUE(st.sharing);
  EXPECT_EQ(st.slo_minutes_violated, 0);
  EXPECT_NEAR(st.shared_replica_hours, 12 * 600 / 3600.0, 1e-9);
  EXPECT_EQ(st.slowed_replica_hours, 0);
  EXPECT_NEAR(st.p99_latency_ms, 100, 100 * 0.024);
  // Then half of them at half speed (rho 1: their requests time out) for five minutes: every
  // one of those minutes misses the SLO, and the p99 is the timeout.
  for (int s = 615; s <= 900; s += 15)
    m.Step(kSimStart + Seconds(s), 20, ReplicaSharing{{{10, 1, 0, 0}, {10, 0.5, 0, 0}}, 10});
  m.Close(kSimStart + Seconds(915));
  st = m.Stats();
  EXPECT_NEAR(st.slo_minutes_violated, 5, 1e-9);
  EXPECT_NEAR(st.slowed_replica_hours, 10 * 300 / 3600.0, 1e-9);
  EXPECT_NEAR(st.shared_replica_hours, (12 * 615 + 10 * 300) / 3600.0, 1e-9);
  EXPECT_NEAR(st.p99_latency_ms, spec.latency.timeout_ms, spec.latency.timeout_ms * 0.024);
}

TEST(ServiceModelTest, WithoutSharingNothingIsCounted) {
  ServingSpec spec;
  spec.traffic.peak_rps = 100;
  spec.capacity_per_replica = 10;
  ServiceModel m(spec, 1, 100, 1, kSimStart);
  for (int s = 0; s <= 600; s += 15) m.Step(kSimStart + Seconds(s), 20);
  EXPECT_FALSE(m.Stats().sharing);
  EXPECT_EQ(m.Stats().shared_replica_hours, 0);
}

}  // namespace
}  // namespace steward::twin

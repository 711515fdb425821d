#include "twin/wait_distribution.h"

#include <gtest/gtest.h>

#include <cmath>

#include "twin/rng.h"

namespace steward::twin {
namespace {

// Every sample, as the report computed waits before issue 22.
Percentiles Exact(const std::vector<int64_t>& us) {
  std::vector<double> v;
  for (int64_t x : us) v.push_back(SimDuration::Micros(x).ToSeconds());
  return ComputePercentiles(v);
}

// Waits like the twin's: many zeros (admitted at arrival), then a long lognormal tail.
std::vector<int64_t> Waits(int n, uint64_t seed) {
  Rng rng(seed);
  std::vector<int64_t> out;
  for (int i = 0; i < n; ++i) {
    if (rng.Uniform() < 0.4) {
      out.push_back(0);
      continue;
    }
    const double s = std::exp(std::log(600.0) + 2.0 * rng.Normal());
    out.push_back(SecondsF(std::min(s, 3e7)).micros());
  }
  return out;
}

TEST(WaitDistributionTest, ExactWhileDistinctValuesFit) {
  const std::vector<int64_t> all = Waits(20000, 7);
  WaitDistribution d;
  std::vector<SimDuration> extra;
  for (size_t i = 0; i < all.size(); ++i) {
    if (i % 10 == 0)
      extra.push_back(SimDuration::Micros(all[i]));  // Not kept: e.g. still pending.
    else
      d.Add(SimDuration::Micros(all[i]));
  }
  const Percentiles p = d.Compute(extra), e = Exact(all);
  EXPECT_EQ(p.count, e.count);
  EXPECT_EQ(p.p50, e.p50);
  EXPECT_EQ(p.p95, e.p95);
  EXPECT_EQ(p.p99, e.p99);
  EXPECT_EQ(p.max, e.max);
  EXPECT_EQ(p.relative_error, 0);
  EXPECT_EQ(d.relative_error(), 0);
}

TEST(WaitDistributionTest, EmptyAndExtraOnly) {
  WaitDistribution d;
  EXPECT_EQ(d.Compute().count, 0);
  const Percentiles p = d.Compute({Seconds(5), Seconds(1), Seconds(3)});
  EXPECT_EQ(p.count, 3);
  EXPECT_EQ(p.p50, 3);
  EXPECT_EQ(p.max, 5);
}

// Past its limit the distribution keeps a bounded number of values; each percentile is the
// true one rounded down by less than the stated relative error; count and max stay exact.
TEST(WaitDistributionTest, BoundedBeyondItsLimitWithTheStatedError) {
  const std::vector<int64_t> all = Waits(200000, 11);
  WaitDistribution d(/*max_bytes=*/16 << 10);
  size_t most = 0;
  for (int64_t x : all) {
    d.Add(SimDuration::Micros(x));
    most = std::max(most, d.bytes());
  }
  // The limit plus one unmerged batch (the encoding's capacity may round up once).
  EXPECT_LE(most, 2 * (16u << 10) + 8 * WaitDistribution::kBatch);
  const double err = d.relative_error();
  EXPECT_GT(err, 0);
  EXPECT_LE(err, 1.0 / 16);  // About 23 octaves of waits in 8 KB: 32 values per octave.
  const Percentiles p = d.Compute(), e = Exact(all);
  EXPECT_EQ(p.count, e.count);
  EXPECT_EQ(p.max, e.max);
  EXPECT_EQ(p.relative_error, err);
  for (auto [got, want] : {std::pair{p.p50, e.p50}, {p.p95, e.p95}, {p.p99, e.p99}}) {
    EXPECT_LE(got, want);
    EXPECT_GE(got, want * (1 - err)) << "want " << want;
  }
}

}  // namespace
}  // namespace steward::twin

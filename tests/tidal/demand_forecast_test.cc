// The forecast: a day of history first, mean of the daily peaks per bucket, smoothed by the
// neighbouring buckets, the peak over a window.
#include "tidal/demand_forecast.h"

#include <gtest/gtest.h>

namespace steward::tidal {
namespace {

constexpr int kBucketsPerDay = 96;  // 15-minute buckets.

SimTime Bucket(int day, int bucket) { return kSimStart + Days(day) + Minutes(15) * bucket; }

TEST(DemandForecastTest, NothingBeforeAFullDay) {
  DemandForecast f({.days = 2, .bucket = Minutes(15)});
  for (int b = 0; b < kBucketsPerDay; ++b) f.Observe(Bucket(0, b), b);
  EXPECT_EQ(f.Forecast(Bucket(0, 95), Bucket(0, 95)), std::nullopt);
  f.Observe(Bucket(1, 0), 0);
  EXPECT_TRUE(f.Forecast(Bucket(1, 0), Bucket(1, 0)).has_value());
}

TEST(DemandForecastTest, SmoothedMeanOfDailyPeaks) {
  DemandForecast f({.days = 2, .bucket = Minutes(15)});
  for (int b = 0; b < kBucketsPerDay; ++b) {
    f.Observe(Bucket(0, b), b);
    f.Observe(Bucket(0, b) + Minutes(5), b / 2.0);  // A lower value later in the bucket.
  }
  f.Observe(Bucket(1, 0), 0);
  // Bucket 40 (10:00) from day 0 alone: its peak 40, smoothed with 39 and 41: 41.
  EXPECT_EQ(f.BucketForecast(Bucket(1, 40)), 41);
  // The window 10:00-11:00 covers buckets 40..44: the highest smoothed one, 45.
  EXPECT_EQ(f.Forecast(Bucket(1, 40), Bucket(1, 44)), 45);
  // Day 1 at twice the demand: on day 2 the mean of the two days, 1.5 x.
  for (int b = 0; b < kBucketsPerDay; ++b) f.Observe(Bucket(1, b), 2.0 * b);
  f.Observe(Bucket(2, 0), 0);
  EXPECT_EQ(f.BucketForecast(Bucket(2, 40)), 1.5 * 41);
  // Day 2 observed at 0 everywhere: on day 3 day 0 has left the two-day history.
  for (int b = 0; b < kBucketsPerDay; ++b) f.Observe(Bucket(2, b), 0);
  f.Observe(Bucket(3, 0), 0);
  EXPECT_EQ(f.BucketForecast(Bucket(3, 40)), 41);  // mean(2 x 41, 0).
}

TEST(DemandForecastTest, MidnightNeighboursWrap) {
  DemandForecast f({.days = 1, .bucket = Minutes(15)});
  for (int b = 0; b < kBucketsPerDay; ++b) f.Observe(Bucket(0, b), b == 95 ? 7 : 1);
  f.Observe(Bucket(1, 0), 1);
  // Bucket 0's neighbour before it is yesterday's 23:45 bucket.
  EXPECT_EQ(f.BucketForecast(Bucket(1, 0)), 7);
}

}  // namespace
}  // namespace steward::tidal

#include "live/token_bucket.h"

#include <gtest/gtest.h>

#include "live_test_util.h"

namespace steward::live {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using testing::FakeClock;

TEST(TokenBucketTest, BurstIsFreeThenRequestsArePacedAtQps) {
  FakeClock clock;
  TokenBucket bucket(/*qps=*/5, /*burst=*/10, &clock);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(bucket.Reserve(), nanoseconds(0)) << i;
  // With no time passing, the 11th waits one token (1/5 s), the 12th two.
  EXPECT_EQ(bucket.Reserve(), milliseconds(200));
  EXPECT_EQ(bucket.Reserve(), milliseconds(400));
}

TEST(TokenBucketTest, RefillsAtQpsUpToBurst) {
  FakeClock clock;
  TokenBucket bucket(/*qps=*/5, /*burst=*/10, &clock);
  for (int i = 0; i < 10; ++i) (void)bucket.Reserve();
  clock.Advance(milliseconds(1000));  // 5 tokens back.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(bucket.Reserve(), nanoseconds(0)) << i;
  EXPECT_GT(bucket.Reserve(), nanoseconds(0));
  clock.Advance(std::chrono::hours(1));  // Never more than the burst.
  for (int i = 0; i < 10; ++i) EXPECT_EQ(bucket.Reserve(), nanoseconds(0)) << i;
  EXPECT_GT(bucket.Reserve(), nanoseconds(0));
}

TEST(TokenBucketTest, AcquireSleepsOnTheClock) {
  FakeClock clock;
  TokenBucket bucket(/*qps=*/2, /*burst=*/1, &clock);
  bucket.Acquire();
  EXPECT_EQ(clock.slept(), nanoseconds(0));
  bucket.Acquire();  // 1/2 s for the next token.
  EXPECT_EQ(clock.slept(), milliseconds(500));
  bucket.Acquire();  // The sleep above refilled exactly one token's worth: the next is 1/2 s on.
  EXPECT_EQ(clock.slept(), milliseconds(1000));
}

TEST(TokenBucketTest, ZeroQpsIsUnlimited) {
  FakeClock clock;
  TokenBucket bucket(0, 1, &clock);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
}

}  // namespace
}  // namespace steward::live

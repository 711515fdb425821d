// IdleStreaks (reclaim/idle_streaks.h): the reclaim policy's timing, with deadlines worked out
// by hand from notify_after = 30 min and reclaim_after = 60 min.
#include "reclaim/idle_streaks.h"

#include <gtest/gtest.h>

#include <string>

namespace steward::reclaim {
namespace {

using Streaks = IdleStreaks<std::string>;

SimTime At(int minutes) { return kSimStart + Minutes(minutes); }

class IdleStreaksTest : public ::testing::Test {
 protected:
  // Every step due at or before `now`, in order, as a caller draining PopNext sees them.
  std::vector<Streaks::Due> PopDue(SimTime now) {
    std::vector<Streaks::Due> out;
    while (std::optional<Streaks::Due> due = streaks_.PopNext(now)) out.push_back(*due);
    return out;
  }

  Streaks streaks_{Minutes(30), Minutes(60)};
};

TEST_F(IdleStreaksTest, NoticeAtNotifyAfterReclaimAtReclaimAfter) {
  streaks_.Observe("a", /*idle=*/true, 0, false, At(10));
  EXPECT_EQ(streaks_.NextDeadline(), At(40));
  EXPECT_TRUE(PopDue(At(39)).empty());
  auto due = PopDue(At(40));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].step, Streaks::Step::kNotify);
  EXPECT_EQ(due[0].since, At(10));
  EXPECT_EQ(streaks_.NextDeadline(), At(70));
  due = PopDue(At(70));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].step, Streaks::Step::kReclaim);
  // Done: nothing more while it stays open.
  EXPECT_TRUE(PopDue(At(1000)).empty());
  EXPECT_TRUE(streaks_.IsOpen("a"));
}

TEST_F(IdleStreaksTest, IdleAgainDoesNotRestartAndBusyCloses) {
  streaks_.Observe("a", true, 0, false, At(0));
  streaks_.Observe("a", true, 0, false, At(20));  // Still idle: the streak keeps its start.
  EXPECT_EQ(streaks_.NextDeadline(), At(30));
  streaks_.Observe("a", false, 0, false, At(25));  // Busy: both deadlines go.
  EXPECT_FALSE(streaks_.IsOpen("a"));
  EXPECT_EQ(streaks_.NextDeadline(), SimTime::Never());
  streaks_.Observe("a", true, 0, false, At(26));  // A new streak from 26.
  EXPECT_EQ(streaks_.NextDeadline(), At(56));
}

TEST_F(IdleStreaksTest, DueTogetherComeNoticesFirstThenRankThenLongestIdle) {
  // b idle since 0 reaches its reclaim at 60; c (rank 1) and d (rank 0) their notices at 60.
  streaks_.Observe("b", true, 1, false, At(0));
  streaks_.Observe("c", true, 1, false, At(30));
  streaks_.Observe("d", true, 0, false, At(30));
  PopDue(At(30));  // b's notice.
  auto due = PopDue(At(60));
  ASSERT_EQ(due.size(), 3u);
  EXPECT_EQ(due[0].key, "d");  // Notices first; rank 0 before rank 1.
  EXPECT_EQ(due[0].step, Streaks::Step::kNotify);
  EXPECT_EQ(due[1].key, "c");
  EXPECT_EQ(due[2].key, "b");
  EXPECT_EQ(due[2].step, Streaks::Step::kReclaim);
}

TEST_F(IdleStreaksTest, ExemptGetsNoNoticeAndIsReportedExemptAtReclaimTime) {
  streaks_.Observe("x", true, 0, /*exempt=*/true, At(0));
  auto due = PopDue(At(60));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].step, Streaks::Step::kExempt);
  EXPECT_EQ(due[0].at, At(60));
}

TEST_F(IdleStreaksTest, OpenWithAPastStartIsDueAtOnce) {
  streaks_.Open("a", At(10), 0, false);
  auto due = PopDue(At(45));  // The notice was due at 40.
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].step, Streaks::Step::kNotify);
  due = PopDue(At(70));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].step, Streaks::Step::kReclaim);
}

TEST_F(IdleStreaksTest, ResumedAfterANoticeOnlyTheReclaimIsDue) {
  streaks_.Open("a", At(10), 0, false, /*noticed=*/true);
  EXPECT_EQ(streaks_.NextDeadline(), At(70));
  auto due = PopDue(At(70));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].step, Streaks::Step::kReclaim);
}

TEST_F(IdleStreaksTest, RetryReclaimComesDueAgain) {
  streaks_.Observe("a", true, 0, false, At(0));
  PopDue(At(60));
  streaks_.RetryReclaim("a", At(61));
  EXPECT_EQ(streaks_.NextDeadline(), At(61));
  auto due = PopDue(At(61));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].step, Streaks::Step::kReclaim);
  streaks_.RetryReclaim("gone", At(62));  // Unknown keys are ignored.
  EXPECT_EQ(streaks_.NextDeadline(), SimTime::Never());
}

}  // namespace
}  // namespace steward::reclaim

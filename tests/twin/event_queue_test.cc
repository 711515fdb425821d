#include "twin/event_queue.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <utility>

namespace steward::twin {
namespace {

TEST(EventQueueTest, OrdersByTimeThenInsertion) {
  EventQueue q;
  q.Push(kSimStart + Seconds(5), EventKind::kFinish, 1);
  q.Push(kSimStart + Seconds(1), EventKind::kArrive, 2);
  q.Push(kSimStart + Seconds(5), EventKind::kArrive, 3);
  q.Push(kSimStart + Seconds(1), EventKind::kStart, 4);
  std::vector<int> order;
  while (!q.empty()) order.push_back(q.Pop().target);
  EXPECT_EQ(order, (std::vector<int>{2, 4, 1, 3}));
}

// Interleaved pushes and pops with many equal times pop exactly in (time, insertion) order:
// checked against an ordered set, through sizes where every level of the heap fills.
TEST(EventQueueTest, InterleavedPushAndPopMatchAnOrderedSet) {
  std::mt19937_64 rng(7);
  EventQueue q;
  std::set<std::pair<int64_t, int32_t>> expected;  // (time in seconds, target = insertion no.)
  int32_t pushed = 0;
  int64_t now = 0;
  for (int step = 0; step < 200'000; ++step) {
    const bool push = expected.empty() || rng() % 100 < (step < 100'000 ? 60 : 40);
    if (push) {
      const int64_t at = now + static_cast<int64_t>(rng() % 50);  // Few distinct times.
      q.Push(kSimStart + Seconds(at), EventKind::kWake, pushed);
      expected.emplace(at, pushed++);
    } else {
      ASSERT_EQ(q.size(), expected.size());
      const Event e = q.Pop();
      const auto [at, target] = *expected.begin();
      expected.erase(expected.begin());
      ASSERT_EQ(e.target, target) << "step " << step;
      ASSERT_EQ(e.time, kSimStart + Seconds(at));
      now = at;
    }
  }
  while (!q.empty()) {
    ASSERT_EQ(q.Pop().target, expected.begin()->second);
    expected.erase(expected.begin());
  }
  EXPECT_TRUE(expected.empty());
}

// An EventQueue beside an ordered set of what it holds: every pop and peek must match the
// set's least (time, insertion) pair.
class Mirrored {
 public:
  void Push(int64_t at_us) {
    q_.Push(kSimStart + SimDuration::Micros(at_us), EventKind::kWake, pushed_);
    expected_.emplace(at_us, pushed_++);
  }
  bool empty() const { return expected_.empty(); }
  int64_t now() const { return now_; }
  void CheckPeek() const {
    ASSERT_EQ(q_.TopTime(), kSimStart + SimDuration::Micros(expected_.begin()->first));
  }
  void CheckPop(int step) {
    ASSERT_EQ(q_.size(), expected_.size());
    const Event e = q_.Pop();
    const auto [at, target] = *expected_.begin();
    expected_.erase(expected_.begin());
    ASSERT_EQ(e.target, target) << "step " << step;
    ASSERT_EQ(e.time, kSimStart + SimDuration::Micros(at));
    now_ = at;
  }
  void CheckDrain() {
    while (!q_.empty()) {
      ASSERT_EQ(q_.Pop().target, expected_.begin()->second);
      expected_.erase(expected_.begin());
    }
    EXPECT_TRUE(expected_.empty());
  }

 private:
  EventQueue q_;
  std::set<std::pair<int64_t, int32_t>> expected_;  // (time in microseconds, insertion no.)
  int32_t pushed_ = 0;
  int64_t now_ = 0;
};

// Delays from zero to weeks put events in the current slot's heap, the ring's buckets (up to
// about 76 hours ahead) and the far heap; peeking at the top (which pours the next slot) and
// then pushing earlier events, as a paused twin does, keeps the order exact.
TEST(EventQueueTest, DelaysAcrossSlotsBucketsAndFarEventsPopInOrder) {
  std::mt19937_64 rng(11);
  Mirrored m;
  const int64_t kDelays[] = {
      0, 1'000, 60'000'000, 3'600'000'000, 100LL * 3'600'000'000, 21LL * 86'400'000'000};
  for (int step = 0; step < 300'000; ++step) {
    const uint64_t roll = rng() % 100;
    if (m.empty() || roll < 55) {
      const int64_t span = kDelays[rng() % std::size(kDelays)];
      m.Push(m.now() + (span > 0 ? static_cast<int64_t>(rng() % span) : 0));
    } else if (roll < 60) {
      ASSERT_NO_FATAL_FAILURE(m.CheckPeek());
    } else {
      ASSERT_NO_FATAL_FAILURE(m.CheckPop(step));
    }
  }
  m.CheckDrain();
}

// Recurring delays (a startup, checkpoint intervals) go to delay lanes once they recur: six of
// them compete for four lanes, among one-off delays and events for the current time, with
// peeks at the top; every pop still matches the ordered set, ties included.
TEST(EventQueueTest, RecurringDelaysInLanesPopInOrder) {
  std::mt19937_64 rng(23);
  Mirrored m;
  const int64_t kFixed[] = {90'000'000,    1'800'000'000, 3'600'000'000,
                            5'000'000'000, 1'000,         7'200'000'000};
  for (int step = 0; step < 400'000; ++step) {
    const uint64_t roll = rng() % 100;
    if (m.empty() || roll < 52) {
      int64_t delay = 0;
      const uint64_t kind = rng() % 10;
      if (kind < 6) delay = kFixed[kind < 4 ? kind : rng() % std::size(kFixed)];
      if (kind == 8) delay = static_cast<int64_t>(rng() % 10'000'000'000);
      m.Push(m.now() + delay);
    } else if (roll < 57) {
      ASSERT_NO_FATAL_FAILURE(m.CheckPeek());
    } else {
      ASSERT_NO_FATAL_FAILURE(m.CheckPop(step));
    }
  }
  m.CheckDrain();
}

}  // namespace
}  // namespace steward::twin

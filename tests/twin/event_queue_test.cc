#include "twin/event_queue.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace steward::twin

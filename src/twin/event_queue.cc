#include "twin/event_queue.h"

#include <algorithm>

namespace steward::twin {
namespace {

constexpr size_t kArity = 4;

inline bool Before(const Event& a, const Event& b) {
  return a.time != b.time ? a.time < b.time : a.seq < b.seq;
}

}  // namespace

void EventQueue::Push(SimTime time, EventKind kind, int32_t target, uint32_t epoch, int32_t aux) {
  const Event e{time, next_seq_++, kind, target, epoch, aux};
  size_t hole = heap_.size();
  heap_.push_back(e);
  while (hole > 0) {  // Sift the hole up until its parent comes first.
    const size_t parent = (hole - 1) / kArity;
    if (!Before(e, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = e;
}

Event EventQueue::Pop() {
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n == 0) return top;
  size_t hole = 0;  // Sift the hole down to where `last` belongs.
  for (;;) {
    const size_t first = hole * kArity + 1;
    if (first >= n) break;
    const size_t end = std::min(first + kArity, n);
    size_t best = first;
    for (size_t c = first + 1; c < end; ++c) {
      if (Before(heap_[c], heap_[best])) best = c;
    }
    if (!Before(heap_[best], last)) break;
    heap_[hole] = heap_[best];
    hole = best;
  }
  heap_[hole] = last;
  return top;
}

}  // namespace steward::twin

#include "twin/event_queue.h"

#include <algorithm>

namespace steward::twin {

void EventQueue::Push(SimTime time, EventKind kind, int32_t target, uint32_t epoch, int32_t aux) {
  heap_.push_back(Event{time, next_seq_++, kind, target, epoch, aux});
  std::push_heap(heap_.begin(), heap_.end(), Later);
}

Event EventQueue::Pop() {
  std::pop_heap(heap_.begin(), heap_.end(), Later);
  Event e = heap_.back();
  heap_.pop_back();
  return e;
}

}  // namespace steward::twin

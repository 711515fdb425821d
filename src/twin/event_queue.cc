#include "twin/event_queue.h"

#include <algorithm>
#include <stdexcept>

namespace steward::twin {
namespace {

constexpr size_t kArity = 4;

}  // namespace

void EventQueue::Push(SimTime time, EventKind kind, int32_t target, uint32_t epoch, int32_t aux) {
  if (time.micros() == last_us_) {  // Nothing queued is earlier, nothing of its time later.
    lane_.push_back({next_seq_++, Payload{kind, target, epoch, aux}});
    return;
  }
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    payloads_[slot] = Payload{kind, target, epoch, aux};
  } else {
    if (payloads_.size() >= (size_t{1} << kSlotBits))
      throw std::length_error("twin event queue: more than 16.7 million events pending");
    slot = static_cast<uint32_t>(payloads_.size());
    payloads_.push_back(Payload{kind, target, epoch, aux});
  }
  const Key key{time.micros(), next_seq_++ << kSlotBits | slot};
  size_t hole = heap_.size();
  heap_.push_back(key);
  while (hole > 0) {  // Sift the hole up until its parent comes first.
    const size_t parent = (hole - 1) / kArity;
    if (!Before(key, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = key;
}

Event EventQueue::Pop() {
  // The lane's events have the last time popped, which no heap event precedes: the lane goes
  // first unless the heap holds an event of that time queued before them.
  if (lane_head_ < lane_.size() && (heap_.empty() || heap_.front().time_us != last_us_ ||
                                    (heap_.front().order >> kSlotBits) > lane_[lane_head_].seq)) {
    const LaneEvent& e = lane_[lane_head_++];
    const Event out{SimTime::FromMicros(last_us_),
                    e.seq,
                    e.payload.kind,
                    e.payload.target,
                    e.payload.epoch,
                    e.payload.aux};
    if (lane_head_ == lane_.size()) {
      lane_.clear();
      lane_head_ = 0;
    }
    return out;
  }
  const Key top = heap_.front();
  const Key last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n > 0) {
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
  }
  const auto slot = static_cast<uint32_t>(top.order & ((uint64_t{1} << kSlotBits) - 1));
  const Payload& p = payloads_[slot];
  free_slots_.push_back(slot);
  last_us_ = top.time_us;
  return Event{
      SimTime::FromMicros(top.time_us), top.order >> kSlotBits, p.kind, p.target, p.epoch, p.aux};
}

}  // namespace steward::twin

#include "twin/event_queue.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>

namespace steward::twin {
namespace {

constexpr size_t kArity = 4;

}  // namespace

void EventQueue::Push(SimTime time, EventKind kind, int32_t target, uint32_t epoch, int32_t aux) {
  const Payload payload{kind, target, epoch, aux};
  if (time.micros() == last_us_) {  // Nothing queued is earlier, nothing of its time later.
    lane_.push_back({next_seq_++, payload});
    return;
  }
  if (last_us_ != INT64_MIN && time.micros() > last_us_) {
    const int64_t delay = time.micros() - last_us_;
    if (PushDelayed(delay, time.micros(), payload)) return;
    NoteDelay(delay);
  }
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    payloads_[slot] = payload;
  } else {
    if (payloads_.size() >= (size_t{1} << kSlotBits))
      throw std::length_error("twin event queue: more than 16.7 million events pending");
    slot = static_cast<uint32_t>(payloads_.size());
    payloads_.push_back(payload);
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

bool EventQueue::PushDelayed(int64_t delay_us, int64_t time_us, const Payload& payload) {
  for (DelayLane& lane : delay_lanes_) {
    if (lane.delay_us != delay_us) continue;
    // In time order by construction (the time last popped never decreases); checked anyway.
    if (!lane.empty() && lane.events.back().time_us > time_us) return false;
    lane.events.push_back({time_us, next_seq_++, payload});
    ++delayed_;
    return true;
  }
  return false;
}

void EventQueue::NoteDelay(int64_t delay_us) {
  // A majority vote per slot: a delay that recurs outvotes the one-off delays (a workload's
  // random duration) that land in its slot.
  DelaySeen& seen = delays_seen_[(static_cast<uint64_t>(delay_us) * 0x9E3779B97F4A7C15ULL) >> 61];
  if (seen.delay_us != delay_us) {
    if (--seen.count <= 0) seen = {delay_us, 1};
    return;
  }
  if (++seen.count < kPromoteAfter) return;
  seen.count = 0;
  DelayLane* free = nullptr;  // An unassigned lane, else an empty one.
  for (DelayLane& lane : delay_lanes_) {
    if (lane.delay_us == 0) {
      free = &lane;
      break;
    }
    if (free == nullptr && lane.empty()) free = &lane;
  }
  if (free == nullptr) return;
  free->delay_us = delay_us;
  free->events.clear();
  free->head = 0;
}

SimTime EventQueue::TopTime() const {
  int64_t t = lane_head_ < lane_.size() ? last_us_ : INT64_MAX;
  if (!heap_.empty()) t = std::min(t, heap_.front().time_us);
  if (delayed_ > 0)
    for (const DelayLane& lane : delay_lanes_)
      if (!lane.empty()) t = std::min(t, lane.events[lane.head].time_us);
  return SimTime::FromMicros(t);
}

Event EventQueue::Pop() {
  if (delayed_ > 0) {
    // The least (time, seq) of the heap's top and the lanes' heads.
    int64_t t = INT64_MAX;
    uint64_t seq = UINT64_MAX;
    if (!heap_.empty()) t = heap_.front().time_us, seq = heap_.front().order >> kSlotBits;
    if (lane_head_ < lane_.size() &&
        (last_us_ < t || (last_us_ == t && lane_[lane_head_].seq < seq)))
      t = last_us_, seq = lane_[lane_head_].seq;
    DelayLane* from = nullptr;
    for (DelayLane& lane : delay_lanes_) {
      if (lane.empty()) continue;
      const DelayedEvent& e = lane.events[lane.head];
      if (e.time_us < t || (e.time_us == t && e.seq < seq))
        t = e.time_us, seq = e.seq, from = &lane;
    }
    if (from != nullptr) {
      const DelayedEvent& e = from->events[from->head++];
      const Event out{SimTime::FromMicros(e.time_us),
                      e.seq,
                      e.payload.kind,
                      e.payload.target,
                      e.payload.epoch,
                      e.payload.aux};
      --delayed_;
      last_us_ = e.time_us;
      if (from->empty()) {
        from->events.clear();
        from->head = 0;
      } else if (from->head >= 1024 && 2 * from->head >= from->events.size()) {
        from->events.erase(from->events.begin(),
                           from->events.begin() + static_cast<std::ptrdiff_t>(from->head));
        from->head = 0;
      }
      return out;
    }
  }
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

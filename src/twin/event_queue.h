// The twin's future-event list: a 4-ary heap ordered by (time, seq), where seq is an
// insertion counter, so same-time events run in the order they were scheduled and a run is
// byte-for-byte reproducible (the order is total, so any correct heap pops the same sequence).
// The queue only stores and orders events; it knows no model. Cancellation is by the owner:
// handlers check an epoch stored in the event (see Event::epoch).
//
//   EventQueue q;
//   q.Push(now + Minutes(5), EventKind::kFinish, run.id, run.epoch);
//   while (!q.empty() && q.TopTime() <= until) Handle(q.Pop());
//
// Cost: Push and Pop are O(log4 n) with the comparison inlined; the heap orders 16-byte keys,
// so a node's four children share one cache line (the queue was 18 % of a 102,400-GPU run as a
// std::push_heap/pop_heap binary heap of whole events). Two kinds of event skip the heap and
// wait in FIFO lanes, each of which is in (time, seq) order by construction, so Pop takes the
// least of the heap's top and the lanes' heads and the total order is the heap's:
// - an event for the time last popped (an admission pass the handler just asked for: a third of
//   all events) follows every queued event of that time and precedes every later one;
// - an event a fixed delay after the time last popped (a pod's startup, a checkpoint interval:
//   another third), once that delay has recurred kPromoteAfter times, goes to a lane of its own
//   (up to kDelayLanes of them): the time last popped never decreases, so such events arrive in
//   time order.
// Their Push and Pop are O(1) and the heap they leave is smaller. Memory: 32 bytes per pending
// event. Not thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/time.h"

namespace steward::twin {

enum class EventKind : uint8_t {
  kArrive,      // A workload is submitted.
  kSchedule,    // Run an admission + placement pass.
  kStart,       // Pods placed earlier are now running (after startup).
  kPhase,       // A running workload changes usage phase (a notebook goes idle).
  kFinish,      // A workload completes.
  kFail,        // A running workload fails (restarts from its last checkpoint).
  kScale,       // Inference services rescale to the diurnal demand.
  kSample,      // Record one point of the report's time series.
  kWindow,      // Close a usage window (per-workload records for the ledger).
  kFault,       // A random fault process fires (target: FaultInjector process).
  kXid,         // A planned fault: scheduled in the scenario or injected (target: its index).
  kRollout,     // A driver rollout reaches its batch (target: rollout index).
  kEvictEnd,    // An eviction's grace ends (target: workload, aux: node).
  kCheckpoint,  // A running workload saves a checkpoint.
  kWake,        // A controller's deadline (target: controller index).
  kServe,       // The autoscalers' sync: services with traffic rescale (twin_serving.cc).
};

struct Event {
  SimTime time;
  uint64_t seq = 0;
  EventKind kind = EventKind::kSchedule;
  int32_t target = -1;  // Workload id (or what the kind says), or -1.
  uint32_t epoch = 0;   // The target's epoch when scheduled; stale events are skipped.
  int32_t aux = -1;     // Kind-specific detail (e.g. which replica starts).
};

class EventQueue {
 public:
  void Push(SimTime time, EventKind kind, int32_t target = -1, uint32_t epoch = 0,
            int32_t aux = -1);
  bool empty() const { return size() == 0; }
  size_t size() const { return heap_.size() + (lane_.size() - lane_head_) + delayed_; }
  // The earliest event's time; the queue must not be empty.
  SimTime TopTime() const;
  Event Pop();

 private:
  // The heap holds 16-byte keys, four children to a 64-byte line; what an event carries waits
  // in `payloads_` under a slot the key names, and is read once, when the event pops.
  static constexpr int kSlotBits = 24;  // Up to 16.7 M events pending at once.
  struct Key {
    int64_t time_us;
    uint64_t order;  // seq << kSlotBits | slot: seq (2^40 of them) breaks ties.
  };
  static bool Before(const Key& a, const Key& b) {
    return a.time_us != b.time_us ? a.time_us < b.time_us : a.order < b.order;
  }
  struct Payload {
    EventKind kind;
    int32_t target;
    uint32_t epoch;
    int32_t aux;
  };
  std::vector<Key> heap_;
  std::vector<Payload> payloads_;
  std::vector<uint32_t> free_slots_;
  uint64_t next_seq_ = 0;
  // Events pushed for the time last popped, in push order (from lane_head_ on).
  struct LaneEvent {
    uint64_t seq;
    Payload payload;
  };
  std::vector<LaneEvent> lane_;
  size_t lane_head_ = 0;
  int64_t last_us_ = INT64_MIN;  // The time of the last event popped.

  // Events pushed `delay_us` after the time last popped, in push order (from head on).
  static constexpr int kDelayLanes = 4;
  static constexpr int kPromoteAfter = 32;
  struct DelayedEvent {
    int64_t time_us;
    uint64_t seq;
    Payload payload;
  };
  struct DelayLane {
    int64_t delay_us = 0;  // 0: unassigned.
    std::vector<DelayedEvent> events;
    size_t head = 0;
    bool empty() const { return head == events.size(); }
  };
  // Takes an event `delay_us` after last_us_ into its delay's lane; false if it has none.
  bool PushDelayed(int64_t delay_us, int64_t time_us, const Payload& payload);
  // Counts a delay pushed to the heap; at kPromoteAfter it gets an empty lane if one is left.
  void NoteDelay(int64_t delay_us);
  std::array<DelayLane, kDelayLanes> delay_lanes_;
  size_t delayed_ = 0;  // Events in delay lanes.
  struct DelaySeen {
    int64_t delay_us = 0;
    int count = 0;
  };
  std::array<DelaySeen, 8> delays_seen_{};  // Direct-mapped by delay.
};

}  // namespace steward::twin

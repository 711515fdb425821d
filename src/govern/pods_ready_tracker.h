// PodsReadyTracker: Kueue's waitForPodsReady as a pure state/timing component.
//
// After admission a workload must report all pods ready within `timeout`; otherwise it is
// evicted (reason PodsReadyTimeout), its quota released and it is requeued after an
// exponential backoff: the n-th eviction waits base * 2^(n-1), capped at backoff_max
// (60 s, 120 s, 240 s ... <= 3600 s). When count + 1 > backoff_limit_count the workload is
// deactivated instead (RequeuingLimitExceeded). With block_admission, no new workload is
// admitted while any admitted workload is not ready (pkg/controller/core/workload_controller.go,
// pkg/workload/workload.go; queue-semantics.md §2.9).
//
// The tracker never reads a clock: the twin passes `now`, asks NextDeadline() to schedule its
// timer event, and calls Expire(now) when it fires. Deadlines live in a min-heap with lazy
// deletion, so each operation is O(log n). Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <queue>
#include <unordered_map>
#include <vector>

#include "govern/policy.h"
#include "model/time.h"

namespace steward::govern {

struct PodsReadyOptions {
  bool enable = true;
  // Kueue config v1beta1: 5 min (v1beta2: 30 min).
  SimDuration timeout = Minutes(5);
  // v1beta1 default: same as enable (true); v1beta2: false.
  bool block_admission = true;
  // requeuingStrategy.backoffBaseSeconds / backoffMaxSeconds / backoffLimitCount.
  SimDuration backoff_base = Seconds(60);
  SimDuration backoff_max = Seconds(3600);
  std::optional<int> backoff_limit_count;  // nullopt = retry forever.
};

// The tracker's options from an imported Kueue Configuration's waitForPodsReady block.
PodsReadyOptions PodsReadyOptionsFrom(const WaitForPodsReadyConfig& config);

// requeuingStrategy.timestamp: which time orders a requeued workload in its queue.
enum class RequeueTimestamp { kEviction, kCreation };

struct PodsReadyEviction {
  int64_t workload_id = 0;
  SimTime evicted_at;
  int requeue_count = 0;  // After this eviction.
  SimTime requeue_at;     // Not admissible before (WorkloadRequest::requeue_at).
  bool deactivated = false;
};

class PodsReadyTracker {
 public:
  explicit PodsReadyTracker(PodsReadyOptions options = {}) : options_(options) {}

  // The workload got its quota at `now`; its pods must be ready by now + timeout.
  void OnAdmitted(int64_t id, SimTime now);
  // All pods of the workload are ready (PodsReady=True).
  void OnPodsReady(int64_t id);
  // The workload left (finished, preempted, deleted): stop tracking; keeps its requeue count.
  void OnRemoved(int64_t id);
  // Evicts every tracked workload whose deadline is <= now, in deadline order. The caller
  // releases their quota and requeues them at requeue_at (or deactivates them).
  std::vector<PodsReadyEviction> Expire(SimTime now);
  // The earliest pending deadline, or Never.
  SimTime NextDeadline();
  // blockAdmission: true while some admitted workload is not ready.
  bool AdmissionBlocked() const { return options_.block_admission && waiting_ > 0; }
  int RequeueCount(int64_t id) const;
  // Backoff for the n-th eviction (n >= 1).
  SimDuration Backoff(int n) const;
  const PodsReadyOptions& options() const { return options_; }

 private:
  struct State {
    SimTime deadline = SimTime::Never();
    bool waiting = false;
    int requeues = 0;
  };
  using Entry = std::pair<int64_t, int64_t>;  // (deadline micros, id).
  PodsReadyOptions options_;
  std::unordered_map<int64_t, State> states_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap_;
  int waiting_ = 0;
};

}  // namespace steward::govern

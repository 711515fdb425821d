#include "govern/pods_ready_tracker.h"

#include <algorithm>

namespace steward::govern {

PodsReadyOptions PodsReadyOptionsFrom(const WaitForPodsReadyConfig& c) {
  PodsReadyOptions o;
  o.enable = c.enable;
  o.timeout = c.timeout;
  o.block_admission = c.block_admission;
  o.backoff_base = c.backoff_base;
  o.backoff_max = c.backoff_max;
  if (c.backoff_limit_count) o.backoff_limit_count = *c.backoff_limit_count;
  return o;
}

void PodsReadyTracker::OnAdmitted(int64_t id, SimTime now) {
  if (!options_.enable) return;
  State& s = states_[id];
  if (!s.waiting) ++waiting_;
  s.waiting = true;
  s.deadline = now + options_.timeout;
  heap_.emplace(s.deadline.micros(), id);
}

void PodsReadyTracker::OnPodsReady(int64_t id) {
  auto it = states_.find(id);
  if (it == states_.end() || !it->second.waiting) return;
  it->second.waiting = false;
  it->second.deadline = SimTime::Never();
  --waiting_;
}

void PodsReadyTracker::OnRemoved(int64_t id) { OnPodsReady(id); }

SimDuration PodsReadyTracker::Backoff(int n) const {
  SimDuration d = options_.backoff_base;
  for (int i = 1; i < n && d < options_.backoff_max; ++i) d = d * 2;
  return std::min(d, options_.backoff_max);
}

std::vector<PodsReadyEviction> PodsReadyTracker::Expire(SimTime now) {
  std::vector<PodsReadyEviction> out;
  while (!heap_.empty() && heap_.top().first <= now.micros()) {
    auto [deadline, id] = heap_.top();
    heap_.pop();
    auto it = states_.find(id);
    // Stale heap entry: the workload became ready, left, or was re-admitted later.
    if (it == states_.end() || !it->second.waiting || it->second.deadline.micros() != deadline)
      continue;
    State& s = it->second;
    s.waiting = false;
    s.deadline = SimTime::Never();
    --waiting_;
    PodsReadyEviction e;
    e.workload_id = id;
    e.evicted_at = now;
    if (options_.backoff_limit_count && s.requeues + 1 > *options_.backoff_limit_count) {
      e.deactivated = true;
      e.requeue_count = s.requeues;
      e.requeue_at = SimTime::Never();
    } else {
      ++s.requeues;
      e.requeue_count = s.requeues;
      e.requeue_at = now + Backoff(s.requeues);
    }
    out.push_back(e);
  }
  return out;
}

SimTime PodsReadyTracker::NextDeadline() {
  while (!heap_.empty()) {
    auto [deadline, id] = heap_.top();
    auto it = states_.find(id);
    if (it != states_.end() && it->second.waiting && it->second.deadline.micros() == deadline)
      return SimTime::FromMicros(deadline);
    heap_.pop();
  }
  return SimTime::Never();
}

int PodsReadyTracker::RequeueCount(int64_t id) const {
  auto it = states_.find(id);
  return it == states_.end() ? 0 : it->second.requeues;
}

}  // namespace steward::govern

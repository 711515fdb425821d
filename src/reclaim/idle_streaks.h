// IdleStreaks: the idle-reclaim policy's timing, shared by the twin's reclaimer
// (reclaim/idle_reclaimer.h, driven by exact usage signals) and the controller on the control
// interface (reclaim/control_reclaimer.h, driven by DCGM readings each pass). One piece of
// code decides when a workload idle since T is noticed (T + notify_after) and reclaimed
// (T + reclaim_after), which of several due at one instant goes first, and what an exempt
// workload gets.
//
//   IdleStreaks<std::string> streaks(Minutes(30), Minutes(60));
//   streaks.Observe("team-a/nb-1", /*idle=*/true, /*rank=*/0, /*exempt=*/false, now);
//   while (auto due = streaks.PopNext(now)) ...   // kNotify, then kReclaim (or kExempt)
//
// A streak opens when a workload is first seen idle and closes when it is seen busy (or gone);
// a closed streak's deadlines are dropped. Due steps come in order: time, notices before
// reclaims, `rank` (the kind's position in the policy's list: notebooks first), longest idle,
// key. An exempt workload gets no notice; at its reclaim time it is reported kExempt (counted,
// never stopped). After its reclaim (or exemption) a streak is done: nothing more is due until
// it closes and opens again.
// Cost: O(log streaks) per observation and per due step. Thread-safety: none (one owner).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "model/time.h"

namespace steward::reclaim {

template <typename Key>
class IdleStreaks {
 public:
  enum class Step : uint8_t { kNotify, kReclaim, kExempt };
  struct Due {
    Step step = Step::kNotify;
    Key key;
    SimTime since;  // Idle since.
    SimTime at;     // When it fell due.
  };

  IdleStreaks(SimDuration notify_after, SimDuration reclaim_after)
      : notify_after_(notify_after), reclaim_after_(reclaim_after) {}

  SimDuration notify_after() const { return notify_after_; }
  SimDuration reclaim_after() const { return reclaim_after_; }

  // Idle: opens a streak since `now` unless one is open (a replica more or less does not
  // restart it). Busy: closes it.
  void Observe(const Key& key, bool idle, int rank, bool exempt, SimTime now) {
    const bool open = streaks_.count(key) > 0;
    if (!idle) {
      if (open) Close(key);
    } else if (!open) {
      Open(key, now, rank, exempt);
    }
  }

  // Opens a streak idle since `since`; `noticed`: its notice was given already (resumed from
  // the notice a predecessor wrote), so only the reclaim is due. Deadlines already past fall
  // due at the next PopNext. No-op when one is open.
  void Open(const Key& key, SimTime since, int rank, bool exempt, bool noticed = false) {
    if (streaks_.count(key)) return;
    streaks_.emplace(key, Streak{since, rank, exempt, false});
    if (!noticed) deadlines_.insert(Deadline{since + notify_after_, false, rank, since, key});
    deadlines_.insert(Deadline{since + reclaim_after_, true, rank, since, key});
  }

  void Close(const Key& key) {
    auto it = streaks_.find(key);
    if (it == streaks_.end()) return;
    const Streak& s = it->second;
    deadlines_.erase(Deadline{s.since + notify_after_, false, s.rank, s.since, key});
    deadlines_.erase(Deadline{s.since + reclaim_after_, true, s.rank, s.since, key});
    streaks_.erase(it);
  }

  // The reclaim could not happen now (a disruption budget, an eviction cap): due again at
  // `at`, and the streak is not done.
  void RetryReclaim(const Key& key, SimTime at) {
    auto it = streaks_.find(key);
    if (it == streaks_.end()) return;
    it->second.done = false;
    deadlines_.insert(Deadline{at, true, it->second.rank, it->second.since, key});
  }

  bool IsOpen(const Key& key) const { return streaks_.count(key) > 0; }
  // Keys with an open streak, for callers that close the ones they no longer see.
  std::vector<Key> OpenKeys() const {
    std::vector<Key> keys;
    keys.reserve(streaks_.size());
    for (const auto& [key, streak] : streaks_) keys.push_back(key);
    return keys;
  }

  SimTime NextDeadline() const {
    return deadlines_.empty() ? SimTime::Never() : deadlines_.begin()->at;
  }

  // The next step due at or before `now`, or nullopt. Callers that act between steps (a stop
  // may close other streaks) take them one at a time.
  std::optional<Due> PopNext(SimTime now) {
    while (!deadlines_.empty() && deadlines_.begin()->at <= now) {
      const Deadline d = *deadlines_.begin();
      deadlines_.erase(deadlines_.begin());
      auto it = streaks_.find(d.key);
      if (it == streaks_.end() || it->second.since != d.since || it->second.done) continue;
      Streak& s = it->second;
      if (!d.reclaim) {
        if (s.exempt) continue;
        return Due{Step::kNotify, d.key, s.since, d.at};
      }
      s.done = true;
      return Due{s.exempt ? Step::kExempt : Step::kReclaim, d.key, s.since, d.at};
    }
    return std::nullopt;
  }

 private:
  struct Streak {
    SimTime since;
    int rank = 0;
    bool exempt = false;
    bool done = false;  // Reclaimed or exempted: nothing more to do.
  };
  struct Deadline {
    SimTime at;
    bool reclaim = false;
    int rank = 0;
    SimTime since;
    Key key;
    auto operator<=>(const Deadline&) const = default;
  };

  SimDuration notify_after_, reclaim_after_;
  std::map<Key, Streak> streaks_;
  std::set<Deadline> deadlines_;
};

}  // namespace steward::reclaim

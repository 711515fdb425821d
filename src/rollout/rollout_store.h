// RolloutStore: a rollout's durable state in SQLite (WAL): the run's snapshot (run_state.h),
// the plan text it runs, and the append-only decision log with the plan's Git commit on every
// row. One rollout per database.
//
//   auto store = RolloutStore::Open("rollout.db");
//   std::optional<RolloutRun> saved = *(*store)->Load();
//   (*store)->Commit(run, new_decisions);     // one transaction: snapshot + decisions
//
// Replay (the twin, whose simulated world is not durable, re-runs from its start after a
// crash): decisions with a seq already in the log must equal the logged ones and are not
// written again; a difference is Aborted ("the run diverged from its log"). Past the end of
// the log the run appends as usual. docs/rollout.md, "Durability".
//
// Cost: one transaction per engine step that decided something. Thread-safety: one owner.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rollout/run_state.h"
#include "store/sqlite_db.h"

namespace steward::rollout {

class RolloutStore {
 public:
  // `create`: false = a missing file is NotFound (status readers).
  static Result<std::unique_ptr<RolloutStore>> Open(const std::string& path, bool create = true);

  Result<std::optional<RolloutRun>> Load();
  // The plan text the run was started with ("" = none yet), and its commit.
  Result<std::string> PlanText();
  Status SavePlanText(const std::string& text);

  Status Commit(const RolloutRun& run, const std::vector<Decision>& decisions);
  Result<std::vector<Decision>> Decisions();
  // The logged decision `seq`, if any.
  Result<std::optional<Decision>> DecisionAt(int64_t seq);
  // Decisions already in the log (the replay boundary).
  Result<int64_t> Logged();

 private:
  explicit RolloutStore(std::unique_ptr<store::SqliteDb> db) : db_(std::move(db)) {}
  std::unique_ptr<store::SqliteDb> db_;
};

}  // namespace steward::rollout

// A rollout's status as every view shows it: `steward rollout status [--json]`, `rollout run`,
// the rollout section of `steward twin run`'s report and the dashboard's /api/rollouts. One
// JSON shape (the run, docs/rollout.md "States", plus its decision log) and one text form.
//
//   fmt::print("{}\n", StatusJson(run, decisions).dump(2));
//   fmt::print("{}", StatusText(run, decisions, {.last_decisions = 20}));
//
// Cost: O(nodes + measurements + decisions). Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rollout/run_state.h"

namespace steward::rollout {

// ToJson(run) plus "log": every decision (seq, at_us, commit, kind, object, from, to, reason).
nlohmann::json StatusJson(const RolloutRun& run, const std::vector<Decision>& decisions);

struct StatusTextOptions {
  // The latest decisions listed (of those `node_steps` keeps).
  size_t last_decisions = std::numeric_limits<size_t>::max();
  // false: leave out per-node state changes (a report lists the batch, gate and rollout
  // decisions; the nodes' states are in the batches and in the JSON log).
  bool node_steps = true;
};
// The rollout, its batches with their nodes (the first 8) and gates (last value against the
// conditions, verdict), then the decisions with their reasons.
std::string StatusText(const RolloutRun& run, const std::vector<Decision>& decisions,
                       const StatusTextOptions& options = {});

}  // namespace steward::rollout

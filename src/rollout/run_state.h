// The state of one rollout run: per-node states (the NVIDIA driver upgrade controller's names),
// batch states, gate measurements, the decision log, and its JSON form (the SQLite snapshot
// and `steward rollout status --json`). docs/rollout.md, "States".
//
//   RolloutRun run = ...;  nlohmann::json j = ToJson(run);  RolloutRun back = FromJson(j);
//
// Plain data; the engine (engine.h) is the only writer.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/status.h"
#include "model/time.h"
#include "rollout/gate.h"

namespace steward::rollout {

// Per-node upgrade states, named as k8s-operator-libs names them. kUntouched is the
// controller's "" (the node is not in a batch that started).
enum class NodeState : uint8_t {
  kUntouched,
  kUpgradeRequired,
  kCordonRequired,
  kWaitForJobsRequired,
  kPodDeletionRequired,
  kDrainRequired,
  kPodRestartRequired,
  kValidationRequired,
  kUncordonRequired,
  kUpgradeDone,
  kUpgradeFailed,
};
std::string_view NodeStateName(NodeState s);  // "upgrade-required", ...; "" for kUntouched.
std::optional<NodeState> ParseNodeState(std::string_view name);
// Past upgrade-required and not yet done or failed: holds one of maxParallel's slots.
bool InProgress(NodeState s);

enum class BatchState : uint8_t {
  kPending,     // Not started.
  kCanary,      // The first batch's nodes are upgrading.
  kPromote,     // A later batch's nodes are upgrading.
  kSoak,        // Upgraded; waiting the soak time before the gates measure.
  kGate,        // The gates are measuring.
  kDone,        // Passed its gates.
  kPaused,      // A gate was inconclusive: waiting for a human.
  kAbort,       // A gate failed: the rollout rolls back.
  kRollback,    // Its nodes are returning to the previous version.
  kRolledBack,  // ... and have.
};
std::string_view BatchStateName(BatchState s);
std::optional<BatchState> ParseBatchState(std::string_view name);

enum class RolloutState : uint8_t { kRunning, kPaused, kSucceeded, kRolledBack, kFailed };
std::string_view RolloutStateName(RolloutState s);
std::optional<RolloutState> ParseRolloutState(std::string_view name);

struct NodeRun {
  std::string name;
  int batch = -1;
  NodeState state = NodeState::kUntouched;
  SimTime since;                   // When it entered `state`.
  std::string from_version;        // What it ran before the rollout touched it.
  std::string want_version;        // What this pass installs (target, or from_version in rollback).
  bool was_unschedulable = false;  // Cordoned before we touched it: we leave it cordoned.
  bool cordoned_by_us = false;
  bool on_target = false;  // Its version label holds the plan's version now.
  int upgrades = 0;        // Times its version label was set to the plan's version.
  int rollbacks = 0;       // Times it was set back.
};

struct Measurement {
  SimTime at;
  std::optional<double> value;
  Verdict verdict = Verdict::kRunning;
  std::string why;
};

struct GateRun {
  std::string name, metric, success_condition, failure_condition;
  GateTally tally;
  Verdict verdict = Verdict::kRunning;
  SimTime next_at = SimTime::Never();
  std::vector<Measurement> measurements;
};

struct BatchRun {
  std::string name;
  std::vector<std::string> nodes;
  BatchState state = BatchState::kPending;
  SimTime started = SimTime::Never(), upgraded = SimTime::Never(), soak_until = SimTime::Never();
  std::vector<GateRun> gates;
};

// One decision the engine took, with why: the audit trail (every row carries the plan's Git
// commit).
struct Decision {
  int64_t seq = 0;
  SimTime at;
  std::string commit;
  std::string kind;    // "node", "batch", "gate", "measurement", "rollout".
  std::string object;  // Node, batch or gate name ("" for the rollout).
  std::string from, to;
  std::string reason;
  bool operator==(const Decision&) const = default;
};

struct RolloutRun {
  std::string plan_name, plan_file, plan_commit, component, version, previous_version;
  std::string version_label, state_label;
  RolloutState state = RolloutState::kRunning;
  std::string reason;  // Why it is in `state` (the last decision of the rollout).
  bool rolling_back = false;
  int current_batch = 0;
  std::vector<BatchRun> batches;
  std::vector<NodeRun> nodes;  // Target nodes, in name order.
  int nodes_upgraded = 0, nodes_rolled_back = 0;
  int max_unavailable = 0, max_unavailable_seen = 0;
  int64_t decisions = 0;  // Decisions logged so far (the next seq).
  SimTime updated;

  NodeRun* FindNode(std::string_view name);
};

nlohmann::json ToJson(const RolloutRun& run);
Result<RolloutRun> RunFromJson(const nlohmann::json& j);

}  // namespace steward::rollout

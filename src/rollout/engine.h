// RolloutEngine: runs a RolloutPlan through control::ClusterControl, so the same engine drives
// the twin (twin::TwinClusterControl) and plans or acts on a live cluster (live::LiveClusterControl
// behind control::GatedControl). docs/rollout.md.
//
//   RolloutEngine engine(plan, commit, control, metrics, store);   // store may be null
//   STEWARD_RETURN_IF_ERROR(engine.Begin());        // new run, or resume the stored one
//   while (engine.Active()) { wait until engine.NextDeadline(); engine.Step(); }
//
// Each Step, at control.Now():
//   1. every node of the active set moves at most one state along the NVIDIA driver upgrade
//      controller's machine (upgrade-required -> cordon-required -> wait-for-jobs-required ->
//      pod-deletion-required [-> drain-required] -> pod-restart-required -> validation-required
//      -> uncordon-required -> upgrade-done, or upgrade-failed), acting by labels, cordons and
//      checkpoint-aware evictions; new nodes start only within maxParallel and maxUnavailable;
//   2. the batch moves: canary/promote -> soak -> gate -> next batch (promote) or, on a failed
//      or erroring gate, abort -> rollback of every touched node (same machine, previous
//      version, same budgets) -> rolled back; an inconclusive gate pauses for a human.
// Everything it decides is a Decision with the plan's commit and why; the step's decisions and
// the new state are committed to the store together.
//
// Never reads the wall clock (the control's Now() is the time). Thread-safety: one thread.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "control/cluster_control.h"
#include "rollout/metrics.h"
#include "rollout/plan.h"
#include "rollout/rollout_store.h"
#include "rollout/run_state.h"

namespace steward::rollout {

class RolloutEngine {
 public:
  RolloutEngine(RolloutPlan plan, std::string commit, control::ClusterControl& control,
                MetricSource& metrics, RolloutStore* store);

  enum class Start : uint8_t {
    // A live cluster keeps its state across a crash: continue from the stored snapshot. A
    // stored run of another version is FailedPrecondition, except the plan's version being the
    // stored run's previous version: the plan was reverted in Git, so the run rolls back.
    kResume,
    // The twin re-runs from its start: begin anew; the store checks each decision against its
    // log and appends past its end.
    kReplay,
  };
  // Starts a new run (selects targets and batches) or resumes the one in the store.
  Status Begin(Start start = Start::kResume);
  // A human's answer to a pause (an inconclusive gate): kResume accepts the batch and promotes
  // the next one, kAbort rolls back. Recorded as a decision with `why`, committed at once.
  // FailedPrecondition unless the rollout is paused.
  enum class Answer : uint8_t { kResume, kAbort };
  Status AnswerPause(Answer answer, const std::string& why);
  // One pass (above). Errors are the store's or a broken invariant; the run stops on them.
  Status Step();
  // Running (not paused or finished).
  bool Active() const { return run_.state == RolloutState::kRunning; }
  SimTime NextDeadline() const;

  const RolloutRun& run() const { return run_; }
  const RolloutPlan& plan() const { return plan_; }
  // Decisions of this process so far (also in the store).
  const std::vector<Decision>& decisions() const { return log_; }

 private:
  void Decide(std::string kind, std::string object, std::string from, std::string to,
              std::string reason);
  void SetNodeState(NodeRun& n, NodeState to, const std::string& why);
  void SetBatchState(BatchRun& b, BatchState to, const std::string& why);
  void SetRolloutState(RolloutState to, const std::string& why);
  Status StartRun();
  void StartRollback(const std::string& why);

  // Node machine: one transition at most. `rollback`: returning to from_version.
  void StepNode(NodeRun& n);
  bool Drained(NodeRun& n, SimDuration timeout, NodeState on_timeout);
  bool VersionApplied(NodeRun& n, bool* failed, std::string* why);
  void StartNodes(const std::vector<NodeRun*>& waiting);
  int Unavailable() const;

  void StepBatch(BatchRun& b);
  void Promote(BatchRun& passed);
  SimDuration SoakOf(const BatchRun& b) const;
  void MeasureGates(BatchRun& b);
  std::optional<double> Measure(const BatchRun& b, const GateRun& g);

  RolloutPlan plan_;
  std::string commit_;
  control::ClusterControl& control_;
  MetricSource& metrics_;
  RolloutStore* store_;
  RolloutRun run_;
  std::vector<Decision> log_, pending_;
  std::set<std::string> evicted_;  // node/namespace/pod evicted by this process (not retried).
};

}  // namespace steward::rollout

// TwinRollout: the rollout engine (engine.h) as a twin controller (twin/controller.h): it
// steps the engine at the engine's deadlines on simulated time, acting through
// twin::TwinClusterControl (the same ClusterControl interface the live cluster implements), and
// is the engine's MetricSource from the twin's signals:
//   Xids            XID signals of the node in the window;
//   JobFailureRate  XIDs that stop workloads (catalog action other than none) on the nodes in
//                   the window, over those plus the workloads holding GPUs there now.
//
//   auto* r = twin.AddController(std::make_unique<TwinRollout>(plan, commit, store.get()));
//   twin.RunUntil(...);   // until !r->engine()->Active()
//
// `rollout run PLAN SCENARIO` attaches one; so does every twin whose scenario has a gated
// faults.driver_rollouts entry (scenario_rollouts.h), starting at the entry's time. Its status
// goes into the twin's report (Contribute; rollout/status.h's shape).
//
// Cost: one engine step per plan tick; signals O(1). Thread-safety: the twin's thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rollout/engine.h"
#include "twin/controller.h"
#include "twin/twin.h"
#include "twin/twin_cluster_control.h"

namespace steward::rollout {

class TwinRollout final : public twin::TwinController, public MetricSource {
 public:
  // `store` may be null (nothing durable). A store holding a run of this plan is replayed: the
  // twin re-runs from its start and the engine's decisions are checked against the log
  // (rollout_store.h).
  TwinRollout(RolloutPlan plan, std::string commit, RolloutStore* store)
      : plan_(std::move(plan)), commit_(std::move(commit)), store_(store) {}

  // The answer to give a pause the log does not answer yet (`rollout run --resume|--abort`).
  void set_answer(std::optional<RolloutEngine::Answer> answer, std::string why) {
    answer_ = answer;
    answer_why_ = std::move(why);
  }

  // Begins the run at simulated time `at` instead of when attached. REQUIRES: before Attach.
  void set_start(SimTime at) { start_ = at; }

  // A scripted human (a scenario's gated.human): every pause the log does not answer is
  // answered `delay` after it began. Without one (and without set_answer) a pause waits for
  // Answer().
  void set_human(RolloutEngine::Answer answer, SimDuration delay) {
    human_ = answer;
    human_delay_ = delay;
  }
  // A human's answer now (steward serve's POST /api/rollouts/NAME/answer), recorded with
  // `why`. FailedPrecondition unless the rollout is paused. The caller re-reads the deadline
  // (twin::Twin::Rewake).
  Status Answer(RolloutEngine::Answer answer, const std::string& why);

  std::string_view Name() const override { return "rollout"; }
  Status Attach(twin::TwinOps& ops) override;
  void OnSignal(const twin::TwinSignal& signal) override;
  void OnWake(SimTime now) override;
  SimTime NextDeadline() const override;
  Status status() const override { return status_; }
  // The run's status (rollout/status.h) in the report's rollout section, once it has begun.
  void Contribute(twin::Report& report) const override;

  std::optional<double> Xids(const std::string& node, SimTime from, SimTime to) override;
  std::optional<double> JobFailureRate(const std::vector<std::string>& nodes, SimTime from,
                                       SimTime to) override;

  // The plan's name (GET /api/rollouts' rollouts[].name).
  const std::string& name() const { return plan_.name; }
  // Null until attached.
  const RolloutEngine* engine() const { return engine_.get(); }
  // The run has begun (its start time came): engine()->run() is the rollout's.
  bool begun() const { return begun_; }
  // Steps run so far (for pacing in the CLI).
  int64_t steps() const { return steps_; }

 private:
  RolloutPlan plan_;
  std::string commit_;
  RolloutStore* store_;
  twin::TwinOps* ops_ = nullptr;
  std::unique_ptr<twin::TwinClusterControl> control_;
  std::unique_ptr<RolloutEngine> engine_;
  Status status_;
  SimTime start_;  // Default: kSimStart, i.e. at once.
  bool begun_ = false;
  void BeginRun();
  int64_t steps_ = 0;
  std::optional<RolloutEngine::Answer> answer_;
  std::string answer_why_;
  std::optional<RolloutEngine::Answer> human_;
  SimDuration human_delay_;
  SimTime paused_at_ = SimTime::Never();  // When the current pause began.
  bool Paused() const;
  void AnswerPause();
  SimTime next_step_ = SimTime::Never();
  // By node name: times of XIDs, and of XIDs that stopped workloads.
  std::map<std::string, std::vector<SimTime>> xids_, job_failures_;
};

// The statuses of `rollouts` that have begun, as a JSON array (status.h's StatusJson each), for
// the dashboard (server::LiveTwinOptions::rollouts): the returned function rebuilds the array
// only when one of them decided something since its last call, else returns the same pointer;
// null while none has begun. Call it on the twin's thread.
std::function<std::shared_ptr<const nlohmann::json>()> StatusFeed(
    std::vector<const TwinRollout*> rollouts);

// A human's answer to the paused one of `rollouts` named `rollout` (LiveTwinOptions::
// answer_rollout, POST /api/rollouts/NAME/answer): NotFound for no such name. Call the returned
// function on the twin's thread.
std::function<Status(twin::Twin&, const std::string& rollout, bool resume, const std::string& why)>
PauseAnswerer(std::vector<TwinRollout*> rollouts);

}  // namespace steward::rollout

#include "rollout/engine.h"

#include <fmt/format.h>

#include <algorithm>

#include "rollout/batches.h"

namespace steward::rollout {
namespace {

std::string Label(const control::NodeInfo& n, const std::string& key) {
  auto it = n.labels.find(key);
  return it == n.labels.end() ? std::string() : it->second;
}

bool Ready(const control::NodeInfo& n) {
  for (const control::NodeCondition& c : n.conditions)
    if (c.type == "Ready") return c.status;
  return true;
}

std::string StateLabel(const RolloutPlan& plan) {
  if (plan.component == Component::kDriver) return kUpgradeStateLabel;
  return fmt::format("steward.io/{}-upgrade-state", ComponentName(plan.component));
}

std::string Minutes(SimDuration d) { return fmt::format("{:.0f} min", d.ToSeconds() / 60); }

}  // namespace

RolloutEngine::RolloutEngine(RolloutPlan plan, std::string commit, control::ClusterControl& control,
                             MetricSource& metrics, RolloutStore* store)
    : plan_(std::move(plan)),
      commit_(std::move(commit)),
      control_(control),
      metrics_(metrics),
      store_(store) {}

void RolloutEngine::Decide(std::string kind, std::string object, std::string from, std::string to,
                           std::string reason) {
  Decision d;
  d.seq = run_.decisions++;
  d.at = control_.Now();
  d.commit = commit_;
  d.kind = std::move(kind);
  d.object = std::move(object);
  d.from = std::move(from);
  d.to = std::move(to);
  d.reason = std::move(reason);
  log_.push_back(d);
  pending_.push_back(std::move(d));
}

void RolloutEngine::SetNodeState(NodeRun& n, NodeState to, const std::string& why) {
  Decide("node", n.name, std::string(NodeStateName(n.state)), std::string(NodeStateName(to)), why);
  n.state = to;
  n.since = control_.Now();
  const std::string reason = fmt::format("rollout {}: {}", plan_.name, why);
  // The label is the machine's visible state (as the driver upgrade controller's); a failure
  // to write it is retried by the next transition, the state itself is ours.
  (void)control_.LabelNode(
      n.name, run_.state_label,
      to == NodeState::kUntouched ? std::nullopt : std::optional<std::string>(NodeStateName(to)),
      reason);
}

void RolloutEngine::SetBatchState(BatchRun& b, BatchState to, const std::string& why) {
  Decide("batch", b.name, std::string(BatchStateName(b.state)), std::string(BatchStateName(to)),
         why);
  b.state = to;
}

void RolloutEngine::SetRolloutState(RolloutState to, const std::string& why) {
  Decide("rollout", run_.plan_name, std::string(RolloutStateName(run_.state)),
         std::string(RolloutStateName(to)), why);
  run_.state = to;
  run_.reason = why;
}

Status RolloutEngine::Begin(Start start) {
  if (store_ != nullptr && start == Start::kResume) {
    STEWARD_ASSIGN_OR_RETURN(std::optional<RolloutRun> saved, store_->Load());
    if (saved) {
      if (saved->version == plan_.version) {
        run_ = std::move(*saved);
        return Status::Ok();
      }
      if (!saved->previous_version.empty() && saved->previous_version == plan_.version) {
        run_ = std::move(*saved);
        if (!run_.rolling_back) {
          run_.state = RolloutState::kRunning;
          StartRollback(fmt::format("the plan now asks for {} (commit {}): rolling back from {}",
                                    plan_.version, commit_, run_.version));
          return store_->Commit(run_, std::exchange(pending_, {}));
        }
        return Status::Ok();
      }
      return Status::FailedPrecondition(fmt::format(
          "{}: holds rollout '{}' to {} (from {}); the plan asks for {}: use another --state",
          plan_.file, saved->plan_name, saved->version, saved->previous_version, plan_.version));
    }
  }
  STEWARD_RETURN_IF_ERROR(StartRun());
  if (store_ != nullptr) return store_->Commit(run_, std::exchange(pending_, {}));
  pending_.clear();
  return Status::Ok();
}

Status RolloutEngine::StartRun() {
  const std::vector<control::NodeInfo> targets = TargetNodes(plan_, control_.Nodes());
  if (targets.empty())
    return Status::FailedPrecondition(
        fmt::format("{}: no node has the selector's labels", plan_.file));
  STEWARD_ASSIGN_OR_RETURN(std::vector<std::vector<std::string>> batches,
                           SplitBatches(plan_, targets));
  run_ = RolloutRun{};
  run_.plan_name = plan_.name;
  run_.plan_file = plan_.file;
  run_.plan_commit = commit_;
  run_.component = std::string(ComponentName(plan_.component));
  run_.version = plan_.version;
  run_.version_label = plan_.VersionLabel();
  run_.state_label = StateLabel(plan_);
  run_.max_unavailable = plan_.MaxUnavailable(static_cast<int>(targets.size()));
  for (const control::NodeInfo& t : targets) {
    NodeRun n;
    n.name = t.name;
    n.from_version = Label(t, run_.version_label);
    if (n.from_version.empty() && plan_.component == Component::kDriver)
      n.from_version = Label(t, "nvidia.com/cuda.driver-version.full");
    if (n.from_version.empty()) n.from_version = plan_.previous_version;
    n.want_version = plan_.version;
    run_.nodes.push_back(std::move(n));
  }
  run_.previous_version = plan_.previous_version;
  if (run_.previous_version.empty()) run_.previous_version = run_.nodes.front().from_version;
  for (size_t i = 0; i < batches.size(); ++i) {
    if (batches[i].empty()) continue;  // Nothing left for it: the batch is skipped.
    BatchRun b;
    b.name = plan_.batches[i].name;
    b.nodes = batches[i];
    for (const std::string& name : b.nodes)
      run_.FindNode(name)->batch = static_cast<int>(run_.batches.size());
    run_.batches.push_back(std::move(b));
  }
  Decide("rollout", run_.plan_name, "", "running",
         fmt::format("{} {} -> {} on {} nodes in {} batches (maxParallel {}, maxUnavailable {})",
                     run_.component, run_.previous_version, run_.version, run_.nodes.size(),
                     run_.batches.size(), plan_.max_parallel, run_.max_unavailable));
  BatchRun& first = run_.batches.front();
  first.started = control_.Now();
  SetBatchState(first, BatchState::kCanary, "first batch: the canary");
  for (const std::string& name : first.nodes)
    SetNodeState(*run_.FindNode(name), NodeState::kUpgradeRequired, "in the canary batch");
  return Status::Ok();
}

SimDuration RolloutEngine::SoakOf(const BatchRun& b) const {
  for (const BatchSpec& spec : plan_.batches)
    if (spec.name == b.name) return spec.soak.value_or(plan_.soak);
  return plan_.soak;
}

SimTime RolloutEngine::NextDeadline() const {
  return Active() ? control_.Now() + plan_.tick : SimTime::Never();
}

int RolloutEngine::Unavailable() const {
  int count = 0;
  for (const NodeRun& n : run_.nodes) {
    std::optional<control::NodeInfo> info = control_.Node(n.name);
    if (!info) continue;
    count += rollout::Unavailable(*info) || n.state == NodeState::kCordonRequired;
  }
  return count;
}

void RolloutEngine::StartNodes(const std::vector<NodeRun*>& waiting) {
  if (waiting.empty()) return;
  Budget b;
  b.total = static_cast<int>(run_.nodes.size());
  for (const NodeRun& n : run_.nodes) b.in_progress += InProgress(n.state);
  b.unavailable = Unavailable();
  b.max_parallel = plan_.max_parallel;
  b.max_unavailable = run_.max_unavailable;
  int slots = UpgradeSlots(b);
  for (NodeRun* n : waiting) {
    std::optional<control::NodeInfo> info = control_.Node(n->name);
    if (!info) continue;
    const bool already = info->unschedulable;
    if (!already && slots <= 0) continue;
    if (!already) --slots;
    if (!n->cordoned_by_us) n->was_unschedulable = already;  // Not our own earlier cordon.
    SetNodeState(*n, NodeState::kCordonRequired,
                 already ? "already unschedulable: starts without a slot"
                         : fmt::format("a slot is free ({} in progress, {} of {} unavailable)",
                                       b.in_progress, b.unavailable, b.max_unavailable));
    ++b.in_progress;
  }
}

bool RolloutEngine::Drained(NodeRun& n, SimDuration timeout, NodeState on_timeout) {
  std::vector<control::PodInfo> pods = control_.PodsOnNode(n.name);
  if (pods.empty()) return true;
  if (control_.Now() - n.since >= timeout) {
    SetNodeState(
        n, on_timeout,
        fmt::format("{} GPU pods still on the node after {}", pods.size(), Minutes(timeout)));
    return false;
  }
  for (const control::PodInfo& p : pods) {
    const std::string key = n.name + "/" + p.ref.namespace_name + "/" + p.ref.name;
    if (evicted_.count(key)) continue;
    // Checkpoint-aware, as the remediation loop drains: a checkpointing job gets the time to
    // save; a budget's refusal (Unavailable) is retried on a later step.
    const SimDuration grace = p.can_checkpoint ? plan_.checkpoint_grace : plan_.eviction_grace;
    const Status s = control_.Evict(p.ref, grace,
                                    fmt::format("rollout {}: drain {} for {} {}", plan_.name,
                                                n.name, run_.component, n.want_version));
    if (s.ok() || s.code() == Status::Code::kNotFound) evicted_.insert(key);
  }
  return false;
}

bool RolloutEngine::VersionApplied(NodeRun& n, bool* failed, std::string* why) {
  *failed = false;
  if (plan_.component != Component::kMigConfig) {
    if (control_.Now() - n.since < plan_.restart_time) return false;
    *why = fmt::format("{} pod restarted on {}", run_.component, n.want_version);
    return true;
  }
  std::optional<control::NodeInfo> info = control_.Node(n.name);
  const std::string state = info ? Label(*info, kMigStateLabel) : "";
  if (state == "success") {
    *why = fmt::format("mig.config.state=success for {}", n.want_version);
    return true;
  }
  if (state == "failed") {
    *failed = true;
    *why = "mig.config.state=failed";
    return false;
  }
  if (control_.Now() - n.since >= plan_.mig_pending_timeout) {
    *failed = true;
    *why = fmt::format("mig.config.state={} for longer than {}", state.empty() ? "unset" : state,
                       Minutes(plan_.mig_pending_timeout));
  }
  return false;
}

void RolloutEngine::StepNode(NodeRun& n) {
  const SimTime now = control_.Now();
  const std::string reason =
      fmt::format("rollout {}: {} {}", plan_.name, run_.component, n.want_version);
  switch (n.state) {
    case NodeState::kCordonRequired: {
      std::optional<control::NodeInfo> info = control_.Node(n.name);
      if (info && !info->unschedulable) {
        if (!control_.Cordon(n.name, true, reason).ok()) return;
        n.cordoned_by_us = true;
      }
      SetNodeState(n, NodeState::kWaitForJobsRequired, "cordoned");
      return;
    }
    case NodeState::kWaitForJobsRequired: {
      bool running = false;
      if (plan_.wait_for_jobs_timeout.micros() > 0)
        for (const control::PodInfo& p : control_.PodsOnNode(n.name)) running |= p.running;
      if (!running) {
        SetNodeState(n, NodeState::kPodDeletionRequired,
                     plan_.wait_for_jobs_timeout.micros() > 0 ? "no job runs on the node"
                                                              : "no wait for jobs configured");
      } else if (now - n.since >= plan_.wait_for_jobs_timeout) {
        SetNodeState(n, NodeState::kPodDeletionRequired,
                     fmt::format("jobs still run after {}", Minutes(plan_.wait_for_jobs_timeout)));
      }
      return;
    }
    case NodeState::kPodDeletionRequired:
    case NodeState::kDrainRequired: {
      const bool deletion = n.state == NodeState::kPodDeletionRequired;
      if (!Drained(n, deletion ? plan_.pod_deletion_timeout : plan_.drain_timeout,
                   deletion ? NodeState::kDrainRequired : NodeState::kUpgradeFailed))
        return;
      // The version changes now: the label an NVIDIADriver CR (or the MIG manager) selects on.
      if (!control_.LabelNode(n.name, run_.version_label, n.want_version, reason).ok()) return;
      const bool forward = n.want_version == run_.version;
      if (forward) {
        n.on_target = true;
        run_.nodes_upgraded += ++n.upgrades == 1;
      } else {
        n.on_target = false;
        run_.nodes_rolled_back += ++n.rollbacks == 1;
      }
      SetNodeState(
          n, NodeState::kPodRestartRequired,
          fmt::format("no GPU pods left; {} set to {}", run_.version_label, n.want_version));
      return;
    }
    case NodeState::kPodRestartRequired: {
      bool failed = false;
      std::string why;
      if (VersionApplied(n, &failed, &why))
        SetNodeState(n, NodeState::kValidationRequired, why);
      else if (failed)
        SetNodeState(n, NodeState::kUpgradeFailed, why);
      return;
    }
    case NodeState::kValidationRequired: {
      std::optional<control::NodeInfo> info = control_.Node(n.name);
      if (info && Ready(*info) && info->gpu_capacity > 0 &&
          info->gpu_allocatable == info->gpu_capacity) {
        SetNodeState(n, NodeState::kUncordonRequired,
                     fmt::format("validated: Ready, {} of {} GPUs advertised",
                                 info->gpu_allocatable, info->gpu_capacity));
      } else if (now - n.since >= plan_.validation_timeout) {
        SetNodeState(n, NodeState::kUpgradeFailed,
                     fmt::format("not validated after {}: {} of {} GPUs advertised",
                                 Minutes(plan_.validation_timeout),
                                 info ? info->gpu_allocatable : 0, info ? info->gpu_capacity : 0));
      }
      return;
    }
    case NodeState::kUncordonRequired:
      if (n.cordoned_by_us) {
        if (!control_.Cordon(n.name, false, reason).ok()) return;
        n.cordoned_by_us = false;
      }
      SetNodeState(n, NodeState::kUpgradeDone,
                   n.was_unschedulable ? "left cordoned, as it was before" : "uncordoned");
      return;
    default:
      return;
  }
}

void RolloutEngine::StartRollback(const std::string& why) {
  run_.rolling_back = true;
  for (BatchRun& b : run_.batches)
    if (b.state != BatchState::kPending) SetBatchState(b, BatchState::kRollback, why);
  for (NodeRun& n : run_.nodes) {
    if (n.state == NodeState::kUntouched) continue;
    n.want_version = n.from_version;
    if (n.state == NodeState::kUpgradeRequired) {
      SetNodeState(n, NodeState::kUntouched, "rollback: never started");
    } else if (!n.on_target && n.upgrades == 0) {
      // Its version never changed (in flight, or failed draining): only our cordon is undone.
      if (n.cordoned_by_us || InProgress(n.state))
        SetNodeState(n, NodeState::kUncordonRequired, "rollback: its version never changed");
      else if (n.state == NodeState::kUpgradeFailed)
        SetNodeState(n, NodeState::kUpgradeDone, "rollback: its version never changed");
    } else {
      SetNodeState(n, NodeState::kUpgradeRequired, fmt::format("rollback to {}", n.from_version));
    }
  }
}

std::optional<double> RolloutEngine::Measure(const BatchRun& b, const GateRun& g) {
  const SimTime now = control_.Now();
  if (g.metric == "schedulable_gpus") {
    // Of the batch's nodes the rollout found schedulable: a node an admin had cordoned before
    // says nothing about the version.
    int capacity = 0, schedulable = 0;
    for (const std::string& name : b.nodes) {
      if (run_.FindNode(name)->was_unschedulable) continue;
      std::optional<control::NodeInfo> info = control_.Node(name);
      if (!info) continue;
      capacity += info->gpu_capacity;
      if (!rollout::Unavailable(*info)) schedulable += info->gpu_allocatable;
    }
    if (capacity == 0) return std::nullopt;
    return static_cast<double>(schedulable) / capacity;
  }
  if (g.metric == "validator_pass_rate") {
    int done = 0, failed = 0;
    for (const std::string& name : b.nodes) {
      const NodeRun* n = run_.FindNode(name);
      done += n->state == NodeState::kUpgradeDone;
      failed += n->state == NodeState::kUpgradeFailed;
    }
    if (done + failed == 0) return std::nullopt;
    return static_cast<double>(done) / (done + failed);
  }
  if (g.metric == "job_failure_rate") return metrics_.JobFailureRate(b.nodes, b.upgraded, now);
  // xid_rate_delta: XIDs per node-hour on the batch minus on the control group (nodes the
  // rollout never touched), over the same window.
  const double hours = (now - b.upgraded).ToHours();
  if (!(hours > 0)) return std::nullopt;
  double batch = 0;
  for (const std::string& name : b.nodes) {
    std::optional<double> x = metrics_.Xids(name, b.upgraded, now);
    if (!x) return std::nullopt;
    batch += *x;
  }
  double control = 0;
  int control_nodes = 0;
  for (const control::NodeInfo& info : control_.Nodes()) {
    const NodeRun* n = run_.FindNode(info.name);
    if (n != nullptr && n->state != NodeState::kUntouched) continue;
    std::optional<double> x = metrics_.Xids(info.name, b.upgraded, now);
    if (!x) return std::nullopt;
    control += *x;
    ++control_nodes;
  }
  const double batch_rate = batch / (b.nodes.size() * hours);
  const double control_rate = control_nodes > 0 ? control / (control_nodes * hours) : 0;
  return batch_rate - control_rate;
}

void RolloutEngine::MeasureGates(BatchRun& b) {
  const SimTime now = control_.Now();
  for (size_t i = 0; i < b.gates.size(); ++i) {
    GateRun& g = b.gates[i];
    if (g.verdict != Verdict::kRunning || g.next_at > now) continue;
    const GateSpec& spec = plan_.gates[i];
    Measurement m;
    m.at = now;
    m.value = Measure(b, g);
    m.verdict = AssessMeasurement(spec, m.value, &m.why);
    g.tally.Add(m.verdict);
    Decide("measurement", b.name + "/" + g.name, "", std::string(VerdictName(m.verdict)), m.why);
    g.measurements.push_back(m);
    g.next_at = now + spec.interval;
    const Verdict v = JudgeGate(spec, g.tally);
    if (v != Verdict::kRunning) {
      g.verdict = v;
      g.next_at = SimTime::Never();
      Decide("gate", b.name + "/" + g.name, "running", std::string(VerdictName(v)),
             fmt::format("{} measurements: {} successful, {} failed (limit {}), {} inconclusive "
                         "(limit {}), {} consecutive errors (limit {}); last: {}",
                         g.tally.measurements, g.tally.successful, g.tally.failed,
                         spec.failure_limit, g.tally.inconclusive, spec.inconclusive_limit,
                         g.tally.consecutive_errors, spec.consecutive_error_limit, m.why));
    }
  }
}

void RolloutEngine::StepBatch(BatchRun& b) {
  const SimTime now = control_.Now();
  switch (b.state) {
    case BatchState::kCanary:
    case BatchState::kPromote: {
      int done = 0, failed = 0;
      for (const std::string& name : b.nodes) {
        const NodeState s = run_.FindNode(name)->state;
        done += s == NodeState::kUpgradeDone;
        failed += s == NodeState::kUpgradeFailed;
      }
      if (done + failed < static_cast<int>(b.nodes.size())) return;
      b.upgraded = now;
      const bool judged = std::any_of(plan_.gates.begin(), plan_.gates.end(), [](const auto& g) {
        return g.metric == "validator_pass_rate";
      });
      if (failed > 0 && !judged) {
        SetBatchState(b, BatchState::kAbort,
                      fmt::format("{} of {} nodes upgrade-failed (no validator gate)", failed,
                                  b.nodes.size()));
        StartRollback(fmt::format("batch {} aborted", b.name));
        return;
      }
      const SimDuration soak = SoakOf(b);
      b.soak_until = now + soak;
      SetBatchState(
          b, BatchState::kSoak,
          fmt::format("{} nodes upgraded, {} failed; soak {}", done, failed, Minutes(soak)));
      return;
    }
    case BatchState::kSoak:
      if (now < b.soak_until) return;
      b.gates.clear();
      for (const GateSpec& spec : plan_.gates) {
        GateRun g;
        g.name = spec.name;
        g.metric = spec.metric;
        g.success_condition = spec.success_condition;
        g.failure_condition = spec.failure_condition;
        g.next_at = now;
        b.gates.push_back(std::move(g));
      }
      SetBatchState(b, BatchState::kGate, "soak over: the gates measure");
      [[fallthrough]];
    case BatchState::kGate: {
      MeasureGates(b);
      bool running = false, inconclusive = false;
      for (const GateRun& g : b.gates) {
        if (g.verdict == Verdict::kFailed || g.verdict == Verdict::kError) {
          const std::string why = fmt::format("gate {} {}", g.name, VerdictName(g.verdict));
          SetBatchState(b, BatchState::kAbort, why);
          StartRollback(fmt::format("batch {} aborted: {}", b.name, why));
          return;
        }
        running |= g.verdict == Verdict::kRunning;
        inconclusive |= g.verdict == Verdict::kInconclusive;
      }
      if (running) return;
      if (inconclusive) {
        SetBatchState(b, BatchState::kPaused, "a gate was inconclusive: a human decides");
        SetRolloutState(RolloutState::kPaused,
                        fmt::format("batch {}: a gate was inconclusive", b.name));
        return;
      }
      SetBatchState(b, BatchState::kDone, "every gate passed");
      Promote(b);
      return;
    }
    default:
      return;
  }
}

void RolloutEngine::Promote(BatchRun& passed) {
  if (run_.current_batch + 1 >= static_cast<int>(run_.batches.size())) {
    SetRolloutState(RolloutState::kSucceeded,
                    fmt::format("{} nodes on {}", run_.nodes_upgraded, run_.version));
    return;
  }
  BatchRun& next = run_.batches[++run_.current_batch];
  next.started = control_.Now();
  SetBatchState(next, BatchState::kPromote, fmt::format("batch {} passed", passed.name));
  for (const std::string& name : next.nodes)
    SetNodeState(*run_.FindNode(name), NodeState::kUpgradeRequired,
                 fmt::format("in batch {}", next.name));
}

Status RolloutEngine::AnswerPause(Answer answer, const std::string& why) {
  if (run_.state != RolloutState::kPaused)
    return Status::FailedPrecondition(
        fmt::format("rollout {} is {}, not paused", run_.plan_name, RolloutStateName(run_.state)));
  BatchRun& b = run_.batches[run_.current_batch];
  const bool resume = answer == Answer::kResume;
  SetRolloutState(RolloutState::kRunning,
                  fmt::format("{} by a human: {}", resume ? "resumed" : "aborted", why));
  if (resume) {
    SetBatchState(b, BatchState::kDone, "a human accepted the inconclusive gates");
    Promote(b);
  } else {
    SetBatchState(b, BatchState::kAbort, "a human aborted after the inconclusive gates");
    StartRollback(fmt::format("batch {} aborted by a human", b.name));
  }
  run_.updated = control_.Now();
  if (store_ != nullptr) return store_->Commit(run_, std::exchange(pending_, {}));
  pending_.clear();
  return Status::Ok();
}

Status RolloutEngine::Step() {
  if (!Active()) return Status::Ok();
  std::vector<NodeRun*> waiting;
  for (NodeRun& n : run_.nodes) {
    const bool active =
        run_.rolling_back ? n.state != NodeState::kUntouched : n.batch == run_.current_batch;
    if (!active) continue;
    if (n.state == NodeState::kUpgradeRequired)
      waiting.push_back(&n);
    else
      StepNode(n);
  }
  StartNodes(waiting);
  if (run_.rolling_back) {
    bool all = true, failed = false;
    for (const NodeRun& n : run_.nodes) {
      if (n.state == NodeState::kUntouched) continue;
      all &= n.state == NodeState::kUpgradeDone || n.state == NodeState::kUpgradeFailed;
      failed |= n.state == NodeState::kUpgradeFailed;
    }
    if (all) {
      for (BatchRun& b : run_.batches)
        if (b.state == BatchState::kRollback)
          SetBatchState(b, BatchState::kRolledBack, "its nodes are back");
      if (failed)
        SetRolloutState(RolloutState::kFailed, "rollback left nodes upgrade-failed");
      else
        SetRolloutState(
            RolloutState::kRolledBack,
            fmt::format("{} nodes back on their previous version", run_.nodes_rolled_back));
    }
  } else {
    StepBatch(run_.batches[run_.current_batch]);
  }
  const int seen_before = run_.max_unavailable_seen;
  run_.max_unavailable_seen = std::max(run_.max_unavailable_seen, Unavailable());
  run_.updated = control_.Now();
  // A step that only saw more nodes unavailable is saved too (the budget's record).
  if (store_ != nullptr && (!pending_.empty() || run_.max_unavailable_seen != seen_before))
    return store_->Commit(run_, std::exchange(pending_, {}));
  pending_.clear();
  return Status::Ok();
}

}  // namespace steward::rollout

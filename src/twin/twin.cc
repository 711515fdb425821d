#include "twin/twin.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "govern/policy_io.h"
#include "place/mig.h"
#include "twin/build_cluster.h"
#include "twin/memory_estimate.h"
#include "twin/scenario_policy.h"
#include "twin/tenancy.h"
#include "twin/trace.h"

namespace steward::twin {
namespace {

using model::UsageRates;

// Returns the heap's free pages to the system. Finished runs are released all day long
// (twin/run_table.h), in small pieces among long-lived ones; glibc keeps such pages resident, so
// without this a year's peak RSS creeps up by fragmentation though the heap in use does not.
// Called once per simulated day: a few milliseconds.
void ReturnFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

// Since the trim above returns freed pages once a simulated day, glibc need not do it on every
// free: its own thresholds would unmap or trim a large block as it is freed (a wait
// distribution's re-encoded buffer, 100-500 KB, each merge a little larger than the last, so
// always past the adaptive mmap threshold), and the next one then faults in fresh zeroed pages
// (the kernel's clear_page was 5 % of a 102,400-GPU run). Blocks under 4 MB come from the heap
// and freed ones are reused until the daily trim. Process-wide, set once, before the twin's
// first allocation of its run.
void KeepFreedMemoryUntilTheDailyTrim() {
#if defined(__GLIBC__)
  static const bool once = [] {
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TRIM_THRESHOLD, 16 << 20);
    return true;
  }();
  (void)once;
#endif
}

}  // namespace

Twin::Twin(Scenario scenario, model::Cluster cluster)
    : scenario_(std::move(scenario)),
      cluster_(std::move(cluster)),
      meter_(static_cast<int>(scenario_.teams.size()) * model::kNumWorkloadKinds),
      failure_rng_(MixSeed(scenario_.seed, 0xfa11)),
      startup_rng_(MixSeed(scenario_.seed, 0x57a7)),
      waits_by_tier_(model::kNumTiers),
      waits_by_team_(scenario_.teams.size()) {
  workloads_by_team_.assign(scenario_.teams.size(), 0);
  for (int t = 0; t < model::kNumTiers; ++t)
    preemptions_by_tier_[std::string(model::TierName(static_cast<model::Tier>(t)))] = 0;
  for (const auto& team : scenario_.teams) {
    lost_by_team_[team.name] = 0;
    preemption_lost_by_team_[team.name] = 0;
  }
  for (int t = 0; t < model::kNumTiers; ++t) {
    const std::string tier(model::TierName(static_cast<model::Tier>(t)));
    lost_by_tier_[tier] = 0;
    preemption_lost_by_tier_[tier] = 0;
  }
}

Result<std::unique_ptr<Twin>> Twin::Create(Scenario scenario, const TwinOptions& options) {
  KeepFreedMemoryUntilTheDailyTrim();
  if (options.days > 0) scenario.horizon_days = options.days;
  if (options.seed >= 0) scenario.seed = static_cast<uint64_t>(options.seed);
  // Before anything is built: a scenario too large for the machine is refused at once.
  STEWARD_RETURN_IF_ERROR(CheckMemory(
      scenario, EstimateMemory(scenario),
      options.memory_limit_bytes == 0 ? DefaultMemoryLimit() : options.memory_limit_bytes));
  STEWARD_ASSIGN_OR_RETURN(model::Cluster cluster, BuildCluster(scenario));
  std::unique_ptr<Twin> t(new Twin(std::move(scenario), std::move(cluster)));
  const Scenario& s = t->scenario_;
  t->horizon_ = kSimStart + SecondsF(s.horizon_days * 86400);
  t->startup_ = SecondsF(s.policies.startup_seconds);
  t->progress_ = options.progress;
  t->next_progress_ = kSimStart + Days(1);
  t->state_ = std::make_unique<ClusterState>(t->cluster_);
  t->defrag_.enabled = s.policies.defrag.enabled;
  std::vector<int> quota;
  for (const auto& team : s.teams) quota.push_back(team.quota_gpus);
  std::vector<std::string> policy_files = options.policy_files;
  if (policy_files.empty())
    for (const auto& g : s.policies.governance) policy_files.push_back(g.string());
  if (!policy_files.empty()) {
    STEWARD_ASSIGN_OR_RETURN(govern::Policy policy, govern::ImportPolicyFiles(policy_files));
    std::vector<std::string> products;
    for (const auto& m : t->cluster_.gpu_models()) products.push_back(m.product_label);
    STEWARD_ASSIGN_OR_RETURN(t->admitter_,
                             NewKueueAdmitter(std::move(policy), s.policies.victim_ordering,
                                              t->cluster_.total_gpus(), std::move(products)));
  } else if (s.policies.admission == "kueue") {
    return Status::InvalidArgument(s.source +
                                   ": policies.admission 'kueue' needs policies.governance "
                                   "files or --policy");
  } else {
    STEWARD_ASSIGN_OR_RETURN(t->admitter_, NewAdmitter(s.policies.admission, quota));
  }
  if (s.tenancy.enabled()) {
    // The audit sees the policy the twin admits with: the governance files, else the
    // fifo-quota teams as Kueue objects (none for other admitters).
    govern::Policy policy;
    if (!policy_files.empty()) {
      STEWARD_ASSIGN_OR_RETURN(policy, govern::ImportPolicyFiles(policy_files));
    } else if (auto p = ScenarioPolicy(s); p.ok()) {
      policy = std::move(p).value();
    }
    STEWARD_ASSIGN_OR_RETURN(t->tenancy_, AuditScenarioTenancy(s, t->cluster_, policy));
  }

  for (size_t i = 0; i < s.generators.size(); ++i) {
    const GeneratorSpec& g = s.generators[i];
    const int team = s.FindTeam(g.team);
    const int model = g.gpu_model.empty() ? -1 : t->cluster_.FindGpuModel(g.gpu_model);
    t->sources_.push_back(
        NewGeneratorSource(g, s.teams[team], team, model, t->horizon_, MixSeed(s.seed, i)));
  }
  std::vector<std::vector<model::Workload>> traced;
  for (const TraceSpec& spec : s.traces) {
    STEWARD_ASSIGN_OR_RETURN(TraceLoad load, LoadTrace(spec, s, t->cluster_));
    traced.push_back(std::move(load.workloads));
  }
  std::vector<model::Workload> all_traced;
  for (const auto& list : traced) all_traced.insert(all_traced.end(), list.begin(), list.end());
  STEWARD_ASSIGN_OR_RETURN(
      t->placer_, Placer::Create(s, t->state_.get(), ExpectedPods(s, *t->state_, all_traced),
                                 MixSeed(s.seed, 0x91ace)));
  STEWARD_RETURN_IF_ERROR(t->CheckRoutes());
  for (auto& list : traced) t->sources_.push_back(NewListSource(std::move(list)));
  for (size_t i = 0; i < t->sources_.size(); ++i) {
    const SimTime next = t->sources_[i]->NextTime();
    if (next <= t->horizon_)
      t->events_queue_.Push(next, EventKind::kArrive, static_cast<int32_t>(i));
  }
  t->events_queue_.Push(kSimStart, EventKind::kSample);
  t->on_window_ = options.on_window;
  t->on_lifecycle_ = options.on_lifecycle;
  t->finished_runs_kept_ = options.finished_runs_kept;
  t->alerts_ = control::TenantShareAlert(t->scenario_.policies.alert_tenant_share);
  t->window_ = options.window;
  if (t->on_window_) {
    if (t->window_.micros() <= 0) return Status::InvalidArgument("usage window must be positive");
    t->events_queue_.Push(kSimStart + t->window_, EventKind::kWindow);
  }
  t->events_queue_.Push(kSimStart + Hours(1), EventKind::kScale);
  STEWARD_RETURN_IF_ERROR(t->SetUpFaults());
  STEWARD_RETURN_IF_ERROR(t->SetUpServing());
  return t;
}

Report Twin::Run() {
  RunUntil(horizon_);
  EmitWindow(now_);  // The last, possibly partial, window.
  return BuildReport();
}

void Twin::RunUntil(SimTime t) {
  const SimTime until = std::min(t, horizon_);
  while (!events_queue_.empty() && events_queue_.TopTime() <= until) {
    const Event e = events_queue_.Pop();
    AccumulateUnavailable(e.time);
    if (e.time.micros() / Days(1).micros() != now_.micros() / Days(1).micros())
      ReturnFreedMemory();  // A new simulated day.
    now_ = e.time;
    ++events_;
    switch (e.kind) {
      case EventKind::kArrive:
        OnArrive(e);
        break;
      case EventKind::kSchedule:
        OnSchedule();
        break;
      case EventKind::kStart:
        OnStart(e);
        break;
      case EventKind::kPhase:
        OnPhase(e);
        break;
      case EventKind::kFinish:
        OnFinish(e);
        break;
      case EventKind::kFail:
        OnFail(e);
        break;
      case EventKind::kScale:
        OnScale();
        break;
      case EventKind::kSample:
        OnSample();
        break;
      case EventKind::kWindow:
        OnWindow();
        break;
      case EventKind::kFault:
        OnFault(e);
        break;
      case EventKind::kXid:
        OnPlannedFault(e);
        break;
      case EventKind::kRollout:
        OnRollout(e);
        break;
      case EventKind::kEvictEnd:
        OnEvictEnd(e);
        break;
      case EventKind::kCheckpoint:
        OnCheckpoint(e);
        break;
      case EventKind::kWake:
        OnWake(e);
        break;
      case EventKind::kServe:
        OnServe();
        break;
    }
    if (progress_ && now_ >= next_progress_) {
      progress_(now_, horizon_);
      next_progress_ = now_ + Days(1);
    }
  }
  AccumulateUnavailable(std::max(now_, until));
  now_ = std::max(now_, until);
  admitter_->FlushPendingReasons(*this);  // Reasons are read between RunUntil calls only.
}

const WorkloadRun* Twin::FindRun(std::string_view name) const {
  for (const WorkloadRun& r : runs_)
    if (r.spec.name == name) return &r;
  return nullptr;
}

// ---- Event handlers --------------------------------------------------------------------

void Twin::OnArrive(const Event& e) {
  WorkloadSource& src = *sources_[e.target];
  model::Workload w = src.Take();
  w.id = static_cast<model::WorkloadId>(runs_.size());
  Accept(std::move(w));
  const SimTime next = src.NextTime();
  if (next <= horizon_) events_queue_.Push(next, EventKind::kArrive, e.target);
}

void Twin::Accept(model::Workload w) {
  WorkloadRun run;
  run.spec = std::move(w);
  run.remaining = run.spec.duration;
  if (run.spec.kind == model::WorkloadKind::kInference) {
    if (serving_generators_.empty() || !AcceptService(run))
      run.desired_replicas = DesiredReplicas(run.spec, now_);
    services_.push_back(run.spec.id);
  }
  placer_->Observe(run.spec);
  const model::WorkloadId id = run.spec.id;
  ++workloads_by_team_[run.spec.team];
  const WorkloadRun& added = runs_.Add(std::move(run));
  Log(LifecycleKind::kArrive, added, added.spec.TotalGpus());
  ++pending_;
  MakePending(id);
}

void Twin::OnSchedule() {
  schedule_requested_ = false;
  admitter_->Cycle(*this);
}

void Twin::OnStart(const Event& e) {
  WorkloadRun* found = runs_.Find(e.target);
  if (found == nullptr) return;  // Finished and released: the event is stale.
  WorkloadRun& run = *found;
  if (e.epoch != run.epoch) return;
  const model::Workload& w = run.spec;
  if (w.kind == model::WorkloadKind::kInference) {
    for (auto& p : run.pods) {
      if (p.pod_id != e.aux) continue;
      p.running = true;
      Log(LifecycleKind::kStart, run, std::popcount(p.gpus));
    }
    Reaccount(run);
    return;
  }
  int gpus = 0;
  for (auto& p : run.pods) {
    p.running = true;
    gpus += std::popcount(p.gpus);
  }
  Reaccount(run);
  run.state = RunState::kRunning;
  ++running_;
  if (admitter_->Started(w)) RequestSchedule();
  run.started = now_;
  Log(LifecycleKind::kStart, run, gpus);
  if (run.first_started.is_never()) run.first_started = now_;
  events_queue_.Push(now_ + run.remaining, EventKind::kFinish, e.target, run.epoch);
  if (!run.idle && !w.usage.active_duration.is_infinite() &&
      w.usage.active_duration < run.remaining)
    events_queue_.Push(now_ + w.usage.active_duration, EventKind::kPhase, e.target, run.epoch);
  ScheduleRunEvents(run, gpus);
}

void Twin::OnPhase(const Event& e) {
  WorkloadRun* found = runs_.Find(e.target);
  if (found == nullptr) return;  // Finished and released: the event is stale.
  WorkloadRun& run = *found;
  if (e.epoch != run.epoch) return;
  SetRates(run, /*active=*/false, true);
}

void Twin::OnFinish(const Event& e) {
  WorkloadRun* found = runs_.Find(e.target);
  if (found == nullptr) return;  // Finished and released: the event is stale.
  WorkloadRun& run = *found;
  if (e.epoch != run.epoch) return;
  if (on_lifecycle_) Log(LifecycleKind::kFinish, run, run.GpusHeld());
  if (run.spec.kind == model::WorkloadKind::kTraining && !serving_generators_.empty())
    training_jct_.Add(now_ - run.spec.submit_time);
  ReleasePods(run, 0);
  --running_;
  ++completed_;
  run.state = RunState::kDone;
  ++run.epoch;
  run.pods.shrink_to_fit();
  RequestSchedule();
  MaybeRetire(run);
}

void Twin::OnFail(const Event& e) {
  WorkloadRun* found = runs_.Find(e.target);
  if (found == nullptr) return;  // Finished and released: the event is stale.
  WorkloadRun& run = *found;
  if (e.epoch != run.epoch) return;
  ++interruptions_;
  ++fault_stats_.other_interruptions;
  run.fault_interrupted = true;
  Interrupt(run, LossCause::kFailure);
}

void Twin::ScheduleRunEvents(WorkloadRun& run, int gpus) {
  const model::Workload& w = run.spec;
  run.checkpoint_in_segment = false;
  const SimTime finish = now_ + run.remaining;
  if (w.checkpoint_interval.micros() > 0) {
    const SimTime first = now_ + run.segment_restore + w.checkpoint_interval;
    if (first < finish) events_queue_.Push(first, EventKind::kCheckpoint, w.id, run.epoch);
  }
  // Host, network and software interruptions (no GPU fault) of training jobs.
  const double rate =
      scenario_.faults.enabled ? scenario_.faults.other_interruptions_per_gpu_hour * gpus : 0;
  if (w.kind == model::WorkloadKind::kTraining && rate > 0) {
    const SimDuration ttf = SecondsF(failure_rng_.Exponential(1.0 / rate) * 3600);
    if (ttf < run.remaining) events_queue_.Push(now_ + ttf, EventKind::kFail, w.id, run.epoch);
  }
}

void Twin::OnCheckpoint(const Event& e) {
  WorkloadRun* found = runs_.Find(e.target);
  if (found == nullptr) return;  // Finished and released: the event is stale.
  WorkloadRun& run = *found;
  if (e.epoch != run.epoch || run.state != RunState::kRunning) return;
  run.last_checkpoint = now_;
  run.checkpoint_in_segment = run.has_checkpoint = true;
  if (on_lifecycle_) Log(LifecycleKind::kCheckpoint, run, run.GpusHeld());
  const SimTime next = now_ + run.spec.checkpoint_interval;
  if (next < run.started + run.remaining)
    events_queue_.Push(next, EventKind::kCheckpoint, e.target, run.epoch);
}

Twin::SavePoint Twin::SavePointOf(const WorkloadRun& run) const {
  SavePoint p;
  p.work_start = run.started + run.segment_restore;
  p.saved_to = run.checkpoint_in_segment ? run.last_checkpoint : p.work_start;
  p.restore = run.has_checkpoint ? run.spec.restore_time : SimDuration();
  p.lost_gpu_hours = ((now_ - p.saved_to) + p.restore).ToHours() * run.spec.TotalGpus();
  return p;
}

double Twin::Interrupt(WorkloadRun& run, LossCause cause) {
  const model::Workload& w = run.spec;
  double lost_hours = 0;
  if (run.state == RunState::kRunning && w.kind != model::WorkloadKind::kInference) {
    // Work survives up to the segment's last checkpoint (or the end of its restore): the rest
    // is lost, and a job with a checkpoint pays its restore again on restart; a job that never
    // checkpoints starts over (docs/scenario.md: interruptions). Stopped during its restore,
    // the job loses the part of the restore it ran (now - saved_to is then negative).
    const SavePoint p = SavePointOf(run);
    lost_hours = p.lost_gpu_hours;
    run.remaining = run.remaining - run.segment_restore - (p.saved_to - p.work_start) + p.restore;
    run.segment_restore = p.restore;
  }
  // A stateless service loses no work; a workload still starting loses only its startup and
  // keeps all its remaining work.
  if (run.state == RunState::kRunning) --running_;
  AddLost(run, lost_hours, cause);
  if (on_lifecycle_) {
    // A waitForPodsReady eviction is the admitter's, like a preemption.
    const LifecycleKind kind = cause == LossCause::kFailure ? LifecycleKind::kFail
                               : cause == LossCause::kDrain ? LifecycleKind::kDrain
                                                            : LifecycleKind::kPreempt;
    Log(kind, run, run.GpusHeld(), lost_hours);
  }
  ++run.interruptions;
  ReleasePods(run, 0);
  ++run.epoch;
  ++pending_;
  run.state = RunState::kPending;
  MakePending(w.id);
  return lost_hours;
}

void Twin::Preempt(model::WorkloadId victim, model::WorkloadId preemptor) {
  WorkloadRun& run = runs_[victim];
  STEWARD_CHECK(run.state == RunState::kRunning || run.state == RunState::kStarting);
  preemptions_by_tier_[std::string(model::TierName(run.spec.tier))]++;
  PreemptionRecord rec{now_,
                       run.spec.name,
                       runs_[preemptor].spec.name,
                       scenario_.teams[run.spec.team].name,
                       run.spec.tier,
                       run.spec.TotalGpus(),
                       0};
  rec.lost_gpu_hours = Interrupt(run, LossCause::kPreemption);
  preemption_records_.push_back(std::move(rec));
}

void Twin::EvictPodsReadyTimeout(model::WorkloadId id) {
  WorkloadRun& run = runs_[id];
  STEWARD_CHECK(run.state == RunState::kRunning || run.state == RunState::kStarting);
  ++pods_ready_timeouts_;
  Interrupt(run, LossCause::kPodsReadyTimeout);
}

SimDuration Twin::StartupDelay(const model::Workload& w) {
  if (w.startup_jitter.micros() <= 0) return startup_;
  return startup_ + SecondsF(startup_rng_.Uniform() * w.startup_jitter.ToSeconds());
}

void Twin::OnScale() {
  for (model::WorkloadId id : services_) {
    WorkloadRun* found = runs_.Find(id);
    if (found == nullptr) continue;  // Finished and released.
    WorkloadRun& run = *found;
    if (run.state == RunState::kDone || serving_of_.count(id)) continue;  // Autoscaled.
    const int desired = DesiredReplicas(run.spec, now_);
    if (desired != run.desired_replicas) Log(LifecycleKind::kScale, run, desired);
    run.desired_replicas = desired;
    if (static_cast<int>(run.pods.size()) > run.desired_replicas) {
      ReleasePods(run, run.desired_replicas);
      RequestSchedule();
    } else if (static_cast<int>(run.pods.size()) < run.desired_replicas) {
      MakePending(id);
    }
  }
  if (now_ + Hours(1) <= horizon_) events_queue_.Push(now_ + Hours(1), EventKind::kScale);
}

// ---- Admission host --------------------------------------------------------------------

void Twin::SetAdmittedCounts(model::WorkloadId id, const std::vector<int>& counts) {
  WorkloadRun& run = runs_[id];
  std::vector<model::PodSet>& sets = run.spec.pod_sets;
  if (counts.empty()) {
    for (size_t i = 0; i < run.requested_counts.size() && i < sets.size(); ++i)
      sets[i].count = run.requested_counts[i];
    run.requested_counts.clear();
    return;
  }
  if (run.requested_counts.empty())
    for (const model::PodSet& ps : sets) run.requested_counts.push_back(ps.count);
  for (size_t i = 0; i < counts.size() && i < sets.size(); ++i) sets[i].count = counts[i];
}

int Twin::GpusWanted(model::WorkloadId id) const {
  const WorkloadRun& run = runs_[id];
  if (run.spec.kind != model::WorkloadKind::kInference) return run.spec.TotalGpus();
  return static_cast<int>(run.pods.size()) < run.desired_replicas
             ? run.spec.pod_sets[0].gpus_per_pod
             : 0;
}

int Twin::TryPlace(model::WorkloadId id, int gpu_budget, bool* done) {
  WorkloadRun& run = runs_[id];
  const model::Workload& w = run.spec;
  *done = false;
  if (w.kind == model::WorkloadKind::kInference) {
    const int per_pod = w.pod_sets[0].gpus_per_pod;
    int placed = 0;
    while (static_cast<int>(run.pods.size()) < run.desired_replicas) {
      if (gpu_budget - placed < per_pod) {
        run.reason = PendingReasonName(PendingReason::kQuotaExhausted);
        return placed;
      }
      if (!PlacePods(run, 1, w.pod_sets[0])) {
        SetNoFitReason(run, per_pod);
        return placed;
      }
      placed += per_pod;
      events_queue_.Push(now_ + startup_, EventKind::kStart, id, run.epoch, run.pods.back().pod_id);
      if (run.state == RunState::kPending) Log(LifecycleKind::kAdmit, run, per_pod);
      Log(LifecycleKind::kPlace, run, per_pod, 0, run.pods.size() - 1);
      if (run.state == RunState::kPending) {
        RecordWait(run);
        run.state = RunState::kRunning;
        --pending_;
        ++running_;
      }
    }
    run.queued = false;
    *done = true;
    if (run.state == RunState::kDone) MaybeRetire(run);  // A stopped service left the queue.
    return placed;
  }
  bool placed = PlaceGang(run);
  if (!placed && Defragment(run)) {
    placed = PlaceGang(run);
    defrag_.jobs_placed += placed;
  }
  if (!placed) {
    SetNoFitReason(run, w.TotalGpus());
    return 0;
  }
  RecordWait(run);
  Log(LifecycleKind::kAdmit, run, w.TotalGpus());
  Log(LifecycleKind::kPlace, run, w.TotalGpus());
  run.state = RunState::kStarting;
  --pending_;
  run.queued = false;
  *done = true;
  events_queue_.Push(now_ + StartupDelay(w), EventKind::kStart, id, run.epoch);
  return w.TotalGpus();
}

bool Twin::FitsAfterPreempting(model::WorkloadId id,
                               const std::vector<model::WorkloadId>& victims) const {
  const model::Workload& w = runs_[id].spec;
  // What the victims' pods would give back, per node: whole GPUs (broken ones stay withheld; a
  // shared GPU may keep other pods, so shared pods count as giving none back), and the CPU,
  // memory and extended resources every pod of them holds.
  struct Freed {
    int gpus = 0;
    int64_t cpu_milli = 0, memory_mib = 0;
    model::ExtendedAmounts extended{};
  };
  std::map<model::NodeId, Freed> freed;
  for (model::WorkloadId v : victims)
    for (const PodAllocation& p : runs_[v].pods) {
      Freed& f = freed[p.node];
      if (p.gpu_milli >= place::kMilliPerGpu && p.mig_profile == place::kNoMig)
        f.gpus += std::popcount(p.gpus & ~state_->broken_mask(p.node));
      f.cpu_milli += p.cpu_milli;
      f.memory_mib += p.memory_mib;
      if (!p.extended) continue;
      const model::ExtendedAmounts e = state_->ExtendedRequest(runs_[v].spec.pod_sets[p.pod_set]);
      for (int i = 0; i < model::kMaxExtendedResources; ++i) f.extended[i] += e[i];
    }
  const int model = state_->place_model(w.gpu_model);
  // Pods of g whole GPUs that pool `pool` holds once the victims are gone = the sum over its
  // schedulable nodes of floor(fully free / g): exact for one pod size, as a pod never spans
  // nodes.
  // Nodes of `pool` the workload's pods may use (schedulable, of its GPU model).
  auto usable = [&](model::NodeId node, int pool) {
    const model::Node& nd = cluster_.node(node);
    return nd.placement_pool == pool && state_->schedulable(node) &&
           (w.gpu_model < 0 || nd.model == w.gpu_model);
  };
  auto pods_that_fit = [&](int pool, int g) {
    const place::Occupancy o = state_->placement().occupancy(pool, model);
    int64_t n = 0;
    for (int k = g; k < static_cast<int>(o.nodes_by_free.size()); ++k)
      n += static_cast<int64_t>(o.nodes_by_free[k]) * (k / g);
    for (const auto& [node, extra] : freed) {
      if (!usable(node, pool)) continue;
      const int before = state_->free_count(node);
      n += (before + extra.gpus) / g - before / g;
    }
    return n;
  };
  // Pods that also ask for CPU, memory or extended resources: node by node, every dimension
  // bounding what a node holds once the victims are gone. O(nodes), only for such a preemption.
  auto pods_that_fit_everything = [&](int pool, const model::PodSet& ps) {
    const model::ExtendedAmounts want = state_->ExtendedRequest(ps);
    int64_t n = 0;
    for (model::NodeId node = 0; node < static_cast<model::NodeId>(cluster_.nodes().size());
         ++node) {
      if (!usable(node, pool)) continue;
      const place::NodeState& s = state_->placement().node(node);
      const auto it = freed.find(node);
      const Freed f = it == freed.end() ? Freed{} : it->second;
      int64_t k = (state_->free_count(node) + f.gpus) / ps.gpus_per_pod;
      if (ps.cpu_milli > 0) k = std::min(k, (s.cpu_free + f.cpu_milli) / ps.cpu_milli);
      if (ps.memory_mib > 0) k = std::min(k, (s.memory_free + f.memory_mib) / ps.memory_mib);
      for (int i = 0; i < model::kMaxExtendedResources; ++i)
        if (want[i] > 0) k = std::min<int64_t>(k, (s.extended_free[i] + f.extended[i]) / want[i]);
      n += k;
    }
    return n;
  };
  for (const model::PodSet& ps : w.pod_sets) {
    // A pod sharing a GPU fits beside others: no whole-GPU count decides for it.
    if (ps.SharesGpu()) continue;
    const int pods = w.kind == model::WorkloadKind::kInference ? 1 : ps.count;
    bool fits = false;  // A gang goes all-or-nothing into one routed pool.
    const bool more_than_gpus =
        ps.cpu_milli > 0 || ps.memory_mib > 0 || !ps.extended_resources.empty();
    for (int pool : placer_->Route(w, ps))
      fits = fits || (more_than_gpus ? pods_that_fit_everything(pool, ps)
                                     : pods_that_fit(pool, ps.gpus_per_pod)) >= pods;
    if (!fits) return false;
  }
  return true;
}

// ---- Helpers ---------------------------------------------------------------------------

void Twin::AddLifecycleListener(std::function<void(const LifecycleRecord&)> listener) {
  if (!on_lifecycle_) {
    on_lifecycle_ = std::move(listener);
    return;
  }
  on_lifecycle_ = [first = std::move(on_lifecycle_),
                   then = std::move(listener)](const LifecycleRecord& r) {
    first(r);
    then(r);
  };
}

void Twin::Log(LifecycleKind kind, const WorkloadRun& run, int gpus, double lost_gpu_hours,
               size_t first_pod) const {
  if (!on_lifecycle_) return;
  LifecycleRecord r;
  r.at = now_;
  r.kind = kind;
  r.spec = &run.spec;
  r.team = scenario_.teams[run.spec.team].name;
  r.gpus = gpus;
  r.lost_gpu_hours = lost_gpu_hours;
  if (kind == LifecycleKind::kPlace) {
    // node:GPUs per pod, as `kubectl get pods -o wide` would show where they went.
    for (size_t i = first_pod; i < run.pods.size(); ++i) {
      const PodAllocation& p = run.pods[i];
      if (!r.detail.empty()) r.detail += ',';
      r.detail += fmt::format("{}:{}", cluster_.node(p.node).name, std::popcount(p.gpus));
      if (p.Share() < std::popcount(p.gpus)) r.detail += fmt::format("({:.3g})", p.Share());
    }
  }
  on_lifecycle_(r);
}

void Twin::RequestCycleAt(SimTime t) {
  if (t <= now_) {
    RequestSchedule();
  } else if (t <= horizon_) {
    events_queue_.Push(t, EventKind::kSchedule);
  }
}

void Twin::RequestSchedule() {
  if (schedule_requested_) return;
  schedule_requested_ = true;
  events_queue_.Push(now_, EventKind::kSchedule);
}

void Twin::MakePending(model::WorkloadId id) {
  WorkloadRun& run = runs_[id];
  run.pending_since = now_;
  run.reason = PendingReasonName(PendingReason::kWaitingInQueue);
  run.reason_detail.clear();
  if (!run.queued) {
    run.queued = true;
    admitter_->Enqueue(id, run.spec.team);
  }
  RequestSchedule();
}

bool Twin::PlacePods(WorkloadRun& run, int pods, const model::PodSet& pod_set) {
  // The scratch list is taken, not borrowed: observers signalled below may place pods too.
  std::vector<PodPlacement> placed = std::move(placed_);
  const bool fits = placer_->Place(run.spec, pod_set, pods, &placed);
  if (!fits) {
    placed_ = std::move(placed);
    return false;
  }
  // A gang's pods in one allocation (a service's replicas, added one by one, still double).
  if (const size_t need = run.pods.size() + placed.size(); need > run.pods.capacity())
    run.pods.reserve(std::max(need, 2 * run.pods.capacity()));
  const int8_t mig =
      pod_set.mig_profile.empty() ? place::kNoMig : place::ParseMigProfile(pod_set.mig_profile);
  for (const PodPlacement& p : placed) {
    PodAllocation a;
    a.node = p.node;
    for (int i = 0; i < p.gpus.count; ++i) a.gpus |= uint64_t{1} << p.gpus.index[i];
    a.pod_id = next_pod_id_++;
    a.gpu_milli =
        static_cast<int16_t>(mig != place::kNoMig ? place::kMilliPerGpu : pod_set.gpu_milli);
    a.mig_profile = mig;
    a.mig_start = p.gpus.mig_start;
    a.cpu_milli = static_cast<int32_t>(pod_set.cpu_milli);
    a.memory_mib = static_cast<int32_t>(pod_set.memory_mib);
    a.pod_set = static_cast<int8_t>(&pod_set - run.spec.pod_sets.data());
    a.extended = !pod_set.extended_resources.empty();
    run.pods.push_back(a);
    state_->AddResident(p.node, run.spec.id);
    if (sharing_) IndexSharedPod(run, a, true);
    SignalObservers(TwinSignal::Kind::kGpusTaken, run.spec.id, p.node, a.gpus);
  }
  placed_ = std::move(placed);
  Reaccount(run);
  return true;
}

void Twin::ReleasePods(WorkloadRun& run, size_t from, bool rollback) {
  const model::Workload& w = run.spec;
  int released = 0;
  for (size_t i = from; i < run.pods.size(); ++i) {
    const PodAllocation& p = run.pods[i];
    state_->ReleasePod(
        p.node, p.gpus, p.gpu_milli, p.mig_profile, p.mig_start, p.cpu_milli, p.memory_mib,
        p.extended ? state_->ExtendedRequest(w.pod_sets[p.pod_set]) : model::ExtendedAmounts{});
    state_->RemoveResident(p.node, w.id);
    if (sharing_) IndexSharedPod(run, p, false);
    released += std::popcount(p.gpus);
    SignalObservers(TwinSignal::Kind::kGpusFreed, w.id, p.node, p.gpus);
  }
  run.pods.resize(from);
  Reaccount(run);
  if (released > 0 && !rollback) {
    admitter_->Released(w, released, run.pods.empty());
    RequestSchedule();
  }
}

int Twin::DesiredReplicas(const model::Workload& w, SimTime t) const {
  // Demand follows the day: a cosine peaking at peak_hour, trough twelve hours later.
  const double h = std::fmod(t.ToHours(), 24.0);
  const double level = 0.5 + 0.5 * std::cos(2 * std::numbers::pi * (h - w.peak_hour) / 24);
  return w.min_replicas + static_cast<int>(std::lround(level * (w.max_replicas - w.min_replicas)));
}

void Twin::MaybeRetire(WorkloadRun& run) {
  if (run.retired || run.state != RunState::kDone || run.queued || run.in_window ||
      serving_of_.count(run.spec.id))
    return;
  run.retired = true;
  retired_.push_back(run.spec.id);
  if (finished_runs_kept_ < 0) return;
  while (retired_.size() > static_cast<size_t>(finished_runs_kept_)) {
    const model::WorkloadId id = retired_.front();
    retired_.pop_front();
    const WorkloadRun& old = runs_[id];
    released_fault_interrupted_ += old.fault_interrupted;
    if (old.spec.kind == model::WorkloadKind::kInference) std::erase(services_, id);
    runs_.Release(id);
  }
}

void Twin::SetNoFitReason(WorkloadRun& run, int gpus_needed) {
  // Free GPUs and the largest free block in the pools the workload may use.
  const model::PodSet& ps = run.spec.pod_sets[0];
  const std::vector<int> pools = placer_->Route(run.spec, ps);
  int free = 0, block = 0;
  for (int pool : pools) {
    free += state_->free_gpus(run.spec.gpu_model, pool);
    block = std::max(block, state_->largest_free_block(run.spec.gpu_model, pool));
  }
  run.reason = PendingReasonName(free >= gpus_needed && !pools.empty()
                                     ? PendingReason::kFragmentation
                                     : PendingReason::kInsufficientCapacity);
  // Short of GPUs: would the cordoned / broken ones of its model make up the difference? Only
  // scanned while some GPU is out (faults), so healthy runs pay nothing.
  int out = 0;
  if (free < gpus_needed && !pools.empty() && state_->unavailable_gpus() > 0) {
    for (model::NodeId id = 0; id < static_cast<model::NodeId>(cluster_.nodes().size()); ++id) {
      const model::Node& n = cluster_.node(id);
      if (run.spec.gpu_model >= 0 && n.model != run.spec.gpu_model) continue;
      if (std::find(pools.begin(), pools.end(), n.placement_pool) == pools.end()) continue;
      out += state_->schedulable(id) ? std::popcount(state_->broken_mask(id)) : n.gpu_capacity;
    }
    if (free + out >= gpus_needed)
      run.reason = PendingReasonName(PendingReason::kUnhealthyCapacity);
  }
  if (pools.empty()) {
    run.reason_detail = fmt::format("no placement pool accepts its {}-GPU {} pods", ps.gpus_per_pod,
                                    model::KindName(run.spec.kind));
    return;
  }
  run.reason_detail = fmt::format(
      "needs {} GPUs ({} per pod); {} free on schedulable nodes, "
      "largest free block {}{}",
      gpus_needed, ps.SharesGpu() ? std::string("part of 1") : std::to_string(ps.gpus_per_pod),
      free, block,
      out > 0 ? fmt::format("; {} of its model cordoned, broken or not advertised", out) : "");
}

}  // namespace steward::twin

// The twin's accounting: what each run's GPUs are doing (Reaccount: the rates the meter
// integrates analytically), the ledger's usage windows, the report's samples, waits and lost
// work, and the report built from them. Split from twin.cc, which runs the events.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "twin/twin.h"

namespace steward::twin {
namespace {

// Meter groups are (team, kind) pairs so the report can total either way.
int Group(const model::Workload& w) {
  return w.team * model::kNumWorkloadKinds + static_cast<int>(w.kind);
}

}  // namespace

void Twin::AddLost(const WorkloadRun& run, double hours, LossCause cause) {
  static constexpr const char* kCauses[] = {"failure", "drain", "preemption", "pods_ready_timeout",
                                            "resize",  "regrow"};
  lost_gpu_hours_ += hours;
  lost_by_team_[scenario_.teams[run.spec.team].name] += hours;
  lost_by_tier_[std::string(model::TierName(run.spec.tier))] += hours;
  if (cause == LossCause::kPreemption) {
    preemption_lost_by_team_[scenario_.teams[run.spec.team].name] += hours;
    preemption_lost_by_tier_[std::string(model::TierName(run.spec.tier))] += hours;
  }
  lost_by_cause_[kCauses[static_cast<int>(cause)]] += hours;
  if (run.spec.kind == model::WorkloadKind::kTraining) lost_training_ += hours;
}

void Twin::OnSample() {
  TimePoint p;
  const double total = state_->total_gpus();
  p.hours = now_.ToHours();
  p.allocation = meter_.alloc_rate() / total;
  p.busy = meter_.busy_rate() / total;
  p.sm_active = meter_.sm_rate() / total;
  p.running = running_;
  p.pending = pending_;
  p.whole_free_nodes = state_->whole_free_nodes();
  p.stranded_free_gpus = state_->stranded_free_gpus();
  p.largest_free_block = state_->largest_free_block();
  p.unavailable_gpus = state_->unavailable_gpus();
  for (int pool = 0; pool < placer_->num_pools(); ++pool) p.pools.push_back(SamplePool(pool));
  series_.push_back(p);
  // Tenant share alert (the guide's case 2): checked at each sample, O(teams x kinds).
  const double step_hours = scenario_.sample_minutes / 60;
  for (size_t t = 0; t < scenario_.teams.size(); ++t) {
    double alloc = 0;
    for (int k = 0; k < model::kNumWorkloadKinds; ++k)
      alloc += meter_.group_alloc_rate(static_cast<int>(t) * model::kNumWorkloadKinds + k);
    alerts_.Observe(t, scenario_.teams[t].name, alloc / total, p.hours, step_hours);
  }
  const SimTime next = now_ + SecondsF(scenario_.sample_minutes * 60);
  if (next <= horizon_) events_queue_.Push(next, EventKind::kSample);
}

void Twin::SetRates(WorkloadRun& run, bool active, bool /*running*/) {
  run.idle = !active;
  Reaccount(run);
}

int WorkloadRun::GpusHeld() const {
  int n = 0;
  for (const PodAllocation& p : pods) n += std::popcount(p.gpus);
  return n;
}

void WorkloadUsage::Add(const WorkloadUsage& r, double h) {
  allocated += r.allocated * h;
  busy += r.busy * h;
  sm_active += r.sm_active * h;
  zombie += r.zombie * h;
  over_request += r.over_request * h;
  data_stall += r.data_stall * h;
  startup += r.startup * h;
}

void Twin::Reaccount(WorkloadRun& run) {
  const model::Workload& w = run.spec;
  double running = 0, starting = 0;
  for (const auto& p : run.pods) (p.running ? running : starting) += p.Share();
  const UsageRates r = run.idle ? IdleRates(w.usage) : ActiveRates(w.usage);
  WorkloadUsage next;
  next.allocated = running + starting;
  next.busy = running * r.busy;
  next.sm_active = running * r.sm;
  next.startup = starting;
  if (run.idle) {
    next.zombie = running;
  } else {
    const double used = w.usage.used_gpu_fraction;
    next.over_request = running * (1 - used);
    if (w.usage.stall_period.micros() > 0)
      next.data_stall = running * used * w.usage.stall_fraction;
  }
  meter_.Change(now_, Group(w), next.allocated - run.rate.allocated, next.busy - run.rate.busy,
                next.sm_active - run.rate.sm_active);
  if (w.kind == model::WorkloadKind::kTraining && next.startup != run.rate.startup) {
    // Startup GPU-hours of training (for goodput), integrated like the meter.
    training_startup_hours_ += training_startup_rate_ * (now_ - training_startup_since_).ToHours();
    training_startup_since_ = now_;
    training_startup_rate_ += next.startup - run.rate.startup;
  }
  if (on_window_) {
    run.window_total.Add(run.rate, (now_ - run.acc_since).ToHours());
    run.acc_since = now_;
    if (!run.in_window && next.allocated > 0) {
      run.in_window = true;
      window_runs_.push_back(w.id);
    }
  }
  const bool changed = next.allocated != run.rate.allocated || next.busy != run.rate.busy ||
                       next.sm_active != run.rate.sm_active;
  run.rate = next;
  if (changed) SignalObservers(TwinSignal::Kind::kUsage, w.id);
}

void Twin::OnWindow() {
  EmitWindow(now_);
  if (now_ + window_ <= horizon_) events_queue_.Push(now_ + window_, EventKind::kWindow);
}

void Twin::EmitWindow(SimTime end) {
  if (!on_window_ || end <= window_start_) return;
  std::vector<UsageRecord> records;
  std::vector<model::WorkloadId> still;
  for (model::WorkloadId id : window_runs_) {
    WorkloadRun& run = runs_[id];
    run.window_total.Add(run.rate, (end - run.acc_since).ToHours());
    run.acc_since = end;
    if (run.window_total.allocated > 0) {
      UsageRecord rec;
      rec.workload = run.spec.namespace_name + "/" + run.spec.name;
      rec.team = scenario_.teams[run.spec.team].name;
      rec.namespace_name = run.spec.namespace_name;
      rec.kind = std::string(model::KindName(run.spec.kind));
      // A workload without a model constraint runs where it landed; pools are homogeneous.
      const int model = run.spec.gpu_model >= 0 ? run.spec.gpu_model
                        : run.pods.empty()      ? 0
                                                : cluster_.node(run.pods[0].node).model;
      rec.gpu_model = cluster_.gpu_models()[model].name;
      rec.hours = run.window_total;
      rec.spec = &run.spec;
      records.push_back(std::move(rec));
    }
    run.window_total = WorkloadUsage{};
    run.in_window = run.rate.allocated > 0;
    if (run.in_window) still.push_back(id);
  }
  window_runs_ = std::move(still);
  on_window_(window_start_, end, records);
  window_start_ = end;
  // Finished runs whose last window just closed (records' specs are no longer needed).
  std::vector<model::WorkloadId> closed;
  for (const UsageRecord& rec : records)
    if (rec.spec != nullptr) closed.push_back(rec.spec->id);
  for (model::WorkloadId id : closed)
    if (WorkloadRun* run = runs_.Find(id); run != nullptr && !run->in_window) MaybeRetire(*run);
}

void Twin::RecordWait(const WorkloadRun& run) {
  const SimDuration wait = now_ - run.pending_since;
  waits_by_tier_[static_cast<int>(run.spec.tier)].Add(wait);
  waits_by_team_[run.spec.team].Add(wait);
  // The distribution of the workload's pod size, found by name once per size (building the
  // name and searching the map on every placement was 1 % of a 102,400-GPU run).
  const model::PodSet& ps = run.spec.pod_sets[0];
  const size_t size = ps.SharesGpu() ? 0 : static_cast<size_t>(ps.gpus_per_pod) + 1;
  if (size >= pod_size_waits_.size()) pod_size_waits_.resize(size + 1, nullptr);
  if (pod_size_waits_[size] == nullptr)
    pod_size_waits_[size] = &waits_by_pod_size_[PodSizeKey(run.spec)];
  pod_size_waits_[size]->Add(wait);
}

Report Twin::BuildReport() const {
  Report r;
  r.scenario = scenario_.name;
  r.seed = scenario_.seed;
  r.days = (now_ - kSimStart).ToHours() / 24;
  r.total_gpus = cluster_.total_gpus();
  r.tenancy = tenancy_;
  r.total_nodes = static_cast<int>(cluster_.nodes().size());
  r.admission_policy = std::string(admitter_->Name());
  r.placement_policy = placer_->Name();
  r.events = events_;
  r.workloads_submitted = static_cast<int>(runs_.size());
  r.workloads_completed = completed_;
  r.workloads_running = running_;
  r.workloads_pending = pending_;
  r.workloads_stopped = stopped_;
  r.interruptions = interruptions_;
  r.lost_gpu_hours = lost_gpu_hours_;
  FillFaultReport(r);

  const UsageTotals total = meter_.Cluster(now_);
  r.capacity_gpu_hours = r.total_gpus * (now_ - kSimStart).ToHours();
  r.allocated_gpu_hours = total.allocated_gpu_hours;
  r.busy_gpu_hours = total.busy_gpu_hours;
  r.sm_active_gpu_hours = total.sm_gpu_hours;
  if (r.capacity_gpu_hours > 0) {
    r.allocation_rate = total.allocated_gpu_hours / r.capacity_gpu_hours;
    r.busy_utilization = total.busy_gpu_hours / r.capacity_gpu_hours;
    r.sm_active_utilization = total.sm_gpu_hours / r.capacity_gpu_hours;
  }
  r.idle_allocated_gpu_hours = total.allocated_gpu_hours - total.sm_gpu_hours;

  for (size_t t = 0; t < scenario_.teams.size(); ++t) {
    TeamUsage& u = r.teams[scenario_.teams[t].name];
    for (int k = 0; k < model::kNumWorkloadKinds; ++k) {
      const UsageTotals g = meter_.Group(now_, static_cast<int>(t) * model::kNumWorkloadKinds + k);
      u.allocated_gpu_hours += g.allocated_gpu_hours;
      u.busy_gpu_hours += g.busy_gpu_hours;
      u.sm_active_gpu_hours += g.sm_gpu_hours;
      const std::string kind(model::KindName(static_cast<model::WorkloadKind>(k)));
      r.allocated_gpu_hours_by_kind[kind] += g.allocated_gpu_hours;
      r.sm_active_gpu_hours_by_kind[kind] += g.sm_gpu_hours;
    }
  }
  // Waits: admitted workloads, plus the ones still pending counted at their wait so far
  // (otherwise a starving queue would look fast).
  std::vector<std::vector<SimDuration>> waits(model::kNumTiers);
  std::vector<std::vector<SimDuration>> team_waits(scenario_.teams.size());
  std::map<std::string, std::vector<SimDuration>> size_waits;
  for (int i = 0; i < kNumPendingReasons; ++i)
    r.pending_by_reason[std::string(PendingReasonName(static_cast<PendingReason>(i)))] = 0;
  r.preemptions = preemptions_by_tier_;
  r.lost_gpu_hours_by_team = lost_by_team_;
  r.lost_gpu_hours_by_tier = lost_by_tier_;
  r.preemption_lost_gpu_hours_by_team = preemption_lost_by_team_;
  r.preemption_lost_gpu_hours_by_tier = preemption_lost_by_tier_;
  r.pods_ready_timeouts = pods_ready_timeouts_;
  for (size_t t = 0; t < scenario_.teams.size(); ++t)
    if (workloads_by_team_[t] > 0)
      r.teams[scenario_.teams[t].name].workloads += workloads_by_team_[t];
  for (const WorkloadRun& run : runs_) {
    if (run.state != RunState::kPending) continue;
    r.pending_by_reason[std::string(run.reason)]++;
    const SimDuration wait = now_ - run.pending_since;
    waits[static_cast<int>(run.spec.tier)].push_back(wait);
    team_waits[run.spec.team].push_back(wait);
    size_waits[PodSizeKey(run.spec)].push_back(wait);
  }
  for (const auto& [size, d] : waits_by_pod_size_) size_waits[size];  // Every size seen.
  for (const auto& [size, pending] : size_waits) {
    auto it = waits_by_pod_size_.find(size);
    r.queue_wait_seconds_by_pod_size[size] = it != waits_by_pod_size_.end()
                                                 ? it->second.Compute(pending)
                                                 : WaitDistribution().Compute(pending);
  }
  for (size_t t = 0; t < scenario_.teams.size(); ++t)
    r.queue_wait_seconds_by_team[scenario_.teams[t].name] =
        waits_by_team_[t].Compute(team_waits[t]);
  for (int t = 0; t < model::kNumTiers; ++t)
    r.queue_wait_seconds[std::string(model::TierName(static_cast<model::Tier>(t)))] =
        waits_by_tier_[t].Compute(waits[t]);

  Fragmentation& f = r.fragmentation;
  f.free_gpus = state_->free_gpus();
  f.stranded_free_gpus = state_->stranded_free_gpus();
  f.whole_free_nodes = state_->whole_free_nodes();
  f.largest_single_node_job = state_->largest_free_block();
  // A gang of whole nodes of one model inside one placement pool (or a single-node job).
  f.largest_gang_job = std::max(state_->largest_gang_gpus(), f.largest_single_node_job);
  for (int pool = 0; pool < placer_->num_pools(); ++pool) {
    PoolReport pr;
    pr.name = placer_->pool_name(pool);
    pr.policy = std::string(placer_->pool_policy(pool));
    for (model::NodeId n : state_->pool_nodes(pool)) {
      ++pr.nodes;
      pr.gpus += cluster_.node(n).gpu_capacity;
    }
    pr.free_gpus = state_->free_gpus(-1, pool);
    pr.end = SamplePool(pool);
    for (const TimePoint& p : series_) {
      pr.mean_stranded_free_gpus += p.pools[pool].stranded_free_gpus;
      pr.mean_largest_single_node_job += p.pools[pool].largest_single_node_job;
    }
    if (!series_.empty()) {
      pr.mean_stranded_free_gpus /= static_cast<double>(series_.size());
      pr.mean_largest_single_node_job /= static_cast<double>(series_.size());
    }
    r.pools.push_back(std::move(pr));
  }
  r.defrag = defrag_;
  double stranded = 0, share = 0;
  for (const auto& p : series_) {
    stranded += p.stranded_free_gpus;
    const double free = (1 - p.allocation) * r.total_gpus;
    share += free > 0.5 ? p.stranded_free_gpus / free : 0;
  }
  if (!series_.empty()) {
    f.mean_stranded_free_gpus = stranded / series_.size();
    f.mean_stranded_share = share / series_.size();
  }
  r.series = series_;
  r.alert_tenant_share = scenario_.policies.alert_tenant_share;
  for (const control::TenantShareAlert::Alert& a : alerts_.alerts())
    if (!a.tenant.empty())
      r.tenant_alerts.push_back({a.tenant, a.first_hours, a.peak_share, a.hours_over});
  r.scheduler = Scheduler();
  if (scenario_.UsesServing()) FillServingReport(r);
  return r;
}

}  // namespace steward::twin

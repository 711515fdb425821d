#include "reclaim/idle_reclaimer.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "reclaim/reclaim_policy.h"

namespace steward::reclaim {

std::string_view ActionName(ReclaimAction::Kind kind) {
  switch (kind) {
    case ReclaimAction::Kind::kNotify:
      return "notify";
    case ReclaimAction::Kind::kReclaim:
      return "reclaim";
    case ReclaimAction::Kind::kWouldReclaim:
      return "would-reclaim";
    case ReclaimAction::Kind::kExempt:
      return "exempt";
  }
  return "?";
}

IdleReclaimer::IdleReclaimer(twin::ReclaimSpec spec, bool keep_log)
    : spec_(std::move(spec)),
      keep_log_(keep_log),
      streaks_(NotifyAfter(spec_), ReclaimAfter(spec_)) {
  totals_.enabled = true;
  totals_.dry_run = spec_.dry_run;
  totals_.notify_after_minutes = spec_.notify_after_minutes;
  totals_.reclaim_after_minutes = spec_.reclaim_after_minutes;
  totals_.idle_sm_active_below = spec_.idle_sm_active_below;
  for (model::WorkloadKind k : spec_.kinds) totals_.kinds.emplace_back(model::KindName(k));
}

Status IdleReclaimer::Attach(twin::TwinOps& ops) {
  STEWARD_RETURN_IF_ERROR(CheckReclaimSpec(spec_));
  ops_ = &ops;
  watches_.assign(ops.cluster().gpus().size(), Watch{});
  return Status::Ok();
}

void IdleReclaimer::Record(const Status& s) {
  if (!s.ok() && status_.ok()) status_ = s;
}

void IdleReclaimer::OnSignal(const twin::TwinSignal& signal) {
  switch (signal.kind) {
    case twin::TwinSignal::Kind::kUsage:
      OnUsage(signal.workload);
      return;
    case twin::TwinSignal::Kind::kGpusTaken:
      OnGpus(signal, /*taken=*/true);
      return;
    case twin::TwinSignal::Kind::kGpusFreed:
      OnGpus(signal, /*taken=*/false);
      return;
    case twin::TwinSignal::Kind::kXid:  // Node health is the remediation loop's business.
    case twin::TwinSignal::Kind::kGpusMissing:
    case twin::TwinSignal::Kind::kGpusBack:
      return;
  }
}

void IdleReclaimer::OnUsage(model::WorkloadId w) {
  Result<twin::WorkloadView> v = ops_->View(w);
  if (!v.ok()) return Record(v.status());
  const int rank = KindRank(spec_, v->spec->kind);
  if (rank < 0) return;
  // The twin's rates are piecewise constant: the streak starts exactly when the rate drops.
  streaks_.Observe(w, IsIdle(spec_, v->sm_active, v->gpus), rank, IsExempt(spec_, v->spec->labels),
                   ops_->Now());
}

SimTime IdleReclaimer::NextDeadline() const { return streaks_.NextDeadline(); }

void IdleReclaimer::OnWake(SimTime now) {
  while (std::optional<Streaks::Due> due = streaks_.PopNext(now)) Act(*due);
}

void IdleReclaimer::Log(ReclaimAction::Kind kind, model::WorkloadId w,
                        const twin::WorkloadView& v) {
  if (!keep_log_) return;
  log_.push_back(ReclaimAction{kind, ops_->Now(), w, v.spec->namespace_name + "/" + v.spec->name,
                               v.spec->kind, v.gpus});
}

void IdleReclaimer::Act(const Streaks::Due& due) {
  Result<twin::WorkloadView> v = ops_->View(due.key);
  if (!v.ok()) return Record(v.status());
  const model::WorkloadId w = due.key;
  switch (due.step) {
    case Streaks::Step::kNotify:
      ++totals_.notifications;
      Log(ReclaimAction::Kind::kNotify, w, *v);
      return;
    case Streaks::Step::kExempt:
      ++totals_.exempted;
      Log(ReclaimAction::Kind::kExempt, w, *v);
      return;
    case Streaks::Step::kReclaim:
      break;
  }
  const SimTime now = ops_->Now();
  const double hours = v->gpus * std::max(0.0, (v->natural_end - now).ToHours());
  if (spec_.dry_run) {
    ++totals_.would_reclaim;
    totals_.would_reclaim_gpu_hours += hours;
    Log(ReclaimAction::Kind::kWouldReclaim, w, *v);
    return;
  }
  ++totals_.reclaims;
  ++totals_.reclaims_by_kind[std::string(model::KindName(v->spec->kind))];
  totals_.gpu_hours_reclaimed += hours;
  totals_.gpu_hours_reclaimed_by_team[std::string(v->team)] += hours;
  Log(ReclaimAction::Kind::kReclaim, w, *v);
  // The GPUs it frees are watched until its natural end (OnGpus); Stop ends the streak.
  stopping_ = w;
  stopping_until_ = v->natural_end;
  stopping_gpus_.clear();
  Record(ops_->Stop(w));
  stopping_ = -1;
  // A workload on MIG instances or GPU fractions held only part of each GPU it freed.
  for (model::GpuId g : stopping_gpus_)
    watches_[g].share = std::min(1.0, v->gpus / static_cast<double>(stopping_gpus_.size()));
}

void IdleReclaimer::OnGpus(const twin::TwinSignal& signal, bool taken) {
  const SimTime now = ops_->Now();
  const model::GpuId first = ops_->cluster().node(signal.node).first_gpu;
  for (uint64_t mask = signal.gpus; mask != 0; mask &= mask - 1) {
    Watch& w = watches_[first + std::countr_zero(mask)];
    if (!taken && !w.busy_since.is_never()) {
      // Another workload held a reclaimed GPU: count the part inside the window.
      totals_.gpu_hours_reused += w.share * (std::min(now, w.until) - w.busy_since).ToHours();
      w.busy_since = SimTime::Never();
    }
    if (!taken && signal.workload == stopping_ && stopping_ >= 0) {
      w = Watch{stopping_until_, SimTime::Never()};  // A reclaimed GPU: watch it.
      stopping_gpus_.push_back(first + std::countr_zero(mask));
      continue;
    }
    if (w.until.is_never()) continue;
    if (now >= w.until) {
      w = Watch{};  // The window is over.
      continue;
    }
    if (taken) w.busy_since = now;
  }
}

twin::ReclaimReport IdleReclaimer::Summary() const {
  twin::ReclaimReport r = totals_;
  if (ops_ == nullptr) return r;
  const SimTime now = ops_->Now();
  for (const Watch& w : watches_)
    if (!w.busy_since.is_never())
      r.gpu_hours_reused += w.share * (std::min(now, w.until) - w.busy_since).ToHours();
  return r;
}

void IdleReclaimer::Contribute(twin::Report& report) const { report.reclaim = Summary(); }

Result<IdleReclaimer*> AttachReclaim(twin::Twin& twin, bool keep_log) {
  const twin::Scenario& s = twin.scenario();
  if (!s.reclaim.enabled) return static_cast<IdleReclaimer*>(nullptr);
  STEWARD_ASSIGN_OR_RETURN(
      twin::TwinController * c,
      twin.AddController(std::make_unique<IdleReclaimer>(s.reclaim, keep_log)));
  return static_cast<IdleReclaimer*>(c);
}

}  // namespace steward::reclaim

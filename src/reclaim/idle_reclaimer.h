// IdleReclaimer: the idle-GPU reclaim policy (the guide's 僵尸 -> 自动回收策略) as a twin
// controller (twin/controller.h). Its judgements (reclaim/reclaim_policy.h) and timing
// (reclaim/idle_streaks.h) are the ones the controller on the control interface
// (reclaim/control_reclaimer.h) uses against a live cluster; this adapter feeds them the twin's
// exact usage signals and keeps the report's accounting.
//
//   observe  a workload of a reclaimable kind whose GPUs are idle: SM-active per held GPU below
//            idle_sm_active_below, as a reclaimer reading DCGM_FI_PROF_SM_ACTIVE sees it. The
//            twin's rates are piecewise constant, so the idle streak starts exactly when the
//            rate drops (kUsage signal) and resets when it rises or the GPUs go.
//   notify   after notify_after of the streak (the owner would get a message);
//   reclaim  after reclaim_after: stop the workload (TwinOps::Stop, a culler's scale to zero);
//            its GPUs return to the pool and the admission cycle at the same instant hands them
//            to pending work. Workloads due at the same instant go in `kinds` order (notebooks
//            first), then longest idle first.
//   exempt   a label in exempt_labels spares the workload (counted, never notified or stopped).
//   dry run  notices and would-be reclaims are counted; nothing is stopped.
//
// Accounting for the report (ReclaimReport): GPU-hours reclaimed = each stopped workload's GPUs
// x the time to its natural end (WorkloadView::natural_end, the twin's ground truth);
// GPU-hours reused = the time other workloads held those very GPUs inside those windows,
// followed GPU by GPU through kGpusTaken / kGpusFreed. Deterministic: no randomness, ordered
// containers only.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "reclaim/idle_streaks.h"
#include "twin/controller.h"
#include "twin/report.h"
#include "twin/scenario.h"
#include "twin/twin.h"

namespace steward::reclaim {

// One thing the reclaimer did, for tests and logs.
struct ReclaimAction {
  enum class Kind : uint8_t { kNotify, kReclaim, kWouldReclaim, kExempt };
  Kind kind = Kind::kNotify;
  SimTime at;
  model::WorkloadId workload = -1;
  std::string name;  // namespace/name.
  model::WorkloadKind workload_kind = model::WorkloadKind::kNotebook;
  double gpus = 0;  // Physical share held (WorkloadView::gpus).
};
std::string_view ActionName(ReclaimAction::Kind kind);

class IdleReclaimer : public twin::TwinController {
 public:
  // `keep_log`: remember every action (actions()); off for long runs.
  explicit IdleReclaimer(twin::ReclaimSpec spec, bool keep_log = false);

  std::string_view Name() const override { return "idle-reclaim"; }
  Status Attach(twin::TwinOps& ops) override;
  bool ObservesWorkloads() const override { return true; }
  void OnSignal(const twin::TwinSignal& signal) override;
  void OnWake(SimTime now) override;
  SimTime NextDeadline() const override;
  void Contribute(twin::Report& report) const override;
  Status status() const override { return status_; }

  const twin::ReclaimSpec& spec() const { return spec_; }
  const std::vector<ReclaimAction>& actions() const { return log_; }
  // The report section as it stands now.
  twin::ReclaimReport Summary() const;

 private:
  // A reclaimed GPU, watched until the stopped workload's natural end.
  struct Watch {
    SimTime until;
    SimTime busy_since = SimTime::Never();  // Held by another workload since.
    // The reclaimed part of this GPU: 1, or a MIG instance's / fraction's share, so reuse
    // counts GPU-hours as the reclaim does and never exceeds it.
    double share = 1;
  };

  using Streaks = IdleStreaks<model::WorkloadId>;

  void OnUsage(model::WorkloadId w);
  void OnGpus(const twin::TwinSignal& signal, bool taken);
  void Act(const Streaks::Due& due);
  void Record(const Status& s);
  void Log(ReclaimAction::Kind kind, model::WorkloadId w, const twin::WorkloadView& v);

  twin::ReclaimSpec spec_;
  bool keep_log_;
  twin::TwinOps* ops_ = nullptr;
  Streaks streaks_;
  std::vector<Watch> watches_;  // By GpuId; until = Never: not watched.
  model::WorkloadId stopping_ = -1;
  SimTime stopping_until_;
  std::vector<model::GpuId> stopping_gpus_;  // The GPUs the stop freed.
  twin::ReclaimReport totals_;
  std::vector<ReclaimAction> log_;
  Status status_;
};

// Attaches an IdleReclaimer to `twin` as its scenario's reclaim section asks: nullptr (and
// nothing attached) when the section has enabled: false.
Result<IdleReclaimer*> AttachReclaim(twin::Twin& twin, bool keep_log = false);

}  // namespace steward::reclaim

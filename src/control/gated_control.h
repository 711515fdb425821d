// GatedControl: the safety gate every write to a cluster passes through. It wraps the
// ClusterControl a controller would otherwise use and decides, per action, whether it happens:
//
//   plan            (no --apply) nothing is written: the action becomes a plan line with its
//                   reason, recorded in the audit log, and reported as done to the caller;
//   server-dry-run  the action is sent (the inner control must be built with dryRun=All) so
//                   the API server's admission judges it; recorded as such;
//   apply           the action is taken and recorded as applied (or failed, with the error).
//
// Before any write it checks, in order: the pause switch and leadership (both refuse every
// write with FailedPrecondition, recorded once per change of state, not per attempt) and, for
// evictions, the cap on evictions per minute (Unavailable: the caller retries on a later tick,
// as after a PodDisruptionBudget's 429). Observation passes straight through.
//
//   GateOptions o;  o.mode = GateOptions::Mode::kPlan;
//   GatedControl gate(live, audit_log, o);
//   RemediationController::Open(..., &ControlActuator(gate), ...);
//
// A plan repeated unchanged (same action, object and outcome) is recorded once, so a dry run
// that re-plans every tick does not flood the log. Cost: one audit row per recorded action
// (one SQLite transaction). Thread-safety: the controller loop's thread only.
#pragma once

#include <deque>
#include <functional>
#include <set>
#include <string>
#include <tuple>

#include "control/cluster_control.h"
#include "store/audit_log.h"

namespace steward::control {

struct GateOptions {
  enum class Mode : uint8_t { kPlan, kServerDryRun, kApply };
  Mode mode = Mode::kPlan;
  int max_evictions_per_minute = 20;
  // True: every write is refused (a ConfigMap annotation on a live cluster). Unset: never.
  std::function<bool()> paused;
  // False: this replica does not hold the leader Lease; writes are refused. Unset: leader.
  std::function<bool()> is_leader;
  // Called with every recorded row (e.g. to print plan lines).
  std::function<void(const store::AuditRow&)> on_record;
  // The clock of audit rows, in Unix microseconds; unset: the inner control's Now().
  std::function<int64_t()> now_micros;
};
std::string_view ModeName(GateOptions::Mode mode);  // "planned", "server-dry-run", "applied".

class GatedControl final : public ClusterControl {
 public:
  // `inner` and `log` (may be null: no audit log) must outlive the gate.
  GatedControl(ClusterControl& inner, store::AuditLog* log, GateOptions options);

  SimTime Now() const override { return inner_.Now(); }
  std::optional<NodeInfo> Node(std::string_view name) const override { return inner_.Node(name); }
  std::vector<NodeInfo> Nodes() const override { return inner_.Nodes(); }
  std::vector<PodInfo> PodsOnNode(std::string_view node) const override {
    return inner_.PodsOnNode(node);
  }
  std::vector<QueueInfo> ClusterQueues() const override { return inner_.ClusterQueues(); }

  Status Cordon(std::string_view node, bool cordoned, std::string_view reason) override;
  Status LabelNode(std::string_view node, std::string_view key, std::optional<std::string> value,
                   std::string_view reason) override;
  Status TaintNode(std::string_view node, const model::Taint& taint, bool remove,
                   std::string_view reason) override;
  Status Annotate(const ObjectRef& object, std::string_view key, std::optional<std::string> value,
                  std::string_view reason) override;
  Status Evict(const PodRef& pod, SimDuration grace, std::string_view reason) override;
  Status EmitEvent(const ObjectRef& object, std::string_view type, std::string_view event_reason,
                   std::string_view message) override;
  Status PatchQueueQuota(std::string_view queue, std::string_view resource_version,
                         const QueueQuota& quota, std::string_view reason) override;
  // Recorded as "resize" of job/NAMESPACE/NAME, after = the worker count asked for.
  Status ResizeWorkload(std::string_view workload, int workers, std::string_view reason) override;
  void SetIntent(std::string_view intent) override { intent_ = std::string(intent); }

  // The first audit-log error (writes go on; the CLI reports it).
  const Status& log_status() const { return log_status_; }
  int64_t recorded() const { return recorded_; }

 private:
  // Records the action and runs `act` when the mode and the safety checks allow it.
  Status Gate(std::string_view action, const std::string& object, std::string_view reason,
              std::string before, std::string after, const std::function<Status()>& act);
  void Record(store::AuditRow row);

  ClusterControl& inner_;
  store::AuditLog* log_;
  GateOptions options_;
  std::deque<SimTime> evictions_;  // Times of evictions in the last minute.
  std::set<std::tuple<std::string, std::string, std::string, std::string>> planned_;
  std::string intent_;   // Names recorded actions when set (SetIntent).
  std::string refusal_;  // The last refusal recorded ("" = none), to record changes only.
  Status log_status_;
  int64_t recorded_ = 0;
};

}  // namespace steward::control

// ControlReclaimer: idle reclaim as a controller on the control interface
// (control/cluster_control.h), the one `steward operate` runs against a live cluster and the
// twin can run through twin::TwinClusterControl. The policy is the twin reclaimer's
// (reclaim/reclaim_policy.h, reclaim/idle_streaks.h); what differs is only how usage arrives:
// here, each pass, as DCGM shows it per pod.
//
//   ControlReclaimer reclaimer(options, control);            // control: gated on a live cluster
//   reclaimer.Pass({{"research/nb-7-0", 0.01}, ...});        // mean SM-active per pod, 0..1
//
// Each pass, at control.Now():
//   observe  running GPU pods of the reclaimed kinds, grouped by workload (PodInfo::workload).
//            A workload is idle when SM-active averaged over its GPUs is under the threshold;
//            a workload with a pod DCGM says nothing about is not judged (no data is not idle)
//            and keeps its streak as it was.
//   notice   at idle-since + notify_after: annotation steward.io/idle-since (RFC 3339) on each
//            pod and a Warning Event IdleGPUReclaimNotice naming the reclaim time and the
//            exemption label ("reclaim-notice" in plan lines and the audit log).
//   reclaim  at idle-since + reclaim_after: every pod of the workload through the Eviction API
//            with its grace (checkpointing pods get checkpoint_grace to save), then an Event
//            IdleGPUReclaimed ("reclaim-evict"). A budget's or the eviction cap's refusal
//            (Unavailable) retries after retry_after; nothing is deleted around it.
//   exempt   a pod label in the spec's exempt_labels spares its workload (counted only).
//   resume   a restarted operator (or a new leader) resumes a streak from the idle-since
//            annotation its predecessor wrote, so the notice period is not served twice. When a
//            noticed workload turns busy again the annotation is removed.
//
// Cost per pass: O(pods + nodes) plus O(log workloads) per streak change. Thread-safety: the
// controller loop's thread only.
#pragma once

#include <map>
#include <string>

#include "control/cluster_control.h"
#include "reclaim/idle_streaks.h"
#include "twin/scenario.h"

namespace steward::reclaim {

inline constexpr char kIdleSinceAnnotation[] = "steward.io/idle-since";

struct ControlReclaimerOptions {
  // Thresholds, kinds and exemptions (dry_run is ignored: the control's gate decides).
  twin::ReclaimSpec spec;
  SimDuration grace = Seconds(30);
  SimDuration checkpoint_grace = Minutes(5);
  SimDuration retry_after = Minutes(1);
};

class ControlReclaimer {
 public:
  // `control` must outlive the reclaimer. Fails on a spec no streak could follow.
  static Result<ControlReclaimer> Create(ControlReclaimerOptions options,
                                         control::ClusterControl& control);

  // One pass with `sm_active`: "namespace/pod" -> SM-active averaged over the pod's GPUs
  // (0..1). Errors of single actions are returned first-wins after the pass finishes.
  Status Pass(const std::map<std::string, double>& sm_active);

  struct Stats {
    int64_t notices = 0, reclaims = 0, exempted = 0, retries = 0;
    int64_t idle_workloads = 0;      // Idle at the last pass.
    int64_t unjudged_workloads = 0;  // Lacking DCGM data at the last pass.
  };
  const Stats& stats() const { return stats_; }
  SimTime NextDeadline() const { return streaks_.NextDeadline(); }

 private:
  struct Workload;  // A workload's pods as seen this pass.
  ControlReclaimer(ControlReclaimerOptions options, control::ClusterControl& control);
  Status Notify(const Workload& w, SimTime since);
  Status Reclaim(const std::string& key, const Workload& w, SimTime since, SimTime now);

  ControlReclaimerOptions options_;
  control::ClusterControl* control_;
  IdleStreaks<std::string> streaks_;  // By workload ("namespace/owner").
  Stats stats_;
};

}  // namespace steward::reclaim

// The twin's report: the KPIs of one run, as a text table, JSON for machines, and a
// self-contained HTML page with SVG time-series charts. Every number is derived from the run;
// the writers only format. Same scenario + seed => byte-identical output.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "audit/check.h"

namespace steward::twin {

struct Percentiles {
  int count = 0;
  double p50 = 0, p95 = 0, p99 = 0, max = 0;
  // 0: exact. Else the percentiles are estimates, low by less than this share of the true
  // value (twin/wait_distribution.h); count and max stay exact.
  double relative_error = 0;
};
// Nearest-rank percentiles; sorts `values`.
Percentiles ComputePercentiles(std::vector<double>& values);

// One placement pool at one instant.
struct PoolPoint {
  int stranded_free_gpus = 0;
  int whole_free_nodes = 0;
  int largest_single_node_job = 0;  // GPUs of the largest one-pod job that fits in the pool.
  int largest_gang_job = 0;         // GPUs of the largest gang of whole nodes that fits.
};

struct TimePoint {
  double hours = 0;
  double allocation = 0;  // Allocated GPUs / total GPUs.
  double busy = 0;        // GPU_UTIL-style busy GPU-equivalents / total GPUs.
  double sm_active = 0;   // SM-active GPU-equivalents / total GPUs.
  int running = 0;
  int pending = 0;
  int whole_free_nodes = 0;
  int stranded_free_gpus = 0;
  int largest_free_block = 0;
  int unavailable_gpus = 0;      // Broken, or free on a cordoned / GPU-less node.
  std::vector<PoolPoint> pools;  // Indexed like Report::pools.
};

// A placement pool (scenario policies.pools; one "default" pool without them).
struct PoolReport {
  std::string name;
  std::string policy;
  int nodes = 0;
  int gpus = 0;
  int free_gpus = 0;  // End of run, like the PoolPoint fields below.
  PoolPoint end;
  double mean_stranded_free_gpus = 0;       // Over the time series.
  double mean_largest_single_node_job = 0;  // Over the time series.
};

// Defragmenting preemption (scenario policies.defrag).
struct DefragStats {
  bool enabled = false;
  int attempts = 0;           // Whole-node jobs blocked by fragmentation that evicted victims.
  int victims = 0;            // Workloads evicted.
  int nodes_freed = 0;        // Whole nodes they emptied.
  int jobs_placed = 0;        // Attempts after which the blocked job placed at once.
  double lost_gpu_hours = 0;  // Work the victims lost.
};

struct TeamUsage {
  double allocated_gpu_hours = 0;
  double busy_gpu_hours = 0;
  double sm_active_gpu_hours = 0;
  int workloads = 0;
};

struct Fragmentation {
  int free_gpus = 0;
  int stranded_free_gpus = 0;       // Free GPUs on partly used nodes (end of run).
  int whole_free_nodes = 0;         // Nodes with every GPU free (end of run).
  int largest_single_node_job = 0;  // GPUs of the largest one-pod job that would fit now.
  int largest_gang_job = 0;         // GPUs of the largest gang of whole nodes that would fit now.
  double mean_stranded_free_gpus = 0;  // Averaged over the time series.
  double mean_stranded_share = 0;      // ... as a share of all free GPUs.
};

// A tenant held more than the alert threshold of the cluster's GPUs.
struct TenantAlert {
  std::string team;
  double first_hours = 0;  // When it first crossed the threshold.
  double peak_share = 0;   // Highest share seen.
  double hours_over = 0;   // Sampled time spent above the threshold.
};

// Faults and their cost (issue 5 item 9). Counts are over the whole run.
struct FaultReport {
  bool enabled = false;
  int xid_events = 0;                    // XIDs logged (one per GPU hit).
  std::map<std::string, int> by_xid;     // "79" -> XIDs.
  std::map<std::string, int> by_source;  // random, rack, driver, scheduled, injected.
  int rack_events = 0;
  int driver_rollouts = 0;
  int other_interruptions = 0;  // Host, network and software interruptions (no GPU fault).
  int gpus_failed = 0;          // GPUs that became unusable.
  int gpus_faulty_at_end = 0;
  // GPU-hours nobody could use: broken GPUs plus free GPUs of cordoned or GPU-less nodes.
  double capacity_lost_gpu_hours = 0;
  int repairs = 0;        // Node fault episodes closed (node back in service).
  double mttr_hours = 0;  // Mean hours from a node's first fault to back in service.
  int nodes_out_at_end = 0;
  int workloads_interrupted = 0;  // Distinct workloads stopped by a fault or a drain.
  int interruptions = 0;          // Stops by faults and drains.
  // Work thrown away, by cause: "failure" (faults), "drain" (remediation evictions),
  // "preemption" (admission).
  std::map<std::string, double> lost_gpu_hours_by_cause;
  // Useful training GPU-hours / allocated training GPU-hours: allocated minus startup, minus
  // work lost to interruptions of any cause (including restores).
  double training_goodput = 0;
  // Filled by an attached remediation controller (-1 = none attached).
  int incidents_open = -1;
  int incidents = 0;
  int tickets = 0;
  int nodes_quarantined = 0;
};

// Idle reclaim (issue 7 item 3), filled by an attached reclaim controller
// (reclaim/idle_reclaimer.h); `enabled` false when none is attached. Counts are over the run.
struct ReclaimReport {
  bool enabled = false;
  bool dry_run = false;
  double notify_after_minutes = 0;
  double reclaim_after_minutes = 0;
  double idle_sm_active_below = 0;
  std::vector<std::string> kinds;  // In reclaim order.
  int notifications = 0;           // Idle streaks that reached notify_after (a dry run too).
  int reclaims = 0;                // Workloads stopped.
  std::map<std::string, int> reclaims_by_kind;
  int exempted = 0;       // Idle streaks that reached reclaim_after on an exempt workload.
  int would_reclaim = 0;  // Dry run: the reclaims it would have made.
  // GPU-hours the stopped workloads would still have held had they run to their natural end
  // (capped at the horizon): the capacity handed back (the twin's ground truth).
  double gpu_hours_reclaimed = 0;
  std::map<std::string, double> gpu_hours_reclaimed_by_team;
  double would_reclaim_gpu_hours = 0;  // Dry run: the same for the would-be reclaims.
  // GPU-hours other workloads held on the reclaimed GPUs inside those windows (from each
  // reclaim to the stopped workload's natural end): the reclaimed capacity put to use.
  double gpu_hours_reused = 0;
};

// Scheduler observability, named after Kueue's metrics (pkg/metrics/metrics.go; the names are
// listed in docs/governance.md "Observability"). Filled by admitters that have ClusterQueues.

// Kueue's wait-time histogram: buckets 1, 2.5, 5, 10, ... 2.5 * 2^12 s (its
// generateExponentialBuckets(14)), plus +Inf.
struct WaitHistogram {
  static const std::vector<double>& UpperBounds();
  std::vector<int64_t> counts;  // Per bucket (not cumulative); one more than UpperBounds().
  double sum = 0;
  int64_t count = 0;
  void Observe(double seconds);
};

// One (flavor, resource) of a ClusterQueue, in canonical units (CPU cores, bytes, counts).
struct QuotaUsage {
  std::string flavor;
  std::string resource;
  double nominal = 0;
  std::optional<double> borrowing_limit, lending_limit;  // nullopt = unlimited.
  double usage = 0;       // Reserved by admitted workloads (kueue_cluster_queue_resource_usage).
  double borrowed = 0;    // max(0, usage - nominal) (ClusterQueue status flavorsUsage.borrowed).
  double available = 0;   // What it can still take now without preemption.
  double max_usable = 0;  // The most it can ever hold (potentially available).
};

struct ClusterQueueReport {
  std::string name;
  std::string cohort;
  std::string queueing_strategy;
  // kueue_pending_workloads{status}: "active" = waiting to be tried (every workload of a
  // StrictFIFO queue), "inadmissible" = its last attempt failed (BestEffortFIFO parks it).
  int pending_active = 0;
  int pending_inadmissible = 0;
  int reserving_workloads = 0;  // Holding quota now (kueue_reserving_active_workloads).
  int64_t admitted_workloads_total = 0;
  std::map<std::string, int64_t> evicted_workloads_total;    // By reason (Preempted, ...).
  std::map<std::string, int64_t> preempted_workloads_total;  // As preemptor, by reason.
  double weighted_share = 0;                                 // Fair-sharing DRS.
  WaitHistogram admission_wait;  // Pending (or requeued) until admitted.
  std::vector<QuotaUsage> quotas;
};

struct SchedulerReport {
  std::vector<ClusterQueueReport> cluster_queues;
  // Per scenario team, the ClusterQueue its workloads go to ("" if none resolves).
  std::vector<std::string> team_cluster_queues;
};
nlohmann::json ToJson(const SchedulerReport& scheduler);

// One autoscaled inference service (a generator with traffic:) over the run.
struct ServiceReport {
  std::string name;  // namespace/name.
  double slo_p99_ms = 0;
  double p99_latency_ms = 0;  // Request-weighted p99 of the per-sync p99s (twin/service_model.h).
  double slo_minutes_violated = 0;
  double requests = 0;
  double replica_hours = 0;
  double peak_rps = 0;
  // GPU sharing (a pool with gpu_sharing): ready replica-hours beside a non-serving pod on
  // their GPU (MIG included), and those the neighbour slowed (twin/interference.h).
  bool sharing = false;
  double shared_replica_hours = 0;
  double slowed_replica_hours = 0;
};

// GPU sharing between serving and training (docs/tidal.md "Sharing a GPU"), only when a pool
// shares GPUs.
struct SharingReport {
  bool enabled = false;
  std::map<std::string, std::string> pools;  // Pool -> its mode, for pools that share.
  // GPU-equivalents x hours of training pods on a GPU beside a ready serving replica, and the
  // same at the speed the interference left them (what they computed).
  double training_gpu_hours_beside_serving = 0;
  double training_effective_gpu_hours_beside_serving = 0;
};

// Serving and tidal lending (issue 19, docs/tidal.md). Present in a report only when the
// scenario has traffic services or a tidal section, so other reports are unchanged.
struct TidalReport {
  bool enabled = false;
  std::vector<ServiceReport> services;
  double slo_minutes_violated = 0;  // Summed over services.
  // Filled by an attached tidal controller (tidal/twin_tidal.h); `lending` false without one.
  bool lending = false;
  std::string lend_from, lend_to;
  double gpu_hours_lent = 0;  // Integral of the quota lent.
  int max_lent_gpus = 0;
  int lends = 0, reclaims = 0;
  int gpus_reclaimed = 0;     // Quota taken back, summed over reclaims.
  int reclaim_evictions = 0;  // Borrowing workloads evicted to give GPUs back.
  // Elastic training (a scenario with elastic jobs, or a shrink happened): borrowers shrunk
  // instead of evicted, and the GPUs that freed. Reported only then.
  bool elastic = false;
  int reclaim_shrinks = 0, gpus_shrunk = 0;
  int regrows = 0, gpus_regrown = 0;  // Shrunk borrowers grown back when lent GPUs again.
  // GPU-hours of lent capacity serving took back: each reclaimed GPU counted from its reclaim
  // until it is lent again or the run ends (tidal/reclaimed_capacity.h).
  double gpu_hours_reclaimed = 0;
  // GPU-hours the borrowing team held beyond its static quota (the twin's count, at each
  // autoscaler sync): what the lending gave training.
  double training_gpu_hours_gained = 0;
  double training_gpu_hours = 0;     // Allocated to training workloads over the run.
  Percentiles training_jct_seconds;  // Submit to completion of finished training workloads.
  SharingReport sharing;
};

// A rollout the rollout engine ran in the twin (a gated faults.driver_rollouts entry, or
// `rollout run`'s plan): filled by its controller (rollout/twin_rollout.h) with the status as
// `steward rollout status` shows it (rollout/status.h), so the report, the status command and
// the dashboard share one shape. Present only when a rollout ran, so other reports are
// unchanged.
struct RolloutSection {
  nlohmann::json status;  // The shape of `steward rollout status --json`.
  std::string text;       // Its text form, without per-node steps.
};

struct Report {
  std::string scenario;
  uint64_t seed = 0;
  double days = 0;
  int total_gpus = 0;
  int total_nodes = 0;
  std::string admission_policy, placement_policy;

  int64_t events = 0;
  int workloads_submitted = 0;
  int workloads_completed = 0;
  int workloads_running = 0;
  int workloads_pending = 0;
  int workloads_stopped = 0;  // Stopped for good by a controller (idle reclaim).
  int interruptions = 0;      // Stops by faults (GPU XIDs, other failures) and drains.
  double lost_gpu_hours = 0;  // Work thrown away by interruptions of any cause.

  double capacity_gpu_hours = 0;
  double allocated_gpu_hours = 0;
  double busy_gpu_hours = 0;
  double sm_active_gpu_hours = 0;
  double allocation_rate = 0;
  double busy_utilization = 0;
  double sm_active_utilization = 0;
  double idle_allocated_gpu_hours = 0;  // Allocated minus SM-active-weighted GPU-hours.

  Fragmentation fragmentation;
  std::map<std::string, int> pending_by_reason;
  std::map<std::string, Percentiles> queue_wait_seconds;  // By tier.
  std::map<std::string, Percentiles> queue_wait_seconds_by_team;
  // By GPUs per pod of the first pod set ("1", "2", "8", ...; "shared" for fractional / MIG).
  std::map<std::string, Percentiles> queue_wait_seconds_by_pod_size;
  std::vector<PoolReport> pools;
  DefragStats defrag;
  std::map<std::string, int> preemptions;                // Evictions to make room, by victim tier.
  std::map<std::string, double> lost_gpu_hours_by_team;  // All causes (failures, preemptions).
  std::map<std::string, double> lost_gpu_hours_by_tier;  // All causes, by the victim's tier.
  // The part lost to preemptions (each: time since checkpoint x GPUs + restore).
  std::map<std::string, double> preemption_lost_gpu_hours_by_team;
  std::map<std::string, double> preemption_lost_gpu_hours_by_tier;
  int pods_ready_timeouts = 0;  // waitForPodsReady evictions (Kueue reason PodsReadyTimeout).
  std::map<std::string, TeamUsage> teams;
  std::map<std::string, double> allocated_gpu_hours_by_kind;
  std::map<std::string, double> sm_active_gpu_hours_by_kind;
  double alert_tenant_share = 0;
  std::vector<TenantAlert> tenant_alerts;
  FaultReport faults;
  ReclaimReport reclaim;
  SchedulerReport scheduler;
  TidalReport tidal;
  std::vector<RolloutSection> rollouts;
  std::vector<TimePoint> series;
  // The scenario's tenant isolation audit (twin/tenancy.h); absent without a tenancy section.
  std::optional<audit::AuditResult> tenancy;
};

nlohmann::json ToJson(const Report& report);
std::string ToText(const Report& report);
std::string ToHtml(const Report& report);

}  // namespace steward::twin

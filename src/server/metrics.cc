#include "server/metrics.h"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <optional>

#include "health/stack_health_metrics.h"
#include "telemetry/exposition.h"

namespace steward::server {
namespace {

class Writer {
 public:
  void Family(std::string_view name, std::string_view type, std::string_view help) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void Sample(std::string_view name, double value) {
    out_ += fmt::format("{} {}\n", name, Number(value));
  }
  // `labels` is a rendered label list without braces: k1="v1",k2="v2".
  void Sample(std::string_view name, const std::string& labels, double value) {
    out_ += fmt::format("{}{{{}}} {}\n", name, labels, Number(value));
  }
  // Whole families rendered elsewhere.
  void Append(std::string_view text) { out_ += text; }
  std::string Take() { return std::move(out_); }

 private:
  // Shortest round-trip representation; integers print without a fraction.
  static std::string Number(double v) { return fmt::format("{}", v); }
  std::string out_;
};

std::string L(std::string_view k, std::string_view v) {
  return fmt::format("{}=\"{}\"", k, telemetry::EscapeLabelValue(v));
}

// Kueue's scheduler metrics (pkg/metrics/metrics.go) under the prefix steward_kueue_, same
// labels; only admitters with ClusterQueues have any. Quantities in canonical units.
void RenderSchedulerMetrics(const twin::SchedulerReport& s, Writer& w) {
  if (s.cluster_queues.empty()) return;
  auto cq_label = [](const twin::ClusterQueueReport& q) { return L("cluster_queue", q.name); };
  w.Family("steward_kueue_pending_workloads", "gauge",
           "Pending workloads per cluster_queue and status (active: waiting to be tried; "
           "inadmissible: last attempt failed)");
  for (const auto& q : s.cluster_queues) {
    w.Sample("steward_kueue_pending_workloads", cq_label(q) + "," + L("status", "active"),
             q.pending_active);
    w.Sample("steward_kueue_pending_workloads", cq_label(q) + "," + L("status", "inadmissible"),
             q.pending_inadmissible);
  }
  w.Family("steward_kueue_reserving_active_workloads", "gauge",
           "Workloads holding quota in each cluster_queue");
  for (const auto& q : s.cluster_queues)
    w.Sample("steward_kueue_reserving_active_workloads", cq_label(q), q.reserving_workloads);
  w.Family("steward_kueue_admitted_workloads_total", "counter",
           "Workloads admitted per cluster_queue");
  for (const auto& q : s.cluster_queues)
    w.Sample("steward_kueue_admitted_workloads_total", cq_label(q),
             static_cast<double>(q.admitted_workloads_total));
  w.Family("steward_kueue_admission_wait_time_seconds", "histogram",
           "Time from a workload becoming pending (created or requeued) to its admission, per "
           "cluster_queue");
  const auto& bounds = twin::WaitHistogram::UpperBounds();
  for (const auto& q : s.cluster_queues) {
    int64_t cumulative = 0;
    for (size_t i = 0; i <= bounds.size(); ++i) {
      if (!q.admission_wait.counts.empty()) cumulative += q.admission_wait.counts[i];
      const std::string le = i < bounds.size() ? fmt::format("{}", bounds[i]) : "+Inf";
      w.Sample("steward_kueue_admission_wait_time_seconds_bucket", cq_label(q) + "," + L("le", le),
               static_cast<double>(cumulative));
    }
    w.Sample("steward_kueue_admission_wait_time_seconds_sum", cq_label(q), q.admission_wait.sum);
    w.Sample("steward_kueue_admission_wait_time_seconds_count", cq_label(q),
             static_cast<double>(q.admission_wait.count));
  }
  w.Family("steward_kueue_evicted_workloads_total", "counter",
           "Workloads evicted per cluster_queue and reason (Preempted, PodsReadyTimeout)");
  for (const auto& q : s.cluster_queues)
    for (const auto& [reason, n] : q.evicted_workloads_total)
      w.Sample("steward_kueue_evicted_workloads_total", cq_label(q) + "," + L("reason", reason),
               static_cast<double>(n));
  w.Family("steward_kueue_preempted_workloads_total", "counter",
           "Workloads preempted per preempting_cluster_queue and reason (InClusterQueue, "
           "InCohortReclamation, InCohortFairSharing, InCohortReclaimWhileBorrowing)");
  for (const auto& q : s.cluster_queues)
    for (const auto& [reason, n] : q.preempted_workloads_total)
      w.Sample("steward_kueue_preempted_workloads_total",
               L("preempting_cluster_queue", q.name) + "," + L("reason", reason),
               static_cast<double>(n));
  w.Family("steward_kueue_cluster_queue_weighted_share", "gauge",
           "Fair-sharing dominant resource share of each cluster_queue (0 = within nominal)");
  for (const auto& q : s.cluster_queues)
    w.Sample("steward_kueue_cluster_queue_weighted_share", cq_label(q), q.weighted_share);
  struct Gauge {
    const char* name;
    const char* help;
    std::function<std::optional<double>(const twin::QuotaUsage&)> value;
  };
  const Gauge gauges[] = {
      {"steward_kueue_cluster_queue_resource_usage", "Quota reserved per flavor and resource",
       [](const twin::QuotaUsage& u) { return std::optional<double>(u.usage); }},
      {"steward_kueue_cluster_queue_nominal_quota", "Nominal quota per flavor and resource",
       [](const twin::QuotaUsage& u) { return std::optional<double>(u.nominal); }},
      {"steward_kueue_cluster_queue_borrowing_limit",
       "Borrowing limit per flavor and resource (absent = unlimited)",
       [](const twin::QuotaUsage& u) { return u.borrowing_limit; }},
      {"steward_kueue_cluster_queue_lending_limit",
       "Lending limit per flavor and resource (absent = unlimited)",
       [](const twin::QuotaUsage& u) { return u.lending_limit; }},
      {"steward_kueue_cluster_queue_borrowed",
       "Usage above nominal quota per flavor and resource (ClusterQueue status "
       "flavorsUsage.borrowed; no Kueue metric)",
       [](const twin::QuotaUsage& u) { return std::optional<double>(u.borrowed); }},
  };
  for (const Gauge& g : gauges) {
    w.Family(g.name, "gauge", g.help);
    for (const auto& q : s.cluster_queues)
      for (const auto& u : q.quotas) {
        const std::optional<double> v = g.value(u);
        if (!v) continue;
        w.Sample(g.name,
                 L("cohort", q.cohort) + "," + cq_label(q) + "," + L("flavor", u.flavor) + "," +
                     L("resource", u.resource),
                 *v);
      }
  }
}

}  // namespace

std::string RenderMetrics(const Snapshot& s) {
  const Overview& o = s.overview;
  Writer w;
  w.Family("steward_gpus", "gauge",
           "GPUs by state (in_use, idle, faulty, cordoned); they sum to the cluster");
  w.Sample("steward_gpus", L("state", "in_use"), o.gpus_in_use);
  w.Sample("steward_gpus", L("state", "idle"), o.gpus_idle);
  w.Sample("steward_gpus", L("state", "faulty"), o.gpus_faulty);
  w.Sample("steward_gpus", L("state", "cordoned"), o.gpus_cordoned);
  w.Family("steward_gpus_total", "gauge", "GPUs in the cluster");
  w.Sample("steward_gpus_total", o.gpus_total);
  w.Family("steward_gpus_allocated", "gauge",
           "GPUs allocated to pods (in use plus faulty ones still held)");
  w.Sample("steward_gpus_allocated", o.gpus_allocated);
  w.Family("steward_node_info", "gauge",
           "1 per node, naming its pool, rack and GPU model: node is dcgm-exporter's Hostname, "
           "so DCGM series join on it (filters by pool or rack)");
  for (const NodeView& n : s.nodes)
    w.Sample("steward_node_info",
             L("node", n.name) + "," + L("pool", n.pool) + "," +
                 L("rack", fmt::format("rack-{}", n.rack)) + "," + L("gpu_model", n.gpu_model),
             1);
  w.Family("steward_nodes", "gauge", "Nodes by condition (total, cordoned, faulty)");
  w.Sample("steward_nodes", L("state", "total"), o.nodes_total);
  w.Sample("steward_nodes", L("state", "cordoned"), o.nodes_cordoned);
  w.Sample("steward_nodes", L("state", "faulty"), o.nodes_faulty);

  w.Family("steward_allocation_ratio", "gauge", "Allocated GPUs / all GPUs, now");
  w.Sample("steward_allocation_ratio", o.allocation_rate);
  w.Family("steward_busy_ratio", "gauge", "GPU_UTIL-style busy GPU-equivalents / all GPUs, now");
  w.Sample("steward_busy_ratio", o.busy_utilization);
  w.Family("steward_sm_active_ratio", "gauge", "SM-active GPU-equivalents / all GPUs, now");
  w.Sample("steward_sm_active_ratio", o.sm_active_utilization);
  w.Family("steward_utilization_cumulative_ratio", "gauge",
           "GPU-hours of each kind / capacity GPU-hours since the start of the run");
  w.Sample("steward_utilization_cumulative_ratio", L("kind", "allocated"),
           o.allocation_rate_cumulative);
  w.Sample("steward_utilization_cumulative_ratio", L("kind", "busy"),
           o.busy_utilization_cumulative);
  w.Sample("steward_utilization_cumulative_ratio", L("kind", "sm_active"),
           o.sm_active_utilization_cumulative);
  w.Family("steward_stranded_free_gpus", "gauge", "Free GPUs on partly used nodes (fragmentation)");
  w.Sample("steward_stranded_free_gpus", o.stranded_free_gpus);
  w.Family("steward_whole_free_nodes", "gauge", "Schedulable nodes with every GPU free");
  w.Sample("steward_whole_free_nodes", o.whole_free_nodes);

  w.Family("steward_workloads", "gauge", "Unfinished workloads by state; completed ones");
  w.Sample("steward_workloads", L("state", "running"), o.workloads_running);
  w.Sample("steward_workloads", L("state", "starting"), o.workloads_starting);
  w.Sample("steward_workloads", L("state", "pending"), o.workloads_pending);
  w.Sample("steward_workloads", L("state", "completed"), o.workloads_completed);
  w.Family("steward_workloads_submitted_total", "counter", "Workloads submitted since the start");
  w.Sample("steward_workloads_submitted_total", o.workloads_submitted);
  w.Family("steward_pending_workloads", "gauge", "Pending workloads by reason");
  for (const auto& [reason, n] : o.pending_by_reason)
    w.Sample("steward_pending_workloads", L("reason", reason), n);

  w.Family("steward_queue_quota_gpus", "gauge", "Nominal GPU quota of each team's queue");
  for (const QueueView& q : s.queues)
    w.Sample("steward_queue_quota_gpus", L("team", q.team), q.quota_gpus);
  w.Family("steward_queue_used_gpus", "gauge", "GPUs allocated to each team's pods");
  for (const QueueView& q : s.queues)
    w.Sample("steward_queue_used_gpus", L("team", q.team), q.used_gpus);
  w.Family("steward_queue_borrowed_gpus", "gauge", "GPUs a team uses beyond its quota");
  for (const QueueView& q : s.queues)
    w.Sample("steward_queue_borrowed_gpus", L("team", q.team), q.borrowed_gpus);
  w.Family("steward_queue_pending_workloads", "gauge", "Pending workloads by team and reason");
  for (const QueueView& q : s.queues)
    for (const auto& [reason, n] : q.pending_by_reason)
      w.Sample("steward_queue_pending_workloads", L("team", q.team) + "," + L("reason", reason), n);
  w.Family("steward_queue_pending_gpus", "gauge", "GPUs wanted by each team's pending workloads");
  for (const QueueView& q : s.queues)
    w.Sample("steward_queue_pending_gpus", L("team", q.team), q.pending_gpus);
  w.Family("steward_queue_info", "gauge",
           "1 per team, naming its ClusterQueue (\"\" under the fifo-quota admitter): joins team "
           "series with the per-ClusterQueue ones");
  for (const QueueView& q : s.queues)
    w.Sample("steward_queue_info", L("team", q.team) + "," + L("cluster_queue", q.cluster_queue),
             1);
  w.Family("steward_tenant_share_threshold", "gauge",
           "Share of all GPUs above which one team raises a tenant alert "
           "(policies.alert_tenant_share)");
  w.Sample("steward_tenant_share_threshold", o.tenant_share_threshold);
  w.Family("steward_waste_gpus", "gauge",
           "GPUs wasted right now by cause (docs/diagnose.md): held without computing, per team "
           "(zombie, over_request, dataloader_stall, startup), or free while work waits, for the "
           "cluster (fragmentation, queueing; no team label)");
  for (const QueueView& q : s.queues)
    for (const auto& [cause, gpus] : q.waste_gpus)
      w.Sample("steward_waste_gpus", L("team", q.team) + "," + L("cause", cause), gpus);
  w.Sample("steward_waste_gpus", L("cause", "fragmentation"), o.waste_fragmentation_gpus);
  w.Sample("steward_waste_gpus", L("cause", "queueing"), o.waste_queueing_gpus);
  w.Family("steward_team_gpu_hours_total", "counter",
           "GPU-hours by team since the start: allocated, busy (GPU_UTIL) and SM-active");
  for (const QueueView& q : s.queues) {
    w.Sample("steward_team_gpu_hours_total", L("team", q.team) + "," + L("kind", "allocated"),
             q.allocated_gpu_hours);
    w.Sample("steward_team_gpu_hours_total", L("team", q.team) + "," + L("kind", "busy"),
             q.busy_gpu_hours);
    w.Sample("steward_team_gpu_hours_total", L("team", q.team) + "," + L("kind", "sm_active"),
             q.sm_active_gpu_hours);
  }
  if (!s.currency.empty()) {
    w.Family("steward_team_cost_total", "counter", "Cost of each team's allocated GPU-hours");
    for (const QueueView& q : s.queues)
      w.Sample("steward_team_cost_total", L("team", q.team) + "," + L("currency", s.currency),
               q.cost);
  }

  RenderSchedulerMetrics(s.scheduler, w);

  w.Family("steward_incidents_open", "gauge",
           "Open incidents of the remediation loop (node, rack or leaf faults)");
  w.Sample("steward_incidents_open", static_cast<double>(o.incidents_open));
  if (o.remediation) {
    w.Family("steward_remediation_nodes", "gauge",
             "Nodes in each state of the remediation loop (healthy ones not counted)");
    for (std::string_view st :
         {"suspect", "cordoned", "draining", "in-repair", "validating", "quarantined"}) {
      auto it = o.nodes_by_remediation_state.find(std::string(st));
      w.Sample("steward_remediation_nodes", L("state", st),
               it == o.nodes_by_remediation_state.end() ? 0 : it->second);
    }
    w.Family("steward_remediation_tickets_total", "counter", "Repair tickets filed");
    w.Sample("steward_remediation_tickets_total", o.tickets);
  }
  if (s.stack_findings) w.Append(health::StackFindingsExposition(*s.stack_findings));
  w.Family("steward_sim_time_seconds", "gauge",
           "Simulated seconds since the start of the scenario");
  w.Sample("steward_sim_time_seconds", o.sim_seconds);
  w.Family("steward_twin_events_total", "counter", "Events the twin has processed");
  w.Sample("steward_twin_events_total", static_cast<double>(o.events));
  return w.Take();
}

}  // namespace steward::server

#include "server/metrics.h"

#include <fmt/format.h>

namespace steward::server {
namespace {

// Label values escape backslash, double quote and newline (exposition format 0.0.4).
std::string Escape(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

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
  std::string Take() { return std::move(out_); }

 private:
  // Shortest round-trip representation; integers print without a fraction.
  static std::string Number(double v) { return fmt::format("{}", v); }
  std::string out_;
};

std::string L(std::string_view k, std::string_view v) {
  return fmt::format("{}=\"{}\"", k, Escape(v));
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
  w.Family("steward_sim_time_seconds", "gauge",
           "Simulated seconds since the start of the scenario");
  w.Sample("steward_sim_time_seconds", o.sim_seconds);
  w.Family("steward_twin_events_total", "counter", "Events the twin has processed");
  w.Sample("steward_twin_events_total", static_cast<double>(o.events));
  return w.Take();
}

}  // namespace steward::server

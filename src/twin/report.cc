#include "twin/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "audit/report.h"
#include "model/text.h"
#include "twin/report_json.h"
#include "twin/report_rollouts.h"
#include "twin/tenancy.h"

namespace steward::twin {

Percentiles ComputePercentiles(std::vector<double>& v) {
  Percentiles p;
  p.count = static_cast<int>(v.size());
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  // Nearest rank: the smallest value with at least q of the samples at or below it.
  auto rank = [&](double q) {
    size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::clamp<size_t>(k, 1, v.size()) - 1];
  };
  p.p50 = rank(0.50);
  p.p95 = rank(0.95);
  p.p99 = rank(0.99);
  p.max = v.back();
  return p;
}

const std::vector<double>& WaitHistogram::UpperBounds() {
  static const std::vector<double> kBounds = [] {
    std::vector<double> b = {1};
    for (int i = 0; i < 13; ++i) b.push_back(2.5 * std::pow(2.0, i));
    return b;
  }();
  return kBounds;
}

void WaitHistogram::Observe(double seconds) {
  const auto& b = UpperBounds();
  if (counts.empty()) counts.assign(b.size() + 1, 0);
  const size_t i = std::lower_bound(b.begin(), b.end(), seconds) - b.begin();
  ++counts[i];
  sum += seconds;
  ++count;
}

namespace {

// Rounds for presentation so JSON stays readable; the rounding is deterministic.
double R(double x, int digits = 4) { return model::RoundTo(x, digits); }

// A wait distribution; "relative_error" only when its percentiles are estimates (issue 22: a
// distribution with more distinct waits than twin/wait_distribution.h keeps exactly).
nlohmann::json WaitJson(const Percentiles& p) {
  nlohmann::json j = {{"count", p.count},
                      {"p50", R(p.p50, 1)},
                      {"p95", R(p.p95, 1)},
                      {"p99", R(p.p99, 1)},
                      {"max", R(p.max, 1)}};
  if (p.relative_error > 0) j["relative_error"] = p.relative_error;
  return j;
}

nlohmann::json FaultsJson(const FaultReport& f) {
  nlohmann::json lost = nlohmann::json::object();
  for (const auto& [cause, h] : f.lost_gpu_hours_by_cause) lost[cause] = R(h, 2);
  nlohmann::json j = {{"enabled", f.enabled},
                      {"xid_events", f.xid_events},
                      {"by_xid", f.by_xid},
                      {"by_source", f.by_source},
                      {"rack_events", f.rack_events},
                      {"driver_rollouts", f.driver_rollouts},
                      {"other_interruptions", f.other_interruptions},
                      {"gpus_failed", f.gpus_failed},
                      {"gpus_faulty_at_end", f.gpus_faulty_at_end},
                      {"capacity_lost_gpu_hours", R(f.capacity_lost_gpu_hours, 2)},
                      {"repairs", f.repairs},
                      {"mttr_hours", R(f.mttr_hours, 3)},
                      {"nodes_out_at_end", f.nodes_out_at_end},
                      {"workloads_interrupted", f.workloads_interrupted},
                      {"interruptions", f.interruptions},
                      {"lost_gpu_hours_by_cause", lost},
                      {"training_goodput", R(f.training_goodput)}};
  if (f.incidents_open >= 0) {
    j["incidents_open"] = f.incidents_open;
    j["incidents"] = f.incidents;
    j["tickets"] = f.tickets;
    j["nodes_quarantined"] = f.nodes_quarantined;
  } else {
    j["incidents_open"] = nullptr;
  }
  return j;
}

nlohmann::json ReclaimJson(const ReclaimReport& c) {
  nlohmann::json by_team = nlohmann::json::object();
  for (const auto& [team, h] : c.gpu_hours_reclaimed_by_team) by_team[team] = R(h, 2);
  return {{"enabled", c.enabled},
          {"dry_run", c.dry_run},
          {"notify_after_minutes", R(c.notify_after_minutes, 2)},
          {"reclaim_after_minutes", R(c.reclaim_after_minutes, 2)},
          {"idle_sm_active_below", R(c.idle_sm_active_below)},
          {"kinds", c.kinds},
          {"notifications", c.notifications},
          {"reclaims", c.reclaims},
          {"reclaims_by_kind", c.reclaims_by_kind},
          {"exempted", c.exempted},
          {"would_reclaim", c.would_reclaim},
          {"gpu_hours_reclaimed", R(c.gpu_hours_reclaimed, 2)},
          {"gpu_hours_reclaimed_by_team", by_team},
          {"would_reclaim_gpu_hours", R(c.would_reclaim_gpu_hours, 2)},
          {"gpu_hours_reused", R(c.gpu_hours_reused, 2)}};
}

nlohmann::json TidalJson(const TidalReport& t) {
  nlohmann::json services = nlohmann::json::array();
  nlohmann::json p99 = nlohmann::json::object();
  for (const ServiceReport& s : t.services) {
    services.push_back({{"name", s.name},
                        {"slo_p99_ms", R(s.slo_p99_ms, 1)},
                        {"p99_latency_ms", R(s.p99_latency_ms, 1)},
                        {"slo_minutes_violated", R(s.slo_minutes_violated, 2)},
                        {"requests", R(s.requests, 0)},
                        {"replica_hours", R(s.replica_hours, 2)},
                        {"peak_rps", R(s.peak_rps, 1)}});
    if (s.sharing) {
      services.back()["shared_replica_hours"] = R(s.shared_replica_hours, 2);
      services.back()["slowed_replica_hours"] = R(s.slowed_replica_hours, 2);
    }
    p99[s.name] = R(s.p99_latency_ms, 1);
  }
  nlohmann::json j = {{"lending", t.lending},
                      {"lend_from", t.lend_from},
                      {"lend_to", t.lend_to},
                      {"gpu_hours_lent", R(t.gpu_hours_lent, 2)},
                      {"max_lent_gpus", t.max_lent_gpus},
                      {"lends", t.lends},
                      {"reclaims", t.reclaims},
                      {"gpus_reclaimed", t.gpus_reclaimed},
                      {"reclaim_evictions", t.reclaim_evictions},
                      {"gpu_hours_reclaimed", R(t.gpu_hours_reclaimed, 2)},
                      {"training_gpu_hours", R(t.training_gpu_hours, 2)},
                      {"training_gpu_hours_gained", R(t.training_gpu_hours_gained, 2)},
                      {"slo_minutes_violated", R(t.slo_minutes_violated, 2)},
                      {"p99_latency_ms_by_service", p99},
                      {"services", services}};
  if (t.elastic) {
    j["reclaim_shrinks"] = t.reclaim_shrinks;
    j["gpus_shrunk"] = t.gpus_shrunk;
    j["regrows"] = t.regrows;
    j["gpus_regrown"] = t.gpus_regrown;
  }
  if (t.sharing.enabled)
    j["gpu_sharing"] = {
        {"pools", t.sharing.pools},
        {"training_gpu_hours_beside_serving", R(t.sharing.training_gpu_hours_beside_serving, 2)},
        {"training_effective_gpu_hours_beside_serving",
         R(t.sharing.training_effective_gpu_hours_beside_serving, 2)}};
  return j;
}

// One line per figure of the tidal section, shared by the text and HTML reports.
std::vector<std::pair<std::string, std::string>> TidalLines(const TidalReport& t) {
  std::vector<std::pair<std::string, std::string>> v;
  for (const ServiceReport& s : t.services)
    v.push_back({s.name, fmt::format("p99 {:.0f} ms (SLO {:.0f} ms), {:.1f} SLO minutes violated, "
                                     "peak {:.0f} req/s, {:.0f} replica-hours",
                                     s.p99_latency_ms, s.slo_p99_ms, s.slo_minutes_violated,
                                     s.peak_rps, s.replica_hours)});
  for (const ServiceReport& s : t.services)
    if (s.sharing)
      v.push_back({s.name + " sharing GPUs",
                   fmt::format("{:.0f} replica-hours beside a neighbour, {:.0f} slowed by it",
                               s.shared_replica_hours, s.slowed_replica_hours)});
  v.push_back({"SLO minutes violated", fmt::format("{:.1f}", t.slo_minutes_violated)});
  if (t.lending) {
    v.push_back(
        {"lending",
         fmt::format("{} -> {}: {:.0f} GPU-hours lent (at most {} GPUs), {} "
                     "lends, {} reclaims ({} GPUs, {} evictions, {:.0f} GPU-hours "
                     "reclaimed)",
                     t.lend_from, t.lend_to, t.gpu_hours_lent, t.max_lent_gpus, t.lends, t.reclaims,
                     t.gpus_reclaimed, t.reclaim_evictions, t.gpu_hours_reclaimed)});
    if (t.elastic)
      v.push_back({"elastic borrowers",
                   fmt::format("{} shrinks ({} GPUs) instead of evictions, {} grown back ({} GPUs)",
                               t.reclaim_shrinks, t.gpus_shrunk, t.regrows, t.gpus_regrown)});
  } else {
    v.push_back({"lending", "off (static split)"});
  }
  v.push_back({"training GPU-hours (gained)",
               fmt::format("{:.0f} ({:.0f} beyond its static quota)", t.training_gpu_hours,
                           t.training_gpu_hours_gained)});
  if (t.sharing.enabled) {
    std::string pools;
    for (const auto& [pool, mode] : t.sharing.pools)
      pools += fmt::format("{}{} {}", pools.empty() ? "" : ", ", pool, mode);
    v.push_back({"GPU sharing",
                 fmt::format("{}: training beside serving {:.0f} GPU-hours, {:.0f} effective "
                             "(at its speed beside the replicas)",
                             pools, t.sharing.training_gpu_hours_beside_serving,
                             t.sharing.training_effective_gpu_hours_beside_serving)});
  }
  v.push_back({"training JCT p50 / p95 (h)",
               fmt::format("{:.1f} / {:.1f} ({} finished)", t.training_jct_seconds.p50 / 3600,
                           t.training_jct_seconds.p95 / 3600, t.training_jct_seconds.count)});
  return v;
}

// One line per figure of the reclaim section, shared by the text and HTML reports.
std::vector<std::pair<std::string, std::string>> ReclaimLines(const ReclaimReport& c) {
  std::string kinds;
  for (const auto& k : c.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
  std::vector<std::pair<std::string, std::string>> v = {
      {"mode", c.dry_run ? "dry run (records, stops nothing)" : "enforcing"},
      {"policy", fmt::format("SM-active < {:.0f}%: notice after {:.0f} min, reclaim after {:.0f} "
                             "min; kinds {}",
                             100 * c.idle_sm_active_below, c.notify_after_minutes,
                             c.reclaim_after_minutes, kinds)},
      {"notifications", std::to_string(c.notifications)},
      {"exempted (by label)", std::to_string(c.exempted)}};
  if (c.dry_run) {
    v.push_back({"would reclaim (GPU-hours)",
                 fmt::format("{} ({:.0f})", c.would_reclaim, c.would_reclaim_gpu_hours)});
  } else {
    v.push_back({"reclaimed (GPU-hours handed back)",
                 fmt::format("{} ({:.0f})", c.reclaims, c.gpu_hours_reclaimed)});
    v.push_back(
        {"reused by other work",
         fmt::format(
             "{:.0f} GPU-hours ({:.1f}% of reclaimed)", c.gpu_hours_reused,
             c.gpu_hours_reclaimed > 0 ? 100 * c.gpu_hours_reused / c.gpu_hours_reclaimed : 0.0)});
  }
  return v;
}

}  // namespace

nlohmann::json ToJson(const SchedulerReport& s) {
  using nlohmann::json;
  json cqs = json::array();
  for (const ClusterQueueReport& q : s.cluster_queues) {
    json buckets = json::array();
    const auto& bounds = WaitHistogram::UpperBounds();
    int64_t cumulative = 0;
    for (size_t i = 0; i <= bounds.size(); ++i) {
      cumulative += q.admission_wait.counts.empty() ? 0 : q.admission_wait.counts[i];
      buckets.push_back(
          {{"le", i < bounds.size() ? json(bounds[i]) : json("+Inf")}, {"count", cumulative}});
    }
    json quotas = json::array();
    for (const QuotaUsage& u : q.quotas) {
      auto limit = [](const std::optional<double>& v) { return v ? json(R(*v, 3)) : json(); };
      quotas.push_back({{"flavor", u.flavor},
                        {"resource", u.resource},
                        {"nominal", R(u.nominal, 3)},
                        {"borrowing_limit", limit(u.borrowing_limit)},
                        {"lending_limit", limit(u.lending_limit)},
                        {"usage", R(u.usage, 3)},
                        {"borrowed", R(u.borrowed, 3)},
                        {"available", R(u.available, 3)},
                        {"max_usable", R(u.max_usable, 3)}});
    }
    cqs.push_back({{"name", q.name},
                   {"cohort", q.cohort},
                   {"queueing_strategy", q.queueing_strategy},
                   {"pending_workloads",
                    {{"active", q.pending_active}, {"inadmissible", q.pending_inadmissible}}},
                   {"reserving_workloads", q.reserving_workloads},
                   {"admitted_workloads_total", q.admitted_workloads_total},
                   {"evicted_workloads_total", q.evicted_workloads_total},
                   {"preempted_workloads_total", q.preempted_workloads_total},
                   {"weighted_share", R(q.weighted_share, 3)},
                   {"admission_wait_time_seconds",
                    {{"count", q.admission_wait.count},
                     {"sum", R(q.admission_wait.sum, 1)},
                     {"buckets", buckets}}},
                   {"quotas", quotas}});
  }
  return {{"cluster_queues", cqs}};
}

namespace {

// Everything of the report's JSON but its time series (WriteJson streams that).
nlohmann::json ReportHead(const Report& r);
nlohmann::json SeriesPoint(const Report& r, const TimePoint& p);

}  // namespace

nlohmann::json ToJson(const Report& r) {
  nlohmann::json j = ReportHead(r);
  nlohmann::json series = nlohmann::json::array();
  for (const TimePoint& p : r.series) series.push_back(SeriesPoint(r, p));
  j["series"] = std::move(series);
  return j;
}

void WriteJson(const Report& r, std::ostream& out) {
  // The head printed with a marker where the series goes, then the series one point at a time,
  // indented as dump(2) indents an array at depth 1: the same bytes, a point's memory at once.
  static constexpr std::string_view kMarker = "\"@@steward-series@@\"";
  nlohmann::json j = ReportHead(r);
  j["series"] = std::string(kMarker.substr(1, kMarker.size() - 2));
  const std::string head = j.dump(2);
  const size_t at = head.find(kMarker);
  out << std::string_view(head).substr(0, at);
  if (r.series.empty()) {
    out << "[]";
  } else {
    out << "[\n";
    for (size_t i = 0; i < r.series.size(); ++i) {
      const std::string point = SeriesPoint(r, r.series[i]).dump(2);
      out << "    ";
      for (char c : point) {
        out << c;
        if (c == '\n') out << "    ";
      }
      out << (i + 1 < r.series.size() ? ",\n" : "\n");
    }
    out << "  ]";
  }
  out << std::string_view(head).substr(at + kMarker.size());
}

namespace {

nlohmann::json ReportHead(const Report& r) {
  using nlohmann::json;
  json j;
  j["scenario"] = r.scenario;
  j["seed"] = r.seed;
  j["days"] = R(r.days);
  j["total_gpus"] = r.total_gpus;
  j["total_nodes"] = r.total_nodes;
  j["policies"] = {{"admission", r.admission_policy}, {"placement", r.placement_policy}};
  j["events"] = r.events;
  j["workloads"] = {{"submitted", r.workloads_submitted},
                    {"completed", r.workloads_completed},
                    {"running", r.workloads_running},
                    {"pending", r.workloads_pending},
                    {"stopped", r.workloads_stopped}};
  j["capacity_gpu_hours"] = R(r.capacity_gpu_hours, 2);
  j["allocated_gpu_hours"] = R(r.allocated_gpu_hours, 2);
  j["busy_gpu_hours"] = R(r.busy_gpu_hours, 2);
  j["sm_active_gpu_hours"] = R(r.sm_active_gpu_hours, 2);
  j["allocation_rate"] = R(r.allocation_rate);
  j["busy_utilization"] = R(r.busy_utilization);
  j["sm_active_utilization"] = R(r.sm_active_utilization);
  j["idle_allocated_gpu_hours"] = R(r.idle_allocated_gpu_hours, 2);
  j["interruptions"] = r.interruptions;
  j["lost_gpu_hours"] = R(r.lost_gpu_hours, 2);
  j["faults"] = FaultsJson(r.faults);
  j["reclaim"] = ReclaimJson(r.reclaim);
  if (r.tidal.enabled) {
    j["tidal"] = TidalJson(r.tidal);
    j["training_jct_seconds"] = {{"count", r.tidal.training_jct_seconds.count},
                                 {"p50", R(r.tidal.training_jct_seconds.p50, 0)},
                                 {"p95", R(r.tidal.training_jct_seconds.p95, 0)}};
    if (r.tidal.training_jct_seconds.relative_error > 0)
      j["training_jct_seconds"]["relative_error"] = r.tidal.training_jct_seconds.relative_error;
  }
  if (!r.rollouts.empty()) {
    json rollouts = json::array();
    for (const RolloutSection& section : r.rollouts) rollouts.push_back(section.status);
    j["rollouts"] = std::move(rollouts);
  }
  const Fragmentation& f = r.fragmentation;
  j["fragmentation"] = {{"free_gpus", f.free_gpus},
                        {"stranded_free_gpus", f.stranded_free_gpus},
                        {"whole_free_nodes", f.whole_free_nodes},
                        {"largest_single_node_job_gpus", f.largest_single_node_job},
                        {"largest_gang_job_gpus", f.largest_gang_job},
                        {"mean_stranded_free_gpus", R(f.mean_stranded_free_gpus, 2)},
                        {"mean_stranded_share_of_free", R(f.mean_stranded_share)}};
  j["pending_by_reason"] = r.pending_by_reason;
  json waits = json::object();
  for (const auto& [tier, p] : r.queue_wait_seconds) waits[tier] = WaitJson(p);
  j["queue_wait_seconds"] = waits;
  json team_waits = json::object();
  for (const auto& [team, p] : r.queue_wait_seconds_by_team) team_waits[team] = WaitJson(p);
  j["queue_wait_seconds_by_team"] = team_waits;
  json size_waits = json::object();
  for (const auto& [size, p] : r.queue_wait_seconds_by_pod_size) size_waits[size] = WaitJson(p);
  j["queue_wait_seconds_by_pod_size"] = size_waits;
  json pools = json::array();
  for (const PoolReport& p : r.pools)
    pools.push_back({{"name", p.name},
                     {"policy", p.policy},
                     {"nodes", p.nodes},
                     {"gpus", p.gpus},
                     {"free_gpus", p.free_gpus},
                     {"stranded_free_gpus", p.end.stranded_free_gpus},
                     {"whole_free_nodes", p.end.whole_free_nodes},
                     {"largest_single_node_job_gpus", p.end.largest_single_node_job},
                     {"largest_gang_job_gpus", p.end.largest_gang_job},
                     {"mean_stranded_free_gpus", R(p.mean_stranded_free_gpus, 2)},
                     {"mean_largest_single_node_job_gpus", R(p.mean_largest_single_node_job, 2)}});
  j["pools"] = pools;
  const DefragStats& d = r.defrag;
  j["defrag"] = {{"enabled", d.enabled},         {"attempts", d.attempts},
                 {"victims", d.victims},         {"nodes_freed", d.nodes_freed},
                 {"jobs_placed", d.jobs_placed}, {"lost_gpu_hours", R(d.lost_gpu_hours, 2)}};
  j["preemptions"] = r.preemptions;
  json lost = json::object();
  for (const auto& [team, h] : r.lost_gpu_hours_by_team) lost[team] = R(h, 2);
  j["lost_gpu_hours_by_team"] = lost;
  auto rounded = [&](const std::map<std::string, double>& m) {
    json o = json::object();
    for (const auto& [k, h] : m) o[k] = R(h, 2);
    return o;
  };
  j["lost_gpu_hours_by_tier"] = rounded(r.lost_gpu_hours_by_tier);
  j["preemption_lost_gpu_hours_by_team"] = rounded(r.preemption_lost_gpu_hours_by_team);
  j["preemption_lost_gpu_hours_by_tier"] = rounded(r.preemption_lost_gpu_hours_by_tier);
  j["pods_ready_timeouts"] = r.pods_ready_timeouts;
  json alerts = json::array();
  for (const auto& a : r.tenant_alerts)
    alerts.push_back({{"team", a.team},
                      {"threshold", R(r.alert_tenant_share)},
                      {"first_at_hours", R(a.first_hours, 2)},
                      {"peak_share", R(a.peak_share)},
                      {"hours_over", R(a.hours_over, 2)}});
  j["tenant_alerts"] = alerts;
  if (r.tenancy) j["tenancy"] = audit::FindingsJson(*r.tenancy);
  j["scheduler"] = ToJson(r.scheduler);
  json by_team = json::object(), usage = json::object();
  for (const auto& [team, u] : r.teams) {
    by_team[team] = R(u.allocated_gpu_hours, 2);
    usage[team] = {
        {"allocated_gpu_hours", R(u.allocated_gpu_hours, 2)},
        {"busy_gpu_hours", R(u.busy_gpu_hours, 2)},
        {"sm_active_gpu_hours", R(u.sm_active_gpu_hours, 2)},
        {"sm_active_efficiency",
         u.allocated_gpu_hours > 0 ? R(u.sm_active_gpu_hours / u.allocated_gpu_hours) : 0.0},
        {"workloads", u.workloads}};
  }
  j["gpu_hours_by_team"] = by_team;
  j["usage_by_team"] = usage;
  json by_kind = json::object();
  for (const auto& [kind, h] : r.allocated_gpu_hours_by_kind)
    by_kind[kind] = {{"allocated_gpu_hours", R(h, 2)},
                     {"sm_active_gpu_hours", R(r.sm_active_gpu_hours_by_kind.at(kind), 2)}};
  j["usage_by_kind"] = by_kind;
  return j;
}

nlohmann::json SeriesPoint(const Report& r, const TimePoint& p) {
  using nlohmann::json;
  json by_pool = json::object();
  for (size_t i = 0; i < p.pools.size() && i < r.pools.size(); ++i)
    by_pool[r.pools[i].name] = {
        {"largest_single_node_job_gpus", p.pools[i].largest_single_node_job},
        {"largest_gang_job_gpus", p.pools[i].largest_gang_job},
        {"stranded_free_gpus", p.pools[i].stranded_free_gpus},
        {"whole_free_nodes", p.pools[i].whole_free_nodes}};
  return {{"hours", R(p.hours, 3)},
          {"allocation", R(p.allocation)},
          {"busy", R(p.busy)},
          {"sm_active", R(p.sm_active)},
          {"running", p.running},
          {"pending", p.pending},
          {"whole_free_nodes", p.whole_free_nodes},
          {"stranded_free_gpus", p.stranded_free_gpus},
          {"largest_free_block", p.largest_free_block},
          {"unavailable_gpus", p.unavailable_gpus},
          {"pools", std::move(by_pool)}};
}

}  // namespace

std::string ToText(const Report& r) {
  std::string out;
  auto line = [&](std::string_view k, const std::string& v) {
    out += fmt::format("  {:<34} {}\n", k, v);
  };
  out += fmt::format("Steward twin report: {} (seed {}, {:.1f} days, {} GPUs on {} nodes)\n",
                     r.scenario, r.seed, r.days, r.total_gpus, r.total_nodes);
  out += fmt::format("  policies: admission={} placement={}\n\n", r.admission_policy,
                     r.placement_policy);
  out += "Utilization (share of capacity GPU-hours)\n";
  line("allocation rate", fmt::format("{:6.1f}%", 100 * r.allocation_rate));
  line("busy (GPU_UTIL-style)", fmt::format("{:6.1f}%", 100 * r.busy_utilization));
  line("real utilization (SM-active)", fmt::format("{:6.1f}%", 100 * r.sm_active_utilization));
  line(
      "allocated but idle GPU-hours",
      fmt::format("{:.0f} of {:.0f} allocated", r.idle_allocated_gpu_hours, r.allocated_gpu_hours));
  out += "\nFragmentation (end of run)\n";
  const Fragmentation& f = r.fragmentation;
  line("free GPUs", std::to_string(f.free_gpus));
  line("stranded on partly used nodes", std::to_string(f.stranded_free_gpus));
  line("fully free nodes", std::to_string(f.whole_free_nodes));
  line("largest placeable job (1 node)", fmt::format("{} GPUs", f.largest_single_node_job));
  line("largest placeable gang", fmt::format("{} GPUs", f.largest_gang_job));
  line("mean stranded share of free GPUs", fmt::format("{:.1f}%", 100 * f.mean_stranded_share));
  out +=
      "\nPlacement pools                   nodes  policy      stranded  whole free  largest job"
      "  largest gang  mean largest job\n";
  for (const PoolReport& p : r.pools)
    out += fmt::format("  {:<30} {:6d}  {:<10} {:9d} {:11d} {:12d} {:13d} {:17.1f}\n", p.name,
                       p.nodes, p.policy, p.end.stranded_free_gpus, p.end.whole_free_nodes,
                       p.end.largest_single_node_job, p.end.largest_gang_job,
                       p.mean_largest_single_node_job);
  if (r.defrag.enabled)
    line("defrag: victims (lost GPU-hours)",
         fmt::format("{} ({:.0f}) in {} attempts, {} nodes freed, {} jobs placed", r.defrag.victims,
                     r.defrag.lost_gpu_hours, r.defrag.attempts, r.defrag.nodes_freed,
                     r.defrag.jobs_placed));
  out += "\nWorkloads\n";
  line("submitted / completed",
       fmt::format("{} / {}", r.workloads_submitted, r.workloads_completed));
  line("running / pending at end",
       fmt::format("{} / {}", r.workloads_running, r.workloads_pending));
  line("interruptions (lost GPU-hours)",
       fmt::format("{} ({:.0f})", r.interruptions, r.lost_gpu_hours));
  const FaultReport& fr = r.faults;
  if (fr.enabled || fr.xid_events > 0) {
    out += "\nReliability (faults and remediation)\n";
    std::string xids;
    for (const auto& [code, n] : fr.by_xid)
      xids += fmt::format("{}{}x{}", xids.empty() ? "" : " ", n, code);
    line("GPU XIDs (count x code)",
         fmt::format("{} ({})", fr.xid_events, xids.empty() ? "none" : xids));
    line("rack events / driver rollouts",
         fmt::format("{} / {}", fr.rack_events, fr.driver_rollouts));
    line("other interruptions (host, net, sw)", std::to_string(fr.other_interruptions));
    line("GPUs failed (faulty at end)",
         fmt::format("{} ({})", fr.gpus_failed, fr.gpus_faulty_at_end));
    line("capacity lost", fmt::format("{:.0f} GPU-hours", fr.capacity_lost_gpu_hours));
    line("repairs, MTTR", fmt::format("{}, {:.1f} h (nodes out at end: {})", fr.repairs,
                                      fr.mttr_hours, fr.nodes_out_at_end));
    line("workloads interrupted (stops)",
         fmt::format("{} ({})", fr.workloads_interrupted, fr.interruptions));
    std::string lost;
    for (const auto& [cause, h] : fr.lost_gpu_hours_by_cause)
      lost += fmt::format("{}{} {:.0f}", lost.empty() ? "" : ", ", cause, h);
    line("work lost (GPU-hours)", lost);
    line("training goodput", fmt::format("{:.1f}%", 100 * fr.training_goodput));
    if (fr.incidents_open >= 0)
      line("incidents (open), tickets",
           fmt::format("{} ({}), {}; quarantined nodes {}", fr.incidents, fr.incidents_open,
                       fr.tickets, fr.nodes_quarantined));
    else
      line("remediation", "off (no controller attached)");
  }
  if (r.reclaim.enabled) {
    out += "\nIdle reclaim\n";
    for (const auto& [k, v] : ReclaimLines(r.reclaim)) line(k, v);
  }
  if (r.tidal.enabled) {
    out += "\nServing and tidal lending\n";
    for (const auto& [k, v] : TidalLines(r.tidal)) line(k, v);
  }
  out += RolloutsText(r.rollouts);
  out += "\nPending by reason\n";
  for (const auto& [reason, n] : r.pending_by_reason) line(reason, std::to_string(n));
  out += "\nQueue wait by tier (seconds)      count      p50      p95      p99\n";
  for (const auto& [tier, p] : r.queue_wait_seconds)
    out +=
        fmt::format("  {:<30} {:7d} {:8.0f} {:8.0f} {:8.0f}\n", tier, p.count, p.p50, p.p95, p.p99);
  out += "\nQueue wait by GPUs per pod        count      p50      p95      p99\n";
  for (const auto& [size, p] : r.queue_wait_seconds_by_pod_size)
    out +=
        fmt::format("  {:<30} {:7d} {:8.0f} {:8.0f} {:8.0f}\n", size, p.count, p.p50, p.p95, p.p99);
  out += "\nGPU-hours by team                allocated   SM-active  efficiency\n";
  for (const auto& [team, u] : r.teams)
    out += fmt::format(
        "  {:<30} {:10.0f} {:10.0f} {:10.1f}%\n", team, u.allocated_gpu_hours,
        u.sm_active_gpu_hours,
        u.allocated_gpu_hours > 0 ? 100 * u.sm_active_gpu_hours / u.allocated_gpu_hours : 0);
  if (!r.tenant_alerts.empty()) {
    out += fmt::format("\nAlerts: tenant over {:.0f}% of the cluster's GPUs\n",
                       100 * r.alert_tenant_share);
    for (const auto& a : r.tenant_alerts)
      out += fmt::format("  {:<30} from hour {:.1f}, peak {:.1f}%, {:.1f} h over\n", a.team,
                         a.first_hours, 100 * a.peak_share, a.hours_over);
  }
  if (!r.preemptions.empty()) {
    out += "\nPreemptions by victim tier\n";
    for (const auto& [tier, n] : r.preemptions)
      line(tier, fmt::format("{} ({:.1f} GPU-hours lost)", n,
                             r.preemption_lost_gpu_hours_by_tier.count(tier)
                                 ? r.preemption_lost_gpu_hours_by_tier.at(tier)
                                 : 0.0));
  }
  out += "\nQueue wait by team (seconds)      count      p50      p95      p99\n";
  for (const auto& [team, p] : r.queue_wait_seconds_by_team)
    out +=
        fmt::format("  {:<30} {:7d} {:8.0f} {:8.0f} {:8.0f}\n", team, p.count, p.p50, p.p95, p.p99);
  if (r.tenancy) out += TenancyText(*r.tenancy);
  out += fmt::format("\n{} events\n", r.events);
  return out;
}

namespace {

struct Line {
  std::string name, color;
  std::vector<double> y;
};

// A line chart as inline SVG: x is hours, y from 0 to y_max (percent when `percent`).
std::string Chart(std::string_view title, const std::vector<double>& x,
                  const std::vector<Line>& lines, double y_max, bool percent) {
  const double w = 900, h = 260, l = 60, rpad = 20, t = 30, b = 40;
  const double x_max = x.empty() ? 1 : std::max(1e-9, x.back());
  if (y_max <= 0) y_max = 1;
  auto px = [&](double v) { return l + (w - l - rpad) * v / x_max; };
  auto py = [&](double v) { return h - b - (h - t - b) * v / y_max; };
  std::string s = fmt::format(
      "<figure><svg viewBox='0 0 {} {}' width='100%' role='img' aria-label='{}'>"
      "<text x='{}' y='18' class='title'>{}</text>",
      w, h, model::HtmlEscape(title), l, model::HtmlEscape(title));
  for (int i = 0; i <= 4; ++i) {
    const double v = y_max * i / 4;
    s += fmt::format(
        "<line x1='{}' x2='{}' y1='{:.1f}' y2='{:.1f}' class='grid'/>"
        "<text x='{}' y='{:.1f}' class='axis' text-anchor='end'>{}</text>",
        l, w - rpad, py(v), py(v), l - 6, py(v) + 4,
        percent ? fmt::format("{:.0f}%", 100 * v) : fmt::format("{:.0f}", v));
  }
  const int ticks = 6;
  for (int i = 0; i <= ticks; ++i) {
    const double v = x_max * i / ticks;
    s += fmt::format("<text x='{:.1f}' y='{}' class='axis' text-anchor='middle'>{}</text>", px(v),
                     h - b + 18,
                     v >= 48 ? fmt::format("day {:.1f}", v / 24) : fmt::format("{:.0f} h", v));
  }
  double legend_x = l + 10;
  for (const auto& line : lines) {
    std::string pts;
    for (size_t i = 0; i < x.size() && i < line.y.size(); ++i)
      pts += fmt::format("{:.1f},{:.1f} ", px(x[i]), py(std::min(line.y[i], y_max)));
    s += fmt::format("<polyline points='{}' fill='none' stroke='{}' stroke-width='1.6'/>", pts,
                     line.color);
    s += fmt::format(
        "<rect x='{:.0f}' y='{}' width='12' height='4' fill='{}'/><text x='{:.0f}' y='{}' "
        "class='legend'>{}</text>",
        legend_x, t + 2, line.color, legend_x + 16, t + 7, model::HtmlEscape(line.name));
    legend_x += 30 + 7.5 * line.name.size();
  }
  s += "</svg></figure>\n";
  return s;
}

}  // namespace

std::string ToHtml(const Report& r) {
  std::vector<double> x;
  Line alloc{"allocation", "#1f77b4", {}}, busy{"busy (GPU_UTIL)", "#ff7f0e", {}},
      sm{"SM-active (real)", "#2ca02c", {}};
  Line running{"running", "#1f77b4", {}}, pending{"pending", "#d62728", {}};
  Line stranded{"stranded free GPUs", "#9467bd", {}}, whole{"fully free nodes x8", "#8c564b", {}};
  double max_count = 1, max_frag = 1;
  for (const auto& p : r.series) {
    x.push_back(p.hours);
    alloc.y.push_back(p.allocation);
    busy.y.push_back(p.busy);
    sm.y.push_back(p.sm_active);
    running.y.push_back(p.running);
    pending.y.push_back(p.pending);
    stranded.y.push_back(p.stranded_free_gpus);
    whole.y.push_back(8.0 * p.whole_free_nodes);
    max_count = std::max({max_count, double(p.running), double(p.pending)});
    max_frag = std::max({max_frag, double(p.stranded_free_gpus), 8.0 * p.whole_free_nodes});
  }
  std::string h;
  h += "<!doctype html><html><head><meta charset='utf-8'><title>Steward twin report: " +
       model::HtmlEscape(r.scenario) +
       "</title><style>"
       "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:980px}"
       "table{border-collapse:collapse;margin:8px 0 16px}td,th{padding:3px 10px;border-bottom:1px "
       "solid #ddd;"
       "text-align:right}td:first-child,th:first-child{text-align:left}"
       ".kpi{display:inline-block;margin:0 18px 12px 0;padding:10px 14px;border:1px solid "
       "#ccc;border-radius:6px}"
       ".kpi b{display:block;font-size:22px}.grid{stroke:#eee}.axis{font-size:11px;fill:#666}"
       ".title{font-size:13px;font-weight:600}.legend{font-size:11px}figure{margin:0 0 16px}"
       "</style></head><body>\n";
  h += fmt::format(
      "<h1>Twin report: {}</h1><p>seed {} &middot; {:.1f} days &middot; {} GPUs on {} nodes "
      "&middot; admission <code>{}</code> &middot; placement <code>{}</code></p>\n",
      model::HtmlEscape(r.scenario), r.seed, r.days, r.total_gpus, r.total_nodes,
      model::HtmlEscape(r.admission_policy), model::HtmlEscape(r.placement_policy));
  auto kpi = [&](std::string_view name, const std::string& v) {
    h += fmt::format("<div class='kpi'>{}<b>{}</b></div>", model::HtmlEscape(name), v);
  };
  kpi("allocation", fmt::format("{:.1f}%", 100 * r.allocation_rate));
  kpi("busy (GPU_UTIL)", fmt::format("{:.1f}%", 100 * r.busy_utilization));
  kpi("real utilization (SM-active)", fmt::format("{:.1f}%", 100 * r.sm_active_utilization));
  kpi("allocated but idle", fmt::format("{:.0f} GPU-h", r.idle_allocated_gpu_hours));
  kpi("pending at end", std::to_string(r.workloads_pending));
  if (r.faults.enabled)
    kpi("training goodput", fmt::format("{:.1f}%", 100 * r.faults.training_goodput));
  h += "\n";
  h += Chart("Allocation vs real utilization (share of all GPUs)", x, {alloc, busy, sm}, 1.0, true);
  h += Chart("Workloads running and pending", x, {running, pending}, max_count * 1.05, false);
  h += Chart("Fragmentation: stranded free GPUs vs GPUs on fully free nodes", x, {stranded, whole},
             max_frag * 1.05, false);
  {
    static constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                              "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f"};
    std::vector<Line> largest;
    double max_block = 1;
    for (size_t i = 0; i < r.pools.size(); ++i) {
      Line l{r.pools[i].name, kColors[i % 8], {}};
      for (const auto& p : r.series) {
        const double v = i < p.pools.size() ? p.pools[i].largest_single_node_job : 0;
        l.y.push_back(v);
        max_block = std::max(max_block, v);
      }
      largest.push_back(std::move(l));
    }
    h += Chart("Largest placeable one-node job by placement pool (GPUs)", x, largest,
               max_block * 1.1, false);
  }
  h += "<h2>Pending by reason (end of run)</h2><table><tr><th>reason</th><th>workloads</th></tr>";
  for (const auto& [reason, n] : r.pending_by_reason)
    h += fmt::format("<tr><td>{}</td><td>{}</td></tr>", model::HtmlEscape(reason), n);
  h += "</table><h2>Queue wait by tier "
       "(seconds)</h2><table><tr><th>tier</th><th>count</th><th>p50</th>"
       "<th>p95</th><th>p99</th></tr>";
  for (const auto& [tier, p] : r.queue_wait_seconds)
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.0f}</td><td>{:.0f}</td><td>{:.0f}</td></tr>",
                     model::HtmlEscape(tier), p.count, p.p50, p.p95, p.p99);
  h += "</table><h2>GPU-hours by "
       "team</h2><table><tr><th>team</th><th>allocated</th><th>SM-active</th>"
       "<th>efficiency</th><th>workloads</th></tr>";
  for (const auto& [team, u] : r.teams)
    h += fmt::format(
        "<tr><td>{}</td><td>{:.0f}</td><td>{:.0f}</td><td>{:.1f}%</td><td>{}</td></tr>",
        model::HtmlEscape(team), u.allocated_gpu_hours, u.sm_active_gpu_hours,
        u.allocated_gpu_hours > 0 ? 100 * u.sm_active_gpu_hours / u.allocated_gpu_hours : 0,
        u.workloads);
  const Fragmentation& f = r.fragmentation;
  h += fmt::format(
      "</table><h2>Fragmentation (end of run)</h2><table>"
      "<tr><td>free GPUs</td><td>{}</td></tr><tr><td>stranded on partly used "
      "nodes</td><td>{}</td></tr>"
      "<tr><td>fully free nodes</td><td>{}</td></tr><tr><td>largest placeable 1-node "
      "job</td><td>{} GPUs</td></tr>"
      "<tr><td>largest placeable gang</td><td>{} GPUs</td></tr></table>\n",
      f.free_gpus, f.stranded_free_gpus, f.whole_free_nodes, f.largest_single_node_job,
      f.largest_gang_job);
  const FaultReport& fr = r.faults;
  if (fr.enabled || fr.xid_events > 0) {
    h += "<h2>Reliability (faults and remediation)</h2><table>";
    auto row = [&](std::string_view k, const std::string& v) {
      h += fmt::format("<tr><td>{}</td><td>{}</td></tr>", model::HtmlEscape(k),
                       model::HtmlEscape(v));
    };
    std::string xids;
    for (const auto& [code, n] : fr.by_xid)
      xids += fmt::format("{}XID {}: {}", xids.empty() ? "" : ", ", code, n);
    row("GPU XIDs", fmt::format("{} ({})", fr.xid_events, xids.empty() ? "none" : xids));
    row("rack events / driver rollouts",
        fmt::format("{} / {}", fr.rack_events, fr.driver_rollouts));
    row("other interruptions (host, network, software)", std::to_string(fr.other_interruptions));
    row("GPUs failed (faulty at end)",
        fmt::format("{} ({})", fr.gpus_failed, fr.gpus_faulty_at_end));
    row("capacity lost", fmt::format("{:.0f} GPU-hours", fr.capacity_lost_gpu_hours));
    row("repairs / MTTR", fmt::format("{} / {:.1f} h", fr.repairs, fr.mttr_hours));
    row("workloads interrupted (stops)",
        fmt::format("{} ({})", fr.workloads_interrupted, fr.interruptions));
    for (const auto& [cause, lost] : fr.lost_gpu_hours_by_cause)
      row("work lost: " + cause, fmt::format("{:.0f} GPU-hours", lost));
    row("training goodput", fmt::format("{:.1f}%", 100 * fr.training_goodput));
    if (fr.incidents_open >= 0)
      row("incidents (open) / tickets",
          fmt::format("{} ({}) / {}", fr.incidents, fr.incidents_open, fr.tickets));
    h += "</table>\n";
  }
  h += "<h2>Placement pools (end of run)</h2><table><tr><th>pool</th><th>policy</th>"
       "<th>nodes</th><th>stranded free GPUs</th><th>whole free nodes</th><th>largest 1-node "
       "job</th><th>largest gang</th><th>mean largest 1-node job</th></tr>";
  for (const PoolReport& p : r.pools)
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{:.1f}</td></tr>",
        model::HtmlEscape(p.name), model::HtmlEscape(p.policy), p.nodes, p.end.stranded_free_gpus,
        p.end.whole_free_nodes, p.end.largest_single_node_job, p.end.largest_gang_job,
        p.mean_largest_single_node_job);
  h += "</table>\n";
  if (r.defrag.enabled)
    h += fmt::format(
        "<p>Defragmenting preemption: {} victims ({:.0f} GPU-hours lost) in {} attempts, {} "
        "whole nodes freed, {} blocked jobs placed at once.</p>\n",
        r.defrag.victims, r.defrag.lost_gpu_hours, r.defrag.attempts, r.defrag.nodes_freed,
        r.defrag.jobs_placed);
  h += "<h2>Queue wait by GPUs per pod (seconds)</h2><table><tr><th>GPUs per pod</th>"
       "<th>count</th><th>p50</th><th>p95</th><th>p99</th></tr>";
  for (const auto& [size, p] : r.queue_wait_seconds_by_pod_size)
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.0f}</td><td>{:.0f}</td><td>{:.0f}</td></tr>",
                     model::HtmlEscape(size), p.count, p.p50, p.p95, p.p99);
  h += "</table>\n";
  if (r.reclaim.enabled) {
    h += "<h2>Idle reclaim</h2><table>";
    for (const auto& [k, v] : ReclaimLines(r.reclaim))
      h += fmt::format("<tr><td>{}</td><td>{}</td></tr>", model::HtmlEscape(k),
                       model::HtmlEscape(v));
    h += "</table>\n";
  }
  if (r.tidal.enabled) {
    h += "<h2>Serving and tidal lending</h2><table>";
    for (const auto& [k, v] : TidalLines(r.tidal))
      h += fmt::format("<tr><td>{}</td><td>{}</td></tr>", model::HtmlEscape(k),
                       model::HtmlEscape(v));
    h += "</table>\n";
  }
  h += RolloutsHtml(r.rollouts);
  if (r.tenancy) h += TenancyHtml(*r.tenancy) + "\n";
  h += fmt::format(
      "<p>{} events &middot; {} workloads submitted, {} completed, {} interruptions ({:.0f} "
      "GPU-hours lost)</p>",
      r.events, r.workloads_submitted, r.workloads_completed, r.interruptions, r.lost_gpu_hours);
  h += "</body></html>\n";
  return h;
}

}  // namespace steward::twin

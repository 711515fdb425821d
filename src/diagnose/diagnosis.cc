#include "diagnose/diagnosis.h"

#include <fmt/format.h>

#include <cmath>

#include "cost/window.h"

namespace steward::diagnose {
namespace {

double R(double x, int digits = 2) {
  const double f = std::pow(10.0, digits);
  const double r = std::round(x * f) / f;
  return r == 0 ? 0 : r;  // No "-0".
}

std::string Time(int64_t ms) { return cost::FormatRfc3339(ms / 1000); }

}  // namespace

std::string ActionFor(const std::string& cause, const Thresholds& t) {
  if (cause == "zombie")
    return fmt::format(
        "Reclaim idle GPUs: notify the owner after {:.0f} min and release after {:.0f} min with "
        "SM-active < {:.0f}% and memory held (notebooks first; exempt serving and checkpointing "
        "pods).",
        t.zombie_minutes / 2, t.zombie_minutes, 100 * t.idle_sm_active);
  if (cause == "over_request")
    return "Right-size requests to the GPUs a workload drives (see top wasters); share GPUs "
           "(MIG / time-slicing) for jobs that drive less than one GPU.";
  if (cause == "dataloader_stall")
    return "Fix the input pipeline: more loader workers, prefetch, local NVMe cache; GPU_UTIL "
           "dropping to 0 periodically is the signature.";
  if (cause == "low_efficiency")
    return fmt::format(
        "Raise per-GPU efficiency (SM-active under {:.0f}% while computing): larger batches, "
        "fused kernels, fewer GPUs per small model; check all-reduce for distributed jobs.",
        100 * t.low_sm_active);
  if (cause == "fragmentation")
    return "Binpack small jobs, keep a whole-node pool for 8-GPU/multi-node training and a "
           "small-job pool for 1-2 GPU work; allow bounded defragmenting preemption.";
  if (cause == "queueing")
    return "Let idle quota be borrowed: put team queues in a cohort with borrowingLimit and "
           "reclaimWithinCohort so capacity does not sit idle while work waits.";
  if (cause == "startup")
    return "Cut startup: pre-pull images on GPU nodes, smaller images, lazy-loading snapshotter.";
  return "";
}

nlohmann::json ToJson(const Diagnosis& d) {
  using nlohmann::json;
  json j;
  j["source"] = {{"kind", d.source.kind},
                 {"where", d.source.where},
                 {"start", Time(d.source.start_ms)},
                 {"end", Time(d.source.end_ms)},
                 {"step_seconds", d.source.step_seconds},
                 {"frames", d.source.frames},
                 {"gpus", d.source.gpus}};
  j["allocation_rate"] = R(d.allocation_rate, 4);
  j["busy_utilization"] = R(d.busy_utilization, 4);
  j["sm_active_utilization"] = R(d.sm_active_utilization, 4);
  j["capacity_gpu_hours"] = R(d.capacity_gpu_hours);
  j["allocated_gpu_hours"] = R(d.allocated_gpu_hours);
  j["busy_gpu_hours"] = R(d.busy_gpu_hours);
  j["sm_active_gpu_hours"] = R(d.sm_active_gpu_hours);
  json w = json::object(), usd = json::object();
  for (const auto& [c, h] : d.waste_gpu_hours_by_cause) w[c] = R(h);
  for (const auto& [c, v] : d.waste_usd_by_cause) usd[c] = R(v);
  j["waste_gpu_hours_by_cause"] = w;
  j["waste_usd_by_cause"] = usd;
  j["currency"] = d.currency;
  j["unattributed_gpu_hours"] = R(d.unattributed_gpu_hours);
  j["unmapped_busy_gpu_hours"] = R(d.unmapped_busy_gpu_hours);
  auto wasters = [](const std::vector<Diagnosis::Waster>& v, bool with_team) {
    json a = json::array();
    for (const auto& x : v) {
      json row = {{"name", x.name},
                  {"allocated_gpu_hours", R(x.allocated)},
                  {"sm_active_gpu_hours", R(x.sm_active)},
                  {"waste_gpu_hours", R(x.waste)},
                  {"waste_usd", R(x.usd)},
                  {"top_cause", x.top_cause}};
      if (with_team) {
        row["team"] = x.team;
        row["owner_kind"] = x.owner_kind;
        row["replicas"] = x.replicas;
      }
      json causes = json::object();
      for (const auto& [c, h] : x.by_cause) causes[c] = R(h);
      row["waste_gpu_hours_by_cause"] = causes;
      a.push_back(std::move(row));
    }
    return a;
  };
  j["top_teams"] = wasters(d.top_teams, false);
  j["top_workloads"] = wasters(d.top_workloads, true);
  json gpus = json::array();
  for (const auto& g : d.top_gpus)
    gpus.push_back({{"hostname", g.hostname},
                    {"uuid", g.uuid},
                    {"model_name", g.model_name},
                    {"waste_gpu_hours", R(g.waste)},
                    {"waste_usd", R(g.usd)},
                    {"top_cause", g.top_cause}});
  j["top_gpus"] = gpus;
  json queueing = json::array();
  for (const auto& q : d.queueing_by_team) {
    json row = {{"team", q.team},
                {"gpu_hours", R(q.gpu_hours)},
                {"usd", R(q.usd)},
                {"waiting_gpu_hours", R(q.waiting_gpu_hours)},
                {"peak_waiting_gpus", q.peak_waiting_gpus}};
    if (!q.cluster_queue.empty()) row["cluster_queue"] = q.cluster_queue;
    if (q.quota_gpus >= 0) row["quota_gpus"] = q.quota_gpus;
    queueing.push_back(std::move(row));
  }
  j["queueing_by_team"] = queueing;
  json recs = json::array();
  for (const auto& r : d.recommendations)
    recs.push_back({{"cause", r.cause},
                    {"action", r.action},
                    {"gpu_hours", R(r.gpu_hours)},
                    {"usd", R(r.usd)}});
  j["recommendations"] = recs;
  const Thresholds& t = d.thresholds;
  j["thresholds"] = {{"idle_sm_active", t.idle_sm_active},
                     {"fb_held_mib", t.fb_held_mib},
                     {"zombie_minutes", t.zombie_minutes},
                     {"stall_gpu_util_percent", t.stall_gpu_util_percent},
                     {"stall_min_drops", t.stall_min_drops},
                     {"low_sm_active", t.low_sm_active},
                     {"low_tensor_active", t.low_tensor_active},
                     {"recommend_share", t.recommend_share},
                     {"top_n", t.top_n},
                     {"right_size_quantile", t.right_size_quantile},
                     {"share_sm_active", t.share_sm_active}};
  j["right_sizing"] = RightSizingJson(d.right_sizing);
  j["warnings"] = d.warnings;
  j["not_computed"] = nlohmann::json::array();
  for (const auto& n : d.not_computed)
    j["not_computed"].push_back({{"part", n.part}, {"series", n.series}, {"instead", n.instead}});
  return j;
}

std::string ToText(const Diagnosis& d) {
  std::string o =
      fmt::format("Source: {} {} from {} to {}, {} frames every {:.0f} s, {} GPUs\n", d.source.kind,
                  d.source.where, Time(d.source.start_ms), Time(d.source.end_ms), d.source.frames,
                  d.source.step_seconds, d.source.gpus);
  o += "1. Allocation vs real utilization\n";
  o +=
      fmt::format("   allocated {:.1f}% of capacity, busy {:.1f}%, SM-active {:.1f}%\n",
                  100 * d.allocation_rate, 100 * d.busy_utilization, 100 * d.sm_active_utilization);
  if (d.allocation_rate > 0 && d.sm_active_utilization < 0.5 * d.allocation_rate)
    o += "   -> GPUs are held but not computing: this is waste, not a shortage of GPUs.\n";
  o += fmt::format("2. Waste by cause                GPU-hours {:>12}\n", d.currency);
  for (const auto& [c, h] : d.waste_gpu_hours_by_cause)
    o += fmt::format("   {:<26} {:12.0f} {:12.0f}\n", c, h, d.waste_usd_by_cause.at(c));
  o += "3. Top wasters by team           allocated    SM-active        waste  top cause\n";
  for (const auto& w : d.top_teams)
    o += fmt::format("   {:<26} {:10.0f} {:12.0f} {:12.0f}  {}\n", w.name, w.allocated, w.sm_active,
                     w.waste, w.top_cause);
  o += "   Top wasters by workload\n";
  for (const auto& w : d.top_workloads)
    o += fmt::format("   {:<40} {:<26} waste {:8.0f} GPU-h ({})\n", w.name,
                     fmt::format("{}, {} pod{}", w.owner_kind.empty() ? "?" : w.owner_kind,
                                 w.replicas, w.replicas == 1 ? "" : "s"),
                     w.waste, w.top_cause);
  o += "   Top wasting GPUs\n";
  for (const auto& g : d.top_gpus)
    o += fmt::format("   {:<20} {:<40} waste {:6.1f} GPU-h ({})\n", g.hostname, g.uuid, g.waste,
                     g.top_cause);
  if (!d.queueing_by_team.empty()) {
    o += "   Queueing by team (free GPUs while its pods waited on its quota)\n";
    for (const auto& q : d.queueing_by_team) {
      std::string quota = q.quota_gpus >= 0 ? fmt::format("queue {}, quota {} GPUs; ",
                                                          q.cluster_queue, q.quota_gpus)
                                            : std::string();
      o += fmt::format(
          "   {:<26} {:8.0f} GPU-h idle ({}up to {} GPUs waiting, {:.0f} GPU-h waited)\n", q.team,
          q.gpu_hours, quota, q.peak_waiting_gpus, q.waiting_gpu_hours);
    }
  }
  o += "4. Recommendations (largest first)\n";
  for (const auto& r : d.recommendations)
    o += fmt::format("   [{}] {:.0f} GPU-h, {:.0f} {}: {}\n", r.cause, r.gpu_hours, r.usd,
                     d.currency, r.action);
  o += RightSizingText(d.right_sizing, d.thresholds.right_size_quantile);
  if (!d.not_computed.empty()) {
    o += "Not computed (these series matched nothing in the window):\n";
    for (const auto& n : d.not_computed)
      o += fmt::format("   {}: {} matched nothing; {}\n", n.part, n.series, n.instead);
  }
  for (const auto& w : d.warnings) o += "warning: " + w + "\n";
  return o;
}

}  // namespace steward::diagnose

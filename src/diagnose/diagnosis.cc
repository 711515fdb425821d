#include "diagnose/diagnosis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace steward::diagnose {
namespace {

double R(double x, int digits = 2) {
  const double f = std::pow(10.0, digits);
  return std::round(x * f) / f;
}

// The guide's remedies (四、怎么系统性提升), one per cause.
const char* ActionFor(const std::string& cause) {
  if (cause == "zombie")
    return "Reclaim idle GPUs: notify after 30 min and release after 60 min with SM-active < 5% "
           "and "
           "unchanged FB_USED (notebooks first; exempt serving and checkpointing pods).";
  if (cause == "over_request")
    return "Right-size requests to observed use (see top wasters); share GPUs (MIG / time-slicing) "
           "for jobs that drive less than one GPU.";
  if (cause == "dataloader_stall")
    return "Fix the input pipeline: more loader workers, prefetch, local NVMe cache; GPU_UTIL "
           "dropping to 0 periodically is the signature.";
  if (cause == "low_efficiency")
    return "Raise per-GPU efficiency: larger batches, fused kernels, fewer GPUs per small model; "
           "check communication (all-reduce) for distributed jobs.";
  if (cause == "fragmentation")
    return "Binpack small jobs, keep a whole-node pool for 8-GPU/multi-node training and a "
           "small-job "
           "pool for 1-2 GPU work; allow bounded defragmenting preemption.";
  if (cause == "queueing")
    return "Let idle quota be borrowed: put team queues in a cohort with borrowingLimit and "
           "reclaimWithinCohort so capacity does not sit idle while work waits.";
  if (cause == "startup")
    return "Cut startup: pre-pull images on GPU nodes, smaller images, lazy-loading snapshotter.";
  return "";
}

}  // namespace

Diagnosis Diagnose(const std::vector<UsageInput>& usage, const ClusterInput& cluster,
                   const Thresholds& t) {
  Diagnosis d;
  double busy = 0;
  std::map<std::string, Diagnosis::Waster> teams;
  std::map<std::string, std::map<std::string, double>> team_causes;
  std::vector<Diagnosis::Waster> workloads;
  for (const UsageInput& u : usage) {
    d.allocated_gpu_hours += u.allocated;
    d.sm_active_gpu_hours += u.sm_active;
    busy += u.busy;
    std::map<std::string, double> causes = {{"zombie", u.zombie},
                                            {"over_request", u.over_request},
                                            {"dataloader_stall", u.data_stall},
                                            {"startup", u.startup}};
    // Driven, computing GPU-hours = allocated minus every named cause; what of those is not
    // SM-active is low efficiency when the workload's SM share of them is under the threshold.
    const double driven = u.allocated - u.zombie - u.over_request - u.data_stall - u.startup;
    if (driven > 0 && u.sm_active < t.low_sm_efficiency * driven)
      causes["low_efficiency"] = driven - u.sm_active;
    Diagnosis::Waster w{u.workload, u.allocated, u.sm_active, 0, ""};
    double top = 0;
    for (const auto& [cause, h] : causes) {
      if (h <= 0) continue;
      d.waste_gpu_hours_by_cause[cause] += h;
      team_causes[u.team][cause] += h;
      w.waste += h;
      if (h > top) {
        top = h;
        w.top_cause = cause;
      }
    }
    Diagnosis::Waster& tw = teams[u.team];
    tw.name = u.team;
    tw.allocated += u.allocated;
    tw.sm_active += u.sm_active;
    tw.waste += w.waste;
    workloads.push_back(std::move(w));
  }
  if (cluster.stranded_gpu_hours > 0)
    d.waste_gpu_hours_by_cause["fragmentation"] = cluster.stranded_gpu_hours;
  if (cluster.queueing_gpu_hours > 0)
    d.waste_gpu_hours_by_cause["queueing"] = cluster.queueing_gpu_hours;
  for (const auto& [cause, h] : d.waste_gpu_hours_by_cause)
    d.waste_usd_by_cause[cause] = h * cluster.usd_per_gpu_hour;
  if (cluster.capacity_gpu_hours > 0) {
    d.allocation_rate = d.allocated_gpu_hours / cluster.capacity_gpu_hours;
    d.busy_utilization = busy / cluster.capacity_gpu_hours;
    d.sm_active_utilization = d.sm_active_gpu_hours / cluster.capacity_gpu_hours;
  }
  for (auto& [name, w] : teams) {
    double top = 0;
    for (const auto& [cause, h] : team_causes[name])
      if (h > top) {
        top = h;
        w.top_cause = cause;
      }
    d.top_teams.push_back(w);
  }
  auto by_waste = [](const Diagnosis::Waster& a, const Diagnosis::Waster& b) {
    return a.waste != b.waste ? a.waste > b.waste : a.name < b.name;
  };
  std::sort(d.top_teams.begin(), d.top_teams.end(), by_waste);
  std::sort(workloads.begin(), workloads.end(), by_waste);
  if (static_cast<int>(d.top_teams.size()) > t.top_n) d.top_teams.resize(t.top_n);
  if (static_cast<int>(workloads.size()) > t.top_n) workloads.resize(t.top_n);
  d.top_workloads = std::move(workloads);
  for (const auto& [cause, h] : d.waste_gpu_hours_by_cause)
    if (d.allocated_gpu_hours > 0 && h >= t.recommend_share * d.allocated_gpu_hours)
      d.recommendations.push_back({cause, ActionFor(cause), h, h * cluster.usd_per_gpu_hour});
  std::sort(d.recommendations.begin(), d.recommendations.end(),
            [](const auto& a, const auto& b) { return a.gpu_hours > b.gpu_hours; });
  return d;
}

nlohmann::json ToJson(const Diagnosis& d) {
  using nlohmann::json;
  json j;
  j["allocation_rate"] = R(d.allocation_rate, 4);
  j["busy_utilization"] = R(d.busy_utilization, 4);
  j["sm_active_utilization"] = R(d.sm_active_utilization, 4);
  j["allocated_gpu_hours"] = R(d.allocated_gpu_hours);
  j["sm_active_gpu_hours"] = R(d.sm_active_gpu_hours);
  json w = json::object(), usd = json::object();
  for (const auto& [c, h] : d.waste_gpu_hours_by_cause) w[c] = R(h);
  for (const auto& [c, v] : d.waste_usd_by_cause) usd[c] = R(v);
  j["waste_gpu_hours_by_cause"] = w;
  j["waste_usd_by_cause"] = usd;
  auto wasters = [](const std::vector<Diagnosis::Waster>& v) {
    json a = json::array();
    for (const auto& x : v)
      a.push_back({{"name", x.name},
                   {"allocated_gpu_hours", R(x.allocated)},
                   {"sm_active_gpu_hours", R(x.sm_active)},
                   {"waste_gpu_hours", R(x.waste)},
                   {"top_cause", x.top_cause}});
    return a;
  };
  j["top_teams"] = wasters(d.top_teams);
  j["top_workloads"] = wasters(d.top_workloads);
  json recs = json::array();
  for (const auto& r : d.recommendations)
    recs.push_back({{"cause", r.cause},
                    {"action", r.action},
                    {"gpu_hours", R(r.gpu_hours)},
                    {"usd", R(r.usd)}});
  j["recommendations"] = recs;
  return j;
}

std::string ToText(const Diagnosis& d) {
  std::string o = "1. Allocation vs real utilization\n";
  o +=
      fmt::format("   allocated {:.1f}% of capacity, busy {:.1f}%, SM-active {:.1f}%\n",
                  100 * d.allocation_rate, 100 * d.busy_utilization, 100 * d.sm_active_utilization);
  if (d.allocation_rate > 0 && d.sm_active_utilization < 0.5 * d.allocation_rate)
    o += "   -> GPUs are held but not computing: this is waste, not a shortage of GPUs.\n";
  o += "2. Waste by cause                GPU-hours          USD\n";
  for (const auto& [c, h] : d.waste_gpu_hours_by_cause)
    o += fmt::format("   {:<26} {:12.0f} {:12.0f}\n", c, h, d.waste_usd_by_cause.at(c));
  o += "3. Top wasters by team           allocated    SM-active        waste  top cause\n";
  for (const auto& w : d.top_teams)
    o += fmt::format("   {:<26} {:10.0f} {:12.0f} {:12.0f}  {}\n", w.name, w.allocated, w.sm_active,
                     w.waste, w.top_cause);
  o += "   Top wasters by workload\n";
  for (const auto& w : d.top_workloads)
    o += fmt::format("   {:<40} waste {:8.0f} GPU-h ({})\n", w.name, w.waste, w.top_cause);
  o += "4. Recommendations (largest first)\n";
  for (const auto& r : d.recommendations)
    o += fmt::format("   [{}] {:.0f} GPU-h, ${:.0f}: {}\n", r.cause, r.gpu_hours, r.usd, r.action);
  return o;
}

}  // namespace steward::diagnose

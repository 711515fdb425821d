#include "twin/compare_verdict.h"

#include <fmt/format.h>

#include <cmath>

namespace steward::twin {
namespace {

enum class Unit { kRate, kSeconds, kCount, kGpuHours, kHours };

Unit UnitOf(const KpiDelta& k) {
  if (k.group == "utilization") return Unit::kRate;
  if (k.group.starts_with("queue_wait_seconds") || k.group == "training_jct_seconds")
    return Unit::kSeconds;
  if (k.group == "tidal" && k.name.find("gpu_hours") != std::string::npos) return Unit::kGpuHours;
  if (k.group.starts_with("lost_gpu_hours")) return Unit::kGpuHours;
  if (k.group == "alert_hours_over") return Unit::kHours;
  return Unit::kCount;
}

// +1 when more is better, -1 when less is, 0 when neither.
int Better(const KpiDelta& k) {
  if (k.group == "utilization") return +1;
  if (k.group == "workloads") return k.name == "completed" ? +1 : -1;
  if (k.group == "pending_by_reason") return 0;  // Explains the others; no good direction.
  if (k.group == "tidal") {
    // Lending and training's share are the point; reclaims and evictions are their price and
    // explain the others; SLO minutes are the cost that matters.
    if (k.name == "slo_minutes_violated") return -1;
    if (k.name == "gpus_reclaimed" || k.name == "reclaim_evictions" ||
        k.name == "gpu_hours_reclaimed" || k.name == "reclaim_shrinks" || k.name == "gpus_shrunk" ||
        k.name == "regrows" || k.name == "training_gpu_hours_beside_serving")
      return 0;
    return +1;
  }
  return -1;  // Waits, preemptions, lost GPU-hours, alerts.
}

bool Significant(const KpiDelta& k) {
  const double d = std::abs(k.delta());
  switch (UnitOf(k)) {
    case Unit::kRate:
      return d >= 0.0005;  // 0.05 percentage points.
    case Unit::kSeconds:
      return d >= 1 && (k.before <= 0 || d / k.before >= 0.01);
    case Unit::kCount:
      return d >= 0.5;
    case Unit::kGpuHours:
    case Unit::kHours:
      return d >= 0.05;
  }
  return false;
}

// "45s", "12m", "3h 47m", "2d 4h" (magnitude only).
std::string Duration(double seconds) {
  const int64_t s = std::llround(std::abs(seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m", s / 60);
  if (s < 86400) return fmt::format("{}h {}m", s / 3600, (s % 3600) / 60);
  return fmt::format("{}d {}h", s / 86400, (s % 86400) / 3600);
}

// The KPI as the summary names it ("SM-active", "research p99 wait", "preemptions (dev)");
// "" leaves it out of the summary (detail rows).
std::string Headline(const KpiDelta& k) {
  if (k.group == "utilization") {
    if (k.name == "sm_active_utilization") return "SM-active";
    if (k.name == "allocation_rate") return "allocation";
    return "busy";
  }
  if (k.group == "workloads") return k.name == "pending_at_end" ? "pending at end" : k.name;
  if (k.group.starts_with("queue_wait_seconds_by_team.") && k.name == "p99")
    return k.group.substr(k.group.find('.') + 1) + " p99 wait";
  if (k.group == "preemptions") return "preemptions (" + k.name + ")";
  if (k.group == "lost_gpu_hours") return "lost GPU-hours";
  if (k.group == "lost_gpu_hours_by_team") return k.name + " lost";
  if (k.group == "alerts") return "tenant alerts";
  if (k.group == "tidal" && k.name == "slo_minutes_violated") return "SLO minutes";
  if (k.group == "tidal" && k.name == "training_gpu_hours") return "training GPU-hours";
  if (k.group == "training_jct_seconds" && k.name == "p50") return "training JCT p50";
  return "";
}

}  // namespace

int Judge(const KpiDelta& k) {
  if (!Significant(k)) return 0;
  const int better = Better(k);
  return k.delta() > 0 ? better : -better;
}

std::string FormatValue(const KpiDelta& k, double v) {
  switch (UnitOf(k)) {
    case Unit::kRate:
      return fmt::format("{:.1f}%", 100 * v);
    case Unit::kSeconds:
      return v == 0 ? "0" : Duration(v);
    case Unit::kCount:
      return fmt::format("{:.0f}", v);
    case Unit::kGpuHours:
      return fmt::format("{:.1f} GPU-h", v);
    case Unit::kHours:
      return fmt::format("{:.1f} h", v);
  }
  return "";
}

std::string FormatDelta(const KpiDelta& k) {
  const double d = k.delta();
  const char* sign = d > 0 ? "+" : d < 0 ? "-" : "";
  switch (UnitOf(k)) {
    case Unit::kRate:
      return fmt::format("{}{:.1f} pp", sign, std::abs(100 * d));
    case Unit::kSeconds: {
      if (d == 0) return "0";
      std::string s = sign + Duration(d);
      if (k.before > 0) s += fmt::format(" ({}{:.0f}%)", sign, std::abs(100 * d / k.before));
      return s;
    }
    case Unit::kCount:
      return fmt::format("{}{:.0f}", sign, std::abs(d));
    case Unit::kGpuHours:
      return fmt::format("{}{:.1f} GPU-h", sign, std::abs(d));
    case Unit::kHours:
      return fmt::format("{}{:.1f} h", sign, std::abs(d));
  }
  return "";
}

Verdict JudgeKpis(const std::vector<KpiDelta>& kpis) {
  Verdict v;
  for (const KpiDelta& k : kpis) {
    const int j = Judge(k);
    if (j == 0) continue;
    (j > 0 ? v.better : v.worse) += 1;
    const std::string name = Headline(k);
    if (name.empty()) continue;
    (j > 0 ? v.gains : v.costs).push_back(fmt::format("{} {}", name, FormatDelta(k)));
  }
  auto list = [](const std::vector<std::string>& items) {
    std::string s;
    for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
    return s.empty() ? std::string("none") : s;
  };
  v.summary = fmt::format("Verdict: {} better, {} worse. Gains: {}. Trade-offs: {}.", v.better,
                          v.worse, list(v.gains), list(v.costs));
  return v;
}

}  // namespace steward::twin

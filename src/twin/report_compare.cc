#include "twin/report_compare.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "model/text.h"
#include "twin/compare_verdict.h"

namespace steward::twin {
namespace {

// Every key of either map, in order.
template <typename Map>
std::set<std::string> Keys(const Map& a, const Map& b) {
  std::set<std::string> k;
  for (const auto& [key, v] : a) k.insert(key);
  for (const auto& [key, v] : b) k.insert(key);
  return k;
}

template <typename Map>
double Get(const Map& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? 0.0 : static_cast<double>(it->second);
}

std::string PolicyText(const ComparedRun& r) {
  if (r.policy_files.empty()) return "(scenario's)";
  std::string s;
  for (const auto& p : r.policy_files) s += (s.empty() ? "" : " ") + p;
  return s;
}

}  // namespace

std::vector<KpiDelta> CompareKpis(const Report& b, const Report& a) {
  std::vector<KpiDelta> out;
  auto add = [&](const std::string& group, const std::string& name, double before, double after) {
    out.push_back({group, name, before, after});
  };
  add("utilization", "allocation_rate", b.allocation_rate, a.allocation_rate);
  add("utilization", "busy_utilization", b.busy_utilization, a.busy_utilization);
  add("utilization", "sm_active_utilization", b.sm_active_utilization, a.sm_active_utilization);
  add("workloads", "completed", b.workloads_completed, a.workloads_completed);
  add("workloads", "pending_at_end", b.workloads_pending, a.workloads_pending);
  add("workloads", "interruptions", b.interruptions, a.interruptions);
  for (const auto& team : Keys(b.queue_wait_seconds_by_team, a.queue_wait_seconds_by_team)) {
    auto pb = b.queue_wait_seconds_by_team.count(team) ? b.queue_wait_seconds_by_team.at(team)
                                                       : Percentiles{};
    auto pa = a.queue_wait_seconds_by_team.count(team) ? a.queue_wait_seconds_by_team.at(team)
                                                       : Percentiles{};
    const std::string g = "queue_wait_seconds_by_team." + team;
    add(g, "p50", pb.p50, pa.p50);
    add(g, "p95", pb.p95, pa.p95);
    add(g, "p99", pb.p99, pa.p99);
  }
  for (const auto& tier : Keys(b.preemptions, a.preemptions))
    add("preemptions", tier, Get(b.preemptions, tier), Get(a.preemptions, tier));
  add("lost_gpu_hours", "total", b.lost_gpu_hours, a.lost_gpu_hours);
  for (const auto& team : Keys(b.lost_gpu_hours_by_team, a.lost_gpu_hours_by_team))
    add("lost_gpu_hours_by_team", team, Get(b.lost_gpu_hours_by_team, team),
        Get(a.lost_gpu_hours_by_team, team));
  for (const auto& cause : Keys(b.faults.lost_gpu_hours_by_cause, a.faults.lost_gpu_hours_by_cause))
    add("lost_gpu_hours_by_cause", cause, Get(b.faults.lost_gpu_hours_by_cause, cause),
        Get(a.faults.lost_gpu_hours_by_cause, cause));
  add("alerts", "tenant_alerts", b.tenant_alerts.size(), a.tenant_alerts.size());
  std::map<std::string, double> hb, ha;
  for (const auto& t : b.tenant_alerts) hb[t.team] = t.hours_over;
  for (const auto& t : a.tenant_alerts) ha[t.team] = t.hours_over;
  for (const auto& team : Keys(hb, ha)) add("alert_hours_over", team, Get(hb, team), Get(ha, team));
  for (const auto& reason : Keys(b.pending_by_reason, a.pending_by_reason))
    add("pending_by_reason", reason, Get(b.pending_by_reason, reason),
        Get(a.pending_by_reason, reason));
  // Serving and tidal lending (docs/tidal.md), only when a run has them: other comparisons keep
  // their rows.
  if (b.tidal.enabled || a.tidal.enabled) {
    const TidalReport &tb = b.tidal, &ta = a.tidal;
    add("tidal", "slo_minutes_violated", tb.slo_minutes_violated, ta.slo_minutes_violated);
    add("tidal", "gpu_hours_lent", tb.gpu_hours_lent, ta.gpu_hours_lent);
    add("tidal", "gpus_reclaimed", tb.gpus_reclaimed, ta.gpus_reclaimed);
    add("tidal", "gpu_hours_reclaimed", tb.gpu_hours_reclaimed, ta.gpu_hours_reclaimed);
    add("tidal", "reclaim_evictions", tb.reclaim_evictions, ta.reclaim_evictions);
    if (tb.elastic || ta.elastic) {
      add("tidal", "reclaim_shrinks", tb.reclaim_shrinks, ta.reclaim_shrinks);
      add("tidal", "gpus_shrunk", tb.gpus_shrunk, ta.gpus_shrunk);
      add("tidal", "regrows", tb.regrows, ta.regrows);
    }
    add("tidal", "training_gpu_hours", tb.training_gpu_hours, ta.training_gpu_hours);
    if (tb.sharing.enabled || ta.sharing.enabled) {
      add("tidal", "training_gpu_hours_beside_serving",
          tb.sharing.training_gpu_hours_beside_serving,
          ta.sharing.training_gpu_hours_beside_serving);
      add("tidal", "training_effective_gpu_hours_beside_serving",
          tb.sharing.training_effective_gpu_hours_beside_serving,
          ta.sharing.training_effective_gpu_hours_beside_serving);
    }
    add("tidal", "training_gpu_hours_gained", tb.training_gpu_hours_gained,
        ta.training_gpu_hours_gained);
    add("training_jct_seconds", "p50", tb.training_jct_seconds.p50, ta.training_jct_seconds.p50);
    add("training_jct_seconds", "p95", tb.training_jct_seconds.p95, ta.training_jct_seconds.p95);
    std::map<std::string, double> pb, pa;
    for (const ServiceReport& s : tb.services) pb[s.name] = s.p99_latency_ms;
    for (const ServiceReport& s : ta.services) pa[s.name] = s.p99_latency_ms;
    for (const auto& name : Keys(pb, pa))
      add("p99_latency_ms_by_service", name, Get(pb, name), Get(pa, name));
  }
  return out;
}

nlohmann::json CompareToJson(const ComparedRun& before, const ComparedRun& after) {
  using nlohmann::json;
  auto side = [](const ComparedRun& r) {
    return json{{"label", r.label},
                {"scenario", r.scenario_file.empty() ? json() : json(r.scenario_file)},
                {"policy", r.policy_files},
                {"report", ToJson(r.report)}};
  };
  json delta = json::object();
  const std::vector<KpiDelta> kpis = CompareKpis(before.report, after.report);
  for (const KpiDelta& k : kpis) delta[k.group][k.name] = model::RoundTo(k.delta(), 4);
  // Added next to `delta` (whose keys stay as they were): each changed KPI judged.
  const Verdict v = JudgeKpis(kpis);
  json judged = json::object();
  for (const KpiDelta& k : kpis)
    if (const int j = Judge(k); j != 0) judged[k.group][k.name] = j > 0 ? "better" : "worse";
  return {{"before", side(before)},
          {"after", side(after)},
          {"delta", delta},
          {"verdict",
           {{"better", v.better},
            {"worse", v.worse},
            {"gains", v.gains},
            {"costs", v.costs},
            {"summary", v.summary},
            {"by_kpi", judged}}}};
}

std::string CompareToText(const ComparedRun& before, const ComparedRun& after) {
  std::string out = fmt::format(
      "Steward twin comparison\n  before: {:<20} scenario {}, policy {}\n  after:  {:<20} "
      "scenario {}, policy {}\n",
      before.label, before.scenario_file.empty() ? "(built-in)" : before.scenario_file,
      PolicyText(before), after.label,
      after.scenario_file.empty() ? "(built-in)" : after.scenario_file, PolicyText(after));
  const std::vector<KpiDelta> kpis = CompareKpis(before.report, after.report);
  out += "\n" + JudgeKpis(kpis).summary + "\n";
  std::string group;
  for (const KpiDelta& k : kpis) {
    if (k.group != group) {
      group = k.group;
      out += fmt::format("\n{:<34} {:>14} {:>14} {:>20}\n", group, before.label.substr(0, 14),
                         after.label.substr(0, 14), "change");
    }
    const int j = Judge(k);
    out += fmt::format("  {:<32} {:>14} {:>14} {:>20}  {}\n", k.name, FormatValue(k, k.before),
                       FormatValue(k, k.after), FormatDelta(k),
                       j > 0   ? "better"
                       : j < 0 ? "worse"
                               : "");
  }
  return out;
}

std::string CompareToHtml(const ComparedRun& before, const ComparedRun& after) {
  std::string h =
      "<!doctype html><html><head><meta charset='utf-8'><title>Steward twin comparison</title>"
      "<style>body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}"
      "table{border-collapse:collapse;margin:8px 0 16px}td,th{padding:3px 10px;border-bottom:1px "
      "solid #ddd;text-align:right}td:first-child,th:first-child{text-align:left}"
      "th.group{text-align:left;padding-top:12px}.bad{color:#b22}.good{color:#262}"
      ".verdict{font-weight:600}"
      ".runs{display:flex;gap:12px}.runs div{flex:1}iframe{width:100%;height:2400px;"
      "border:1px solid #ccc}</style></head><body>\n<h1>Twin comparison</h1>\n";
  for (const ComparedRun* r : {&before, &after})
    h += fmt::format("<p><b>{}</b>: scenario <code>{}</code>, policy <code>{}</code></p>\n",
                     model::HtmlEscape(r->label),
                     model::HtmlEscape(r->scenario_file.empty() ? "(built-in)" : r->scenario_file),
                     model::HtmlEscape(PolicyText(*r)));
  const std::vector<KpiDelta> kpis = CompareKpis(before.report, after.report);
  h += fmt::format("<p class='verdict'>{}</p>\n", model::HtmlEscape(JudgeKpis(kpis).summary));
  h += fmt::format("<table><tr><th>KPI</th><th>{}</th><th>{}</th><th>change</th></tr>\n",
                   model::HtmlEscape(before.label), model::HtmlEscape(after.label));
  std::string group;
  for (const KpiDelta& k : kpis) {
    if (k.group != group) {
      group = k.group;
      h +=
          fmt::format("<tr><th class='group' colspan='4'>{}</th></tr>\n", model::HtmlEscape(group));
    }
    // Coloured by whether the change is good (green) or bad (red), not by its sign.
    const int j = Judge(k);
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class='{}'>{}</td></tr>\n",
                     model::HtmlEscape(k.name), model::HtmlEscape(FormatValue(k, k.before)),
                     model::HtmlEscape(FormatValue(k, k.after)),
                     j > 0   ? "good"
                     : j < 0 ? "bad"
                             : "",
                     model::HtmlEscape(FormatDelta(k)));
  }
  h += "</table>\n<div class='runs'>";
  for (const ComparedRun* r : {&before, &after})
    h += fmt::format("<div><h2>{}</h2><iframe title='{}' srcdoc=\"{}\"></iframe></div>",
                     model::HtmlEscape(r->label), model::HtmlEscape(r->label),
                     model::HtmlEscape(ToHtml(r->report)));
  h += "</div></body></html>\n";
  return h;
}

}  // namespace steward::twin

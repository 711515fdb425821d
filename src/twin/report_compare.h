// Two twin runs side by side: "before" and "after" are each a (scenario, policy) pair, e.g. the
// guide's case 2 without and with borrowing limits, or case 1 before and after a change. The
// comparison lists the headline KPIs of both and their difference (after - before); writers
// give text, JSON (both full reports plus the deltas) and a self-contained HTML page.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "twin/report.h"

namespace steward::twin {

struct ComparedRun {
  std::string label;          // Short name shown in columns ("no-limits", "before", ...).
  std::string scenario_file;  // "" = the built-in scenario.
  std::vector<std::string> policy_files;
  Report report;
};

// One compared number. `group` names its section ("utilization", "queue wait team-b", ...).
struct KpiDelta {
  std::string group;
  std::string name;
  double before = 0;
  double after = 0;
  double delta() const { return after - before; }
};

// The KPIs compared, in a fixed order: utilization, workloads, wait percentiles per team,
// preemptions and lost GPU-hours (by tier, by team, by cause), alerts, pending by reason. A
// team, tier or reason missing from one run counts as 0 there.
std::vector<KpiDelta> CompareKpis(const Report& before, const Report& after);

// {"before": {label, scenario, policy, report}, "after": {...}, "delta": {group: {name: d}}}.
nlohmann::json CompareToJson(const ComparedRun& before, const ComparedRun& after);
std::string CompareToText(const ComparedRun& before, const ComparedRun& after);
// The KPI table, then both runs' full HTML reports side by side (each in an iframe).
std::string CompareToHtml(const ComparedRun& before, const ComparedRun& after);

}  // namespace steward::twin

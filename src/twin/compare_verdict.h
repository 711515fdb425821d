// `twin compare` read as a verdict: whether each KPI change is good or bad (higher SM-active is
// good, longer waits are bad), each in its unit (percentage points for rates, h/m/s for waits,
// counts, GPU-hours), and a summary line with the gains and the trade-offs.
//
//   std::vector<KpiDelta> kpis = CompareKpis(before, after);
//   Verdict v = JudgeKpis(kpis);            // v.summary: "3 better, 2 worse. Gains: ..."
//   std::string d = FormatDelta(kpis[0]);   // "+9.9 pp"
//
// Pure functions over the KPI list; no state. Cost: O(KPIs).
#pragma once

#include <string>
#include <vector>

#include "twin/report_compare.h"

namespace steward::twin {

// +1: the change is good, -1: bad, 0: no change worth naming (or a KPI with no good direction,
// like a count of pending workloads by reason, which only explains the others).
int Judge(const KpiDelta& k);

// A value and a change in the KPI's unit: rates as percentages and their change in percentage
// points ("83.3%", "+2.8 pp"); waits as durations ("3h 47m", "-1h 12m (-96%)"); counts as
// integers ("+89"); GPU-hours with one decimal ("+57.8 GPU-h").
std::string FormatValue(const KpiDelta& k, double value);
std::string FormatDelta(const KpiDelta& k);

struct Verdict {
  int better = 0, worse = 0;
  std::vector<std::string> gains, costs;  // Headline changes, largest first, in their units.
  std::string summary;                    // "Verdict: 14 better, 9 worse. Gains: ...; costs: ..."
};
Verdict JudgeKpis(const std::vector<KpiDelta>& kpis);

}  // namespace steward::twin

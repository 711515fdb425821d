// The monthly review: which teams (or namespaces, labels) waste the GPUs they hold.
//
// For each aggregate over the window: allocated GPU-hours vs SM-active GPU-hours ("allocated vs
// real compute"), the classified waste by cause (cost/waste_cause.h, the vocabulary `diagnose`,
// `cost report`, `/allocation` and the dashboard share) and its cost. Ranked by waste cost,
// highest first (then waste GPU-hours, then name), top N kept. Hours a job spends computing
// below 100 % SM-active but above the low-efficiency target are efficiency, not waste: they
// are reported as `unattributed_gpu_hours` (as `diagnose` names them) and never rank a team (an
// efficient team that computes a lot is not a waster). Idle capacity nobody allocated is reported
// apart: it is the platform's, not a team's.
//
//   auto review = ReviewWaste(ledger, "month", *ParseAggregate("team"), 10, now);
//   std::cout << WasteReviewToTable(*review, ledger.currency());
//
// Cost: one allocation query over the window (docs/cost.md, "Measured"). Not thread-safe beyond
// what Ledger is.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cost/allocation_query.h"
#include "cost/ledger.h"

namespace steward::cost {

struct WasteReviewRow {
  int rank = 0;  // 1-based.
  std::string name;
  double allocated_gpu_hours = 0;
  double sm_active_gpu_hours = 0;
  double unused_gpu_hours = 0;  // allocated - SM-active = waste + efficiency.
  double waste_gpu_hours = 0;   // Sum of waste_gpu_hours_by_cause.
  // Not SM-active and not waste (diagnose's word): the idle SM share of compute above the
  // efficiency target, and holds no rule classified.
  double unattributed_gpu_hours = 0;
  double gpu_cost = 0;
  double waste_cost = 0;  // Sum of waste_cost_by_cause; the ranking key.
  double sm_efficiency = 0;
  std::map<std::string, double> waste_gpu_hours_by_cause;
  std::map<std::string, double> waste_cost_by_cause;
  std::string top_cause;  // Cause with most GPU-hours ("" when none classified).
};

struct WasteReview {
  Window window;
  std::string aggregate;
  std::vector<WasteReviewRow> rows;  // At most top_n.
  int total_aggregates = 0;          // Before the top-N cut.
  double allocated_gpu_hours = 0;    // Over all aggregates.
  double sm_active_gpu_hours = 0;
  double waste_gpu_hours = 0;
  double waste_cost = 0;
  double idle_gpu_hours = 0;  // Unallocated capacity.
  double idle_cost = 0;
  double capacity_gpu_hours = 0;
};

// `window` in OpenCost's grammar, resolved against `now`; top_n <= 0 keeps every aggregate.
Result<WasteReview> ReviewWaste(const Ledger& ledger, const std::string& window,
                                const std::vector<AggregateProperty>& aggregate, int top_n,
                                int64_t now);

nlohmann::json WasteReviewToJson(const WasteReview& review);
std::string WasteReviewToTable(const WasteReview& review, const std::string& currency);

}  // namespace steward::cost

// The monthly review: which teams (or namespaces, labels) hold GPUs without computing on them.
//
// For each aggregate over the window: allocated GPU-hours vs SM-active GPU-hours ("allocated vs
// real compute"), the unused part (allocated - SM-active) and its cost, and the classified
// waste by cause. Ranked by unused cost, highest first (ties by name), top N kept. Idle
// capacity nobody allocated is reported apart: it is the platform's, not a team's.
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
  double unused_gpu_hours = 0;  // allocated - SM-active.
  double gpu_cost = 0;
  double unused_cost = 0;
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
  double unused_cost = 0;
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

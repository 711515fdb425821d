// OpenCost-compatible allocation queries over the ledger.
//
// Takes OpenCost's Allocation API parameters (window, aggregate, step, accumulate,
// includeIdle, shareIdle; util-cost-facts.md §1.1) and computes, per step, one row per
// aggregate with OpenCost's numbers (gpuHours, gpuCost, totalCost, ...) plus the GPU figures
// OpenCost lacks (SM-active and busy GPU-hours, efficiency by SM-active, waste by cause).
//
// How numbers are made (docs/cost.md has the worked example):
// - gpuHours charged = allocated (share-weighted) GPU-hours, never usage (as OpenCost);
//   gpuCost = gpuHours x the window's frozen price of the GPU model.
// - A ledger window partly inside a step contributes pro rata to its overlap (records are
//   taken as uniform over their window).
// - Idle per step = sum over windows and models of (capacity - allocated) x price. With
//   includeIdle it is a row named __idle__; with shareIdle=true (OpenCost's weighted sharing)
//   each row gets idle x its gpuCost / the step's total gpuCost, added into gpuHours/gpuCost
//   as OpenCost does; shareIdle=even (a Steward extension OpenCost lacks) splits it equally
//   over the step's rows. Shared idle replaces the __idle__ row. A step with idle but no
//   allocations keeps its __idle__ row even when sharing (there is nobody to share it with).
// - Records without the aggregated property group under __unallocated__.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cost/ledger.h"
#include "cost/window.h"
#include "model/status.h"

namespace steward::cost {

enum class IdleSharing { kNone, kWeighted, kEven };
std::string_view IdleSharingName(IdleSharing s);

// One property to group by.
struct AggregateProperty {
  enum class Kind { kCluster, kTeam, kNamespace, kWorkload, kGpuModel, kLabel };
  Kind kind = Kind::kTeam;
  std::string label;  // For kLabel: the label key.
  std::string ToString() const;
};

// Parses a comma list: cluster, team, namespace, workload (alias pod), gpu_model,
// label:KEY. Unknown tokens are an error (OpenCost drops them silently; that hides typos).
Result<std::vector<AggregateProperty>> ParseAggregate(std::string_view text);

struct AllocationQuery {
  std::string window;                        // Required; OpenCost grammar (window.h).
  std::vector<AggregateProperty> aggregate;  // Empty = workload (the finest grain).
  std::optional<int64_t> step_seconds;       // Default: the whole window in one step.
  bool accumulate = false;                   // Sum all steps into one set.
  bool include_idle = false;
  IdleSharing share_idle = IdleSharing::kNone;
};

// Builds a query from HTTP-style parameters (names as OpenCost's). `shareIdle` accepts
// true/false/weighted/even; booleans accept true/false/1/0. Other parameters are ignored.
Result<AllocationQuery> AllocationQueryFromParams(const std::map<std::string, std::string>& params);

// Limit on steps per query (a 1-minute step over a year would be 525,600 sets).
inline constexpr int64_t kMaxSteps = 10000;

inline constexpr char kIdleName[] = "__idle__";
inline constexpr char kUnallocatedName[] = "__unallocated__";

// One aggregate in one step.
struct AllocationRow {
  std::string name;
  bool is_idle = false;
  int64_t start = 0;  // Span of the data merged into the row, within the step.
  int64_t end = 0;
  // Property values shared by every record in the row (as OpenCost keeps after aggregation).
  std::optional<std::string> namespace_name;
  std::optional<std::string> team;
  std::map<std::string, std::string> labels;
  std::map<std::string, double> gpu_hours_by_model;  // Allocated GPU-hours per model.
  bool gpu_shared = false;         // Some record holds a fractional GPU (gpu_share < 1).
  double allocated_gpu_hours = 0;  // Charged hours before shared idle.
  double busy_gpu_hours = 0;
  double sm_active_gpu_hours = 0;
  double gpu_cost_allocated = 0;  // allocated x price.
  double idle_gpu_hours = 0;      // Shared-in idle hours (or, for __idle__, all of it).
  double idle_cost = 0;
  std::map<std::string, double> waste_gpu_hours_by_cause;
  std::map<std::string, double> waste_cost_by_cause;

  double gpu_hours() const { return allocated_gpu_hours + idle_gpu_hours; }
  double gpu_cost() const { return gpu_cost_allocated + idle_cost; }
  double total_cost() const { return gpu_cost(); }  // Steward's ledger prices GPUs only.
  // SM-active / allocated (0 with no allocation); busy likewise.
  double sm_efficiency() const;
  double busy_efficiency() const;
};

// All rows of one step, sorted by name (__idle__ sorts with the rest).
struct AllocationSet {
  Window window;
  std::vector<AllocationRow> rows;
  double idle_gpu_hours = 0;  // The step's idle, before any sharing.
  double idle_cost = 0;
  double capacity_gpu_hours = 0;
};

struct AllocationResult {
  Window window;  // The resolved query window.
  std::string cluster;
  std::vector<AllocationSet> sets;  // One per step (one when accumulated).
};

// Runs `query` against `ledger`; relative windows resolve against `now` (see window.h).
Result<AllocationResult> QueryAllocations(const Ledger& ledger, const AllocationQuery& query,
                                          int64_t now);

// The `now` a query should use: the ledger's latest window end, else `fallback` (an empty
// ledger; callers pass the wall clock).
Result<int64_t> LedgerNow(const Ledger& ledger, int64_t fallback);

}  // namespace steward::cost

// Renders allocation results: OpenCost's JSON envelope, CSV, and a text table.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cost/allocation_query.h"

namespace steward::cost {

// OpenCost's number format: rounded to 5 decimals (formatFloat64ForResponse); NaN and
// infinities become null.
nlohmann::json OpenCostNumber(double v);

// One allocation in OpenCost's field names (allocation_json.go), every OpenCost field present
// (CPU, RAM, network, PV and LB ones are 0: the ledger prices GPUs only), plus Steward's GPU
// fields: gpuAllocatedHours, gpuIdleHours, gpuBusyHours, gpuSmActiveHours, gpuBusyEfficiency,
// gpuSmActiveEfficiency, gpuWasteHoursByCause, gpuWasteCostByCause, gpuHoursByModel.
nlohmann::json AllocationToOpenCostJson(const AllocationRow& row, const Window& step,
                                        const std::string& cluster);

// {"code":200,"status":"success","data":[{name: allocation, ...}, ...]}: one map per step.
nlohmann::json AllocationResultToOpenCostJson(const AllocationResult& result);

// An error body in the same envelope: {"code":400,"status":"error","message":...,"data":null}.
nlohmann::json OpenCostError(int code, const std::string& message);

// CSV: a header line, then one line per (step, row). Columns: window_start, window_end, name,
// gpu_hours, allocated_gpu_hours, idle_gpu_hours, busy_gpu_hours, sm_active_gpu_hours,
// gpu_cost, idle_cost, total_cost, sm_efficiency, busy_efficiency, waste_gpu_hours, then one
// waste_gpu_hours:<cause> column per cause present. Fields are quoted when needed (RFC 4180).
std::string AllocationResultToCsv(const AllocationResult& result);

// A fixed-width table for people, with a totals line per step.
std::string AllocationResultToTable(const AllocationResult& result, const std::string& currency);

}  // namespace steward::cost

#include "cost/allocation_format.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

namespace steward::cost {

using nlohmann::json;

json OpenCostNumber(double v) {
  if (!std::isfinite(v)) return nullptr;
  double r = std::round(v * 1e5) / 1e5;
  if (r == 0) r = 0;  // No "-0".
  return r;
}

namespace {

double Efficiency(double used, double requested) {
  // OpenCost's rule (allocation.go): used/requested when requested > 0; with no request, 1 if
  // there is usage, else 0.
  if (requested > 0) return used / requested;
  return used > 0 ? 1.0 : 0.0;
}

}  // namespace

json AllocationToOpenCostJson(const AllocationRow& row, const Window& step,
                              const std::string& cluster) {
  const int64_t start = row.end > row.start ? row.start : step.start;
  const int64_t end = row.end > row.start ? row.end : step.end;
  const double minutes = static_cast<double>(end - start) / 60.0;
  const double hours = minutes / 60.0;
  auto per_hour = [&](double h) { return hours > 0 ? h / hours : 0.0; };
  const auto n = OpenCostNumber;

  json props = json::object();
  props["cluster"] = cluster;
  if (row.namespace_name && !row.namespace_name->empty()) props["namespace"] = *row.namespace_name;
  if (row.team && !row.team->empty()) props["team"] = *row.team;  // Steward extension.
  if (!row.labels.empty()) props["labels"] = row.labels;

  json a = json::object();
  a["name"] = row.name;
  a["properties"] = props;
  a["window"] = {{"start", FormatRfc3339(step.start)}, {"end", FormatRfc3339(step.end)}};
  a["start"] = FormatRfc3339(start);
  a["end"] = FormatRfc3339(end);
  a["minutes"] = n(minutes);
  for (const char* k : {"cpuCores", "cpuCoreRequestAverage", "cpuCoreUsageAverage", "cpuCoreHours",
                        "cpuCost", "cpuCostAdjustment", "cpuCostIdle", "cpuEfficiency"}) {
    a[k] = 0;
  }
  const double gpu_hours = row.gpu_hours();
  a["gpuCount"] = n(per_hour(gpu_hours));
  // Request/usage averages are over the charged allocation, before shared idle, as OpenCost's
  // GPURequestAverage is the pods' request. Usage is SM-active (OpenCost: GR_ENGINE_ACTIVE).
  a["gpuRequestAverage"] = n(per_hour(row.allocated_gpu_hours));
  a["gpuUsageAverage"] = n(per_hour(row.sm_active_gpu_hours));
  // Newer OpenCost (after 2024-10) moves the two averages into gpuAllocation; emit both
  // shapes so readers of either version find them.
  a["gpuAllocation"] = {{"gpuRequestAverage", a["gpuRequestAverage"]},
                        {"gpuUsageAverage", a["gpuUsageAverage"]},
                        {"isGPUShared", row.gpu_shared}};
  a["gpuHours"] = n(gpu_hours);
  a["gpuCost"] = n(row.gpu_cost());
  a["gpuCostAdjustment"] = 0;
  a["gpuCostIdle"] = n(row.is_idle ? 0.0 : row.idle_cost);
  const double gpu_eff =
      row.is_idle ? 0.0 : Efficiency(row.sm_active_gpu_hours, row.allocated_gpu_hours);
  a["gpuEfficiency"] = n(gpu_eff);
  for (const char* k : {"networkTransferBytes",
                        "networkReceiveBytes",
                        "networkCost",
                        "networkCrossZoneCost",
                        "networkCrossRegionCost",
                        "networkInternetCost",
                        "networkCostAdjustment",
                        "loadBalancerCost",
                        "loadBalancerCostAdjustment",
                        "pvBytes",
                        "pvByteHours",
                        "pvCost",
                        "pvCostAdjustment",
                        "ramBytes",
                        "ramByteRequestAverage",
                        "ramByteUsageAverage",
                        "ramByteHours",
                        "ramCost",
                        "ramCostAdjustment",
                        "ramCostIdle",
                        "ramEfficiency",
                        "externalCost",
                        "sharedCost"}) {
    a[k] = 0;
  }
  a["lbAllocations"] = nullptr;
  a["pvs"] = nullptr;
  a["totalCost"] = n(row.total_cost());
  // OpenCost leaves GPU out of totalEfficiency (PR #2731's TODO). Here it is the cost-weighted
  // efficiency of what is priced, i.e. the GPU's, excluding shared idle (as Kubecost's
  // workload efficiency does).
  a["totalEfficiency"] = n(gpu_eff);
  a["rawAllocationOnly"] = nullptr;
  a["proportionalAssetResourceCosts"] = json::object();
  a["sharedCostBreakdown"] = json::object();
  // Steward's GPU fields.
  a["gpuAllocatedHours"] = n(row.allocated_gpu_hours);
  a["gpuIdleHours"] = n(row.idle_gpu_hours);
  a["gpuBusyHours"] = n(row.busy_gpu_hours);
  a["gpuSmActiveHours"] = n(row.sm_active_gpu_hours);
  a["gpuBusyEfficiency"] = n(row.busy_efficiency());
  a["gpuSmActiveEfficiency"] = n(row.sm_efficiency());
  json waste_h = json::object(), waste_c = json::object(), by_model = json::object();
  for (const auto& [c, h] : row.waste_gpu_hours_by_cause) waste_h[c] = n(h);
  for (const auto& [c, v] : row.waste_cost_by_cause) waste_c[c] = n(v);
  for (const auto& [m, h] : row.gpu_hours_by_model) by_model[m] = n(h);
  a["gpuWasteHoursByCause"] = waste_h;
  a["gpuWasteCostByCause"] = waste_c;
  a["gpuHoursByModel"] = by_model;
  return a;
}

json AllocationResultToOpenCostJson(const AllocationResult& result) {
  json data = json::array();
  for (const AllocationSet& set : result.sets) {
    json m = json::object();
    for (const AllocationRow& row : set.rows) {
      m[row.name] = AllocationToOpenCostJson(row, set.window, result.cluster);
    }
    data.push_back(std::move(m));
  }
  return {{"code", 200}, {"status", "success"}, {"data", std::move(data)}};
}

json OpenCostError(int code, const std::string& message) {
  return {{"code", code}, {"status", "error"}, {"message", message}, {"data", nullptr}};
}

namespace {

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string Num(double v) {
  const json j = OpenCostNumber(v);
  return j.is_null() ? "" : j.dump();
}

double Sum(const std::map<std::string, double>& m) {
  double s = 0;
  for (const auto& [k, v] : m) s += v;
  return s;
}

}  // namespace

std::string AllocationResultToCsv(const AllocationResult& result) {
  std::set<std::string> causes;
  for (const AllocationSet& set : result.sets) {
    for (const AllocationRow& row : set.rows) {
      for (const auto& [c, h] : row.waste_gpu_hours_by_cause) causes.insert(c);
    }
  }
  std::string out =
      "window_start,window_end,name,gpu_hours,allocated_gpu_hours,idle_gpu_hours,"
      "busy_gpu_hours,sm_active_gpu_hours,gpu_cost,idle_cost,total_cost,sm_efficiency,"
      "busy_efficiency,waste_gpu_hours";
  for (const std::string& c : causes) out += "," + CsvField("waste_gpu_hours:" + c);
  out += "\n";
  for (const AllocationSet& set : result.sets) {
    for (const AllocationRow& row : set.rows) {
      out +=
          fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}", FormatRfc3339(set.window.start),
                      FormatRfc3339(set.window.end), CsvField(row.name), Num(row.gpu_hours()),
                      Num(row.allocated_gpu_hours), Num(row.idle_gpu_hours),
                      Num(row.busy_gpu_hours), Num(row.sm_active_gpu_hours), Num(row.gpu_cost()),
                      Num(row.idle_cost), Num(row.total_cost()), Num(row.sm_efficiency()),
                      Num(row.busy_efficiency()), Num(Sum(row.waste_gpu_hours_by_cause)));
      for (const std::string& c : causes) {
        auto it = row.waste_gpu_hours_by_cause.find(c);
        out += "," + Num(it == row.waste_gpu_hours_by_cause.end() ? 0.0 : it->second);
      }
      out += "\n";
    }
  }
  return out;
}

std::string AllocationResultToTable(const AllocationResult& result, const std::string& currency) {
  std::string out;
  for (const AllocationSet& set : result.sets) {
    out += fmt::format("window {} .. {}   capacity {:.2f} GPU-h, idle {:.2f} GPU-h ({:.2f} {})\n",
                       FormatRfc3339(set.window.start), FormatRfc3339(set.window.end),
                       set.capacity_gpu_hours, set.idle_gpu_hours, set.idle_cost, currency);
    size_t width = 4;
    for (const AllocationRow& row : set.rows) width = std::max(width, row.name.size());
    out += fmt::format("  {:<{}}  {:>12} {:>12} {:>12} {:>12} {:>8} {:>12}\n", "name", width,
                       "gpu_hours", "sm_active_h", "gpu_cost", "total_cost", "sm_eff", "waste_h");
    double gh = 0, sm = 0, gc = 0, tc = 0, wh = 0;
    for (const AllocationRow& row : set.rows) {
      out += fmt::format("  {:<{}}  {:>12.2f} {:>12.2f} {:>12.2f} {:>12.2f} {:>7.1f}% {:>12.2f}\n",
                         row.name, width, row.gpu_hours(), row.sm_active_gpu_hours, row.gpu_cost(),
                         row.total_cost(), 100 * row.sm_efficiency(),
                         Sum(row.waste_gpu_hours_by_cause));
      gh += row.gpu_hours();
      sm += row.sm_active_gpu_hours;
      gc += row.gpu_cost();
      tc += row.total_cost();
      wh += Sum(row.waste_gpu_hours_by_cause);
    }
    out += fmt::format("  {:<{}}  {:>12.2f} {:>12.2f} {:>12.2f} {:>12.2f} {:>8} {:>12.2f}\n",
                       "total", width, gh, sm, gc, tc, "", wh);
  }
  return out;
}

}  // namespace steward::cost

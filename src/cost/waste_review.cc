#include "cost/waste_review.h"

#include <fmt/format.h>

#include <algorithm>

#include "cost/allocation_format.h"

namespace steward::cost {

Result<WasteReview> ReviewWaste(const Ledger& ledger, const std::string& window,
                                const std::vector<AggregateProperty>& aggregate, int top_n,
                                int64_t now) {
  AllocationQuery q;
  q.window = window;
  q.aggregate = aggregate;
  q.accumulate = true;
  q.include_idle = false;
  STEWARD_ASSIGN_OR_RETURN(AllocationResult result, QueryAllocations(ledger, q, now));
  WasteReview review;
  review.window = result.window;
  for (const AggregateProperty& p : aggregate) {
    review.aggregate += (review.aggregate.empty() ? "" : ",") + p.ToString();
  }
  if (review.aggregate.empty()) review.aggregate = "workload";
  const AllocationSet& set = result.sets.front();
  review.idle_gpu_hours = set.idle_gpu_hours;
  review.idle_cost = set.idle_cost;
  review.capacity_gpu_hours = set.capacity_gpu_hours;
  for (const AllocationRow& row : set.rows) {
    if (row.is_idle) continue;
    WasteReviewRow r;
    r.name = row.name;
    r.allocated_gpu_hours = row.allocated_gpu_hours;
    r.sm_active_gpu_hours = row.sm_active_gpu_hours;
    r.unused_gpu_hours = std::max(0.0, row.allocated_gpu_hours - row.sm_active_gpu_hours);
    r.gpu_cost = row.gpu_cost_allocated;
    r.sm_efficiency = row.sm_efficiency();
    r.waste_gpu_hours_by_cause = row.waste_gpu_hours_by_cause;
    r.waste_cost_by_cause = row.waste_cost_by_cause;
    double best = 0;
    for (const auto& [cause, h] : r.waste_gpu_hours_by_cause) {
      r.waste_gpu_hours += h;
      if (h > best) {
        best = h;
        r.top_cause = cause;
      }
    }
    for (const auto& [cause, c] : r.waste_cost_by_cause) r.waste_cost += c;
    r.unattributed_gpu_hours = std::max(0.0, r.unused_gpu_hours - r.waste_gpu_hours);
    review.allocated_gpu_hours += r.allocated_gpu_hours;
    review.sm_active_gpu_hours += r.sm_active_gpu_hours;
    review.waste_gpu_hours += r.waste_gpu_hours;
    review.waste_cost += r.waste_cost;
    review.rows.push_back(std::move(r));
  }
  std::sort(review.rows.begin(), review.rows.end(),
            [](const WasteReviewRow& a, const WasteReviewRow& b) {
              if (a.waste_cost != b.waste_cost) return a.waste_cost > b.waste_cost;
              if (a.waste_gpu_hours != b.waste_gpu_hours)
                return a.waste_gpu_hours > b.waste_gpu_hours;
              return a.name < b.name;
            });
  review.total_aggregates = static_cast<int>(review.rows.size());
  if (top_n > 0 && static_cast<int>(review.rows.size()) > top_n) review.rows.resize(top_n);
  for (size_t i = 0; i < review.rows.size(); ++i) review.rows[i].rank = static_cast<int>(i) + 1;
  return review;
}

nlohmann::json WasteReviewToJson(const WasteReview& review) {
  using nlohmann::json;
  const auto n = OpenCostNumber;
  json rows = json::array();
  for (const WasteReviewRow& r : review.rows) {
    json waste_h = json::object(), waste_c = json::object();
    for (const auto& [c, h] : r.waste_gpu_hours_by_cause) waste_h[c] = n(h);
    for (const auto& [c, v] : r.waste_cost_by_cause) waste_c[c] = n(v);
    rows.push_back({{"rank", r.rank},
                    {"name", r.name},
                    {"allocated_gpu_hours", n(r.allocated_gpu_hours)},
                    {"sm_active_gpu_hours", n(r.sm_active_gpu_hours)},
                    {"unused_gpu_hours", n(r.unused_gpu_hours)},
                    {"waste_gpu_hours", n(r.waste_gpu_hours)},
                    {"unattributed_gpu_hours", n(r.unattributed_gpu_hours)},
                    {"gpu_cost", n(r.gpu_cost)},
                    {"waste_cost", n(r.waste_cost)},
                    {"sm_efficiency", n(r.sm_efficiency)},
                    {"waste_gpu_hours_by_cause", waste_h},
                    {"waste_cost_by_cause", waste_c},
                    {"top_cause", r.top_cause}});
  }
  return {
      {"window",
       {{"start", FormatRfc3339(review.window.start)}, {"end", FormatRfc3339(review.window.end)}}},
      {"aggregate", review.aggregate},
      {"total_aggregates", review.total_aggregates},
      {"capacity_gpu_hours", n(review.capacity_gpu_hours)},
      {"allocated_gpu_hours", n(review.allocated_gpu_hours)},
      {"sm_active_gpu_hours", n(review.sm_active_gpu_hours)},
      {"waste_gpu_hours", n(review.waste_gpu_hours)},
      {"waste_cost", n(review.waste_cost)},
      {"idle_gpu_hours", n(review.idle_gpu_hours)},
      {"idle_cost", n(review.idle_cost)},
      {"rows", rows}};
}

std::string WasteReviewToTable(const WasteReview& review, const std::string& currency) {
  std::string out = fmt::format(
      "GPU waste review {} .. {} by {}: allocated {:.1f} GPU-h, real compute (SM-active) "
      "{:.1f} GPU-h ({:.1f}%), waste {:.1f} GPU-h ({:.2f} {}); unallocated idle {:.1f} GPU-h "
      "({:.2f} {})\n",
      FormatRfc3339(review.window.start), FormatRfc3339(review.window.end), review.aggregate,
      review.allocated_gpu_hours, review.sm_active_gpu_hours,
      review.allocated_gpu_hours > 0 ? 100 * review.sm_active_gpu_hours / review.allocated_gpu_hours
                                     : 0.0,
      review.waste_gpu_hours, review.waste_cost, currency, review.idle_gpu_hours, review.idle_cost,
      currency);
  size_t width = 4;
  for (const WasteReviewRow& r : review.rows) width = std::max(width, r.name.size());
  out += fmt::format("{:>4}  {:<{}}  {:>12} {:>12} {:>8} {:>10} {:>12} {:>12}  {}\n", "rank",
                     "name", width, "allocated_h", "sm_active_h", "sm_eff", "waste_h", "waste_cost",
                     "unattrib_h", "top cause");
  for (const WasteReviewRow& r : review.rows) {
    std::string cause = r.top_cause.empty()
                            ? "-"
                            : fmt::format("{} ({:.1f} GPU-h)", r.top_cause,
                                          r.waste_gpu_hours_by_cause.at(r.top_cause));
    out += fmt::format(
        "{:>4}  {:<{}}  {:>12.2f} {:>12.2f} {:>7.1f}% {:>10.2f} {:>12.2f} {:>12.2f}  {}\n", r.rank,
        r.name, width, r.allocated_gpu_hours, r.sm_active_gpu_hours, 100 * r.sm_efficiency,
        r.waste_gpu_hours, r.waste_cost, r.unattributed_gpu_hours, cause);
  }
  out +=
      "unattrib_h: allocated, not SM-active and not waste (compute above the efficiency "
      "target); it ranks nobody.\n";
  return out;
}

}  // namespace steward::cost

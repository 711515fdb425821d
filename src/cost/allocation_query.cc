#include "cost/allocation_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace steward::cost {

std::string_view IdleSharingName(IdleSharing s) {
  switch (s) {
    case IdleSharing::kNone:
      return "none";
    case IdleSharing::kWeighted:
      return "weighted";
    case IdleSharing::kEven:
      return "even";
  }
  return "none";
}

std::string AggregateProperty::ToString() const {
  switch (kind) {
    case Kind::kCluster:
      return "cluster";
    case Kind::kTeam:
      return "team";
    case Kind::kNamespace:
      return "namespace";
    case Kind::kWorkload:
      return "workload";
    case Kind::kGpuModel:
      return "gpu_model";
    case Kind::kLabel:
      return "label:" + label;
  }
  return "";
}

Result<std::vector<AggregateProperty>> ParseAggregate(std::string_view text) {
  std::vector<AggregateProperty> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view tok = text.substr(pos, comma - pos);
    while (!tok.empty() && tok.front() == ' ') tok.remove_prefix(1);
    while (!tok.empty() && tok.back() == ' ') tok.remove_suffix(1);
    pos = comma + 1;
    if (tok.empty()) {
      if (comma == text.size()) break;
      continue;
    }
    AggregateProperty p;
    using K = AggregateProperty::Kind;
    if (tok == "cluster") {
      p.kind = K::kCluster;
    } else if (tok == "team") {
      p.kind = K::kTeam;
    } else if (tok == "namespace") {
      p.kind = K::kNamespace;
    } else if (tok == "workload" || tok == "pod" || tok == "controller") {
      p.kind = K::kWorkload;
    } else if (tok == "gpu_model" || tok == "gpuModel") {
      p.kind = K::kGpuModel;
    } else if (tok.starts_with("label:") && tok.size() > 6) {
      p.kind = K::kLabel;
      p.label = std::string(tok.substr(6));
    } else {
      return Status::InvalidArgument(fmt::format(
          "unknown aggregate '{}' (valid: cluster, team, namespace, workload, gpu_model, "
          "label:KEY)",
          tok));
    }
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

Result<bool> ParseBool(const std::string& name, const std::string& v) {
  if (v == "true" || v == "1" || v == "True" || v == "TRUE") return true;
  if (v == "false" || v == "0" || v == "False" || v == "FALSE" || v.empty()) return false;
  return Status::InvalidArgument(fmt::format("{}={}: expected true or false", name, v));
}

}  // namespace

Result<AllocationQuery> AllocationQueryFromParams(
    const std::map<std::string, std::string>& params) {
  AllocationQuery q;
  auto get = [&](const char* name) -> const std::string* {
    auto it = params.find(name);
    return it == params.end() ? nullptr : &it->second;
  };
  const std::string* window = get("window");
  if (window == nullptr || window->empty()) {
    return Status::InvalidArgument("missing required parameter: window");
  }
  q.window = *window;
  if (const std::string* a = get("aggregate")) {
    STEWARD_ASSIGN_OR_RETURN(q.aggregate, ParseAggregate(*a));
  }
  if (const std::string* s = get("step"); s != nullptr && !s->empty()) {
    auto step = ParseDurationSeconds(*s);
    if (!step.ok()) return step.status().WithContext("step");
    q.step_seconds = *step;
  }
  if (const std::string* a = get("accumulate")) {
    // OpenCost also accepts accumulateBy values; "all" (its default) is the only one here.
    if (*a == "all") {
      q.accumulate = true;
    } else {
      STEWARD_ASSIGN_OR_RETURN(q.accumulate, ParseBool("accumulate", *a));
    }
  }
  if (const std::string* i = get("includeIdle")) {
    STEWARD_ASSIGN_OR_RETURN(q.include_idle, ParseBool("includeIdle", *i));
  }
  if (const std::string* s = get("shareIdle")) {
    if (*s == "even") {
      q.share_idle = IdleSharing::kEven;
    } else if (*s == "weighted") {
      q.share_idle = IdleSharing::kWeighted;
    } else {
      auto b = ParseBool("shareIdle", *s);
      if (!b.ok()) {
        return Status::InvalidArgument(
            fmt::format("shareIdle={}: expected true, false, weighted or even", *s));
      }
      q.share_idle = *b ? IdleSharing::kWeighted : IdleSharing::kNone;
    }
  }
  return q;
}

double AllocationRow::sm_efficiency() const {
  return allocated_gpu_hours > 0 ? sm_active_gpu_hours / allocated_gpu_hours : 0;
}
double AllocationRow::busy_efficiency() const {
  return allocated_gpu_hours > 0 ? busy_gpu_hours / allocated_gpu_hours : 0;
}

namespace {

// An AllocationRow being built, with what "properties shared by every record" needs.
struct RowBuilder {
  AllocationRow row;
  bool any = false;
  bool ns_mixed = false;
  bool team_mixed = false;

  void MergeProperties(const std::optional<std::string>& ns, const std::optional<std::string>& team,
                       const std::map<std::string, std::string>& labels, bool ns_mx, bool team_mx) {
    if (!any) {
      row.namespace_name = ns;
      row.team = team;
      row.labels = labels;
      ns_mixed = ns_mx;
      team_mixed = team_mx;
      any = true;
      return;
    }
    if (ns_mx || row.namespace_name != ns) ns_mixed = true;
    if (team_mx || row.team != team) team_mixed = true;
    for (auto it = row.labels.begin(); it != row.labels.end();) {
      auto o = labels.find(it->first);
      it = (o == labels.end() || o->second != it->second) ? row.labels.erase(it) : std::next(it);
    }
  }

  void AddSpan(int64_t start, int64_t end) {
    if (row.end <= row.start) {
      row.start = start;
      row.end = end;
    } else {
      row.start = std::min(row.start, start);
      row.end = std::max(row.end, end);
    }
  }

  // Adds `other` (a finished row of the same name): accumulation across steps.
  void Merge(const AllocationRow& o, bool o_ns_mixed, bool o_team_mixed) {
    MergeProperties(o.namespace_name, o.team, o.labels, o_ns_mixed, o_team_mixed);
    row.is_idle = o.is_idle;
    row.gpu_shared = row.gpu_shared || o.gpu_shared;
    AddSpan(o.start, o.end);
    for (const auto& [m, h] : o.gpu_hours_by_model) row.gpu_hours_by_model[m] += h;
    row.allocated_gpu_hours += o.allocated_gpu_hours;
    row.busy_gpu_hours += o.busy_gpu_hours;
    row.sm_active_gpu_hours += o.sm_active_gpu_hours;
    row.gpu_cost_allocated += o.gpu_cost_allocated;
    row.idle_gpu_hours += o.idle_gpu_hours;
    row.idle_cost += o.idle_cost;
    for (const auto& [c, h] : o.waste_gpu_hours_by_cause) row.waste_gpu_hours_by_cause[c] += h;
    for (const auto& [c, v] : o.waste_cost_by_cause) row.waste_cost_by_cause[c] += v;
  }

  AllocationRow Finish() {
    if (ns_mixed) row.namespace_name.reset();
    if (team_mixed) row.team.reset();
    return std::move(row);
  }
};

struct StepBuilder {
  Window window;
  std::map<std::string, RowBuilder> rows;
  double idle_gpu_hours = 0;
  double idle_cost = 0;
  double capacity_gpu_hours = 0;
  int64_t data_start = 0, data_end = 0;  // Span of windows with capacity, for __idle__.
};

std::string KeyOf(const std::vector<AggregateProperty>& props, const AllocationRecord& r,
                  const std::string& cluster) {
  if (props.empty()) return r.workload;
  std::string key;
  bool all_unallocated = true;
  for (const AggregateProperty& p : props) {
    std::string v;
    using K = AggregateProperty::Kind;
    switch (p.kind) {
      case K::kCluster:
        v = cluster;
        break;
      case K::kTeam:
        v = r.team;
        break;
      case K::kNamespace:
        v = r.namespace_name;
        break;
      case K::kWorkload:
        v = r.workload;
        break;
      case K::kGpuModel:
        v = r.gpu_model;
        break;
      case K::kLabel: {
        auto it = r.labels.find(p.label);
        if (it != r.labels.end()) v = it->second;
        break;
      }
    }
    if (v.empty()) {
      v = kUnallocatedName;
    } else {
      all_unallocated = false;
    }
    if (!key.empty()) key += '/';
    key += v;
  }
  return all_unallocated ? std::string(kUnallocatedName) : key;
}

// Shares (or keeps apart) the step's idle, then returns its sorted rows.
AllocationSet FinishStep(StepBuilder& sb, const AllocationQuery& q) {
  AllocationSet set;
  set.window = sb.window;
  set.idle_gpu_hours = sb.idle_gpu_hours;
  set.idle_cost = sb.idle_cost;
  set.capacity_gpu_hours = sb.capacity_gpu_hours;
  double total_cost = 0;
  for (auto& [name, rb] : sb.rows) total_cost += rb.row.gpu_cost_allocated;
  const bool has_idle = sb.idle_cost > 0 || sb.idle_gpu_hours > 0;
  bool shared = false;
  if (has_idle && q.share_idle == IdleSharing::kWeighted && total_cost > 0) {
    for (auto& [name, rb] : sb.rows) {
      const double coeff = rb.row.gpu_cost_allocated / total_cost;
      rb.row.idle_gpu_hours += sb.idle_gpu_hours * coeff;
      rb.row.idle_cost += sb.idle_cost * coeff;
    }
    shared = true;
  } else if (has_idle && q.share_idle == IdleSharing::kEven && !sb.rows.empty()) {
    const double coeff = 1.0 / static_cast<double>(sb.rows.size());
    for (auto& [name, rb] : sb.rows) {
      rb.row.idle_gpu_hours += sb.idle_gpu_hours * coeff;
      rb.row.idle_cost += sb.idle_cost * coeff;
    }
    shared = true;
  }
  const bool idle_row =
      has_idle && !shared && (q.include_idle || q.share_idle != IdleSharing::kNone);
  for (auto& [name, rb] : sb.rows) set.rows.push_back(rb.Finish());
  if (idle_row) {
    AllocationRow idle;
    idle.name = kIdleName;
    idle.is_idle = true;
    idle.start = sb.data_start;
    idle.end = sb.data_end;
    idle.idle_gpu_hours = sb.idle_gpu_hours;
    idle.idle_cost = sb.idle_cost;
    set.rows.push_back(std::move(idle));
  }
  std::sort(set.rows.begin(), set.rows.end(),
            [](const AllocationRow& a, const AllocationRow& b) { return a.name < b.name; });
  return set;
}

}  // namespace

Result<int64_t> LedgerNow(const Ledger& ledger, int64_t fallback) {
  STEWARD_ASSIGN_OR_RETURN(std::optional<int64_t> end, ledger.LatestEnd());
  return end.value_or(fallback);
}

Result<AllocationResult> QueryAllocations(const Ledger& ledger, const AllocationQuery& query,
                                          int64_t now) {
  auto parsed = ParseOpenCostWindow(query.window, now);
  if (!parsed.ok()) return parsed.status().WithContext("window");
  const Window window = *parsed;
  if (window.empty()) {
    return Status::InvalidArgument(fmt::format("window '{}' is empty", query.window));
  }
  const int64_t step = query.step_seconds.value_or(window.seconds());
  if (step <= 0) return Status::InvalidArgument("step must be > 0");
  const int64_t num_steps = (window.seconds() + step - 1) / step;
  if (num_steps > kMaxSteps) {
    return Status::InvalidArgument(
        fmt::format("window / step gives {} steps; at most {} are allowed", num_steps, kMaxSteps));
  }
  std::vector<StepBuilder> steps(static_cast<size_t>(num_steps));
  for (int64_t k = 0; k < num_steps; ++k) {
    steps[k].window = {window.start + k * step,
                       std::min(window.start + (k + 1) * step, window.end)};
  }
  const std::string& cluster = ledger.cluster();
  Status s = ledger.ForEachWindow(window, [&](const StoredWindow& sw) {
    const int64_t lo = std::max(sw.window.start, window.start);
    const int64_t hi = std::min(sw.window.end, window.end);
    if (hi <= lo) return;
    const int64_t k0 = (lo - window.start) / step;
    const int64_t k1 = (hi - 1 - window.start) / step;
    std::map<std::string_view, double> allocated_by_model;
    for (const AllocationRecord& r : sw.records)
      allocated_by_model[r.gpu_model] += r.allocated_gpu_hours;
    for (int64_t k = k0; k <= k1; ++k) {
      StepBuilder& sb = steps[k];
      const int64_t overlap = sw.window.OverlapSeconds(sb.window);
      if (overlap <= 0) continue;
      const double f = static_cast<double>(overlap) / static_cast<double>(sw.window.seconds());
      const int64_t span_start = std::max(sw.window.start, sb.window.start);
      const int64_t span_end = std::min(sw.window.end, sb.window.end);
      for (const StoredModel& m : sw.models) {
        auto it = allocated_by_model.find(m.gpu_model);
        const double allocated = it == allocated_by_model.end() ? 0 : it->second;
        // Validation bounds allocated by capacity up to a float slack; clamp that slack.
        const double idle = std::max(0.0, m.capacity_gpu_hours - allocated) * f;
        sb.idle_gpu_hours += idle;
        sb.idle_cost += idle * m.usd_per_gpu_hour;
        sb.capacity_gpu_hours += m.capacity_gpu_hours * f;
      }
      if (sb.data_end <= sb.data_start) {
        sb.data_start = span_start;
        sb.data_end = span_end;
      } else {
        sb.data_start = std::min(sb.data_start, span_start);
        sb.data_end = std::max(sb.data_end, span_end);
      }
      for (const AllocationRecord& r : sw.records) {
        const std::string key = KeyOf(query.aggregate, r, cluster);
        RowBuilder& rb = sb.rows[key];
        rb.row.name = key;
        rb.MergeProperties(r.namespace_name, r.team, r.labels, false, false);
        rb.AddSpan(span_start, span_end);
        const double price = sw.PriceOf(r.gpu_model);
        const double hours = r.allocated_gpu_hours * f;
        rb.row.gpu_hours_by_model[r.gpu_model] += hours;
        if (r.gpu_share < 1) rb.row.gpu_shared = true;
        rb.row.allocated_gpu_hours += hours;
        rb.row.busy_gpu_hours += r.busy_gpu_hours * f;
        rb.row.sm_active_gpu_hours += r.sm_active_gpu_hours * f;
        rb.row.gpu_cost_allocated += hours * price;
        for (const auto& [cause, h] : r.waste_gpu_hours_by_cause) {
          rb.row.waste_gpu_hours_by_cause[cause] += h * f;
          rb.row.waste_cost_by_cause[cause] += h * f * price;
        }
      }
    }
  });
  STEWARD_RETURN_IF_ERROR(s);

  AllocationResult result;
  result.window = window;
  result.cluster = cluster;
  for (StepBuilder& sb : steps) result.sets.push_back(FinishStep(sb, query));
  if (query.accumulate && result.sets.size() > 1) {
    // Idle is shared per step first (as OpenCost shares per AllocationSet), then summed.
    std::map<std::string, RowBuilder> merged;
    AllocationSet all;
    all.window = window;
    for (const AllocationSet& set : result.sets) {
      all.idle_gpu_hours += set.idle_gpu_hours;
      all.idle_cost += set.idle_cost;
      all.capacity_gpu_hours += set.capacity_gpu_hours;
      for (const AllocationRow& row : set.rows) {
        RowBuilder& rb = merged[row.name];
        rb.row.name = row.name;
        rb.Merge(row, !row.namespace_name.has_value(), !row.team.has_value());
      }
    }
    for (auto& [name, rb] : merged) all.rows.push_back(rb.Finish());
    result.sets.assign(1, std::move(all));
  }
  return result;
}

}  // namespace steward::cost

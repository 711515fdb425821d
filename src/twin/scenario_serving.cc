// The serving parts of a scenario (issue 19, docs/tidal.md): an inference generator's traffic,
// capacity, latency, SLO and autoscaler, and the tidal lending section. Kept apart from
// scenario.cc, which parses everything else, through the same Reader.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "twin/csv.h"
#include "twin/scenario.h"
#include "twin/scenario_sections.h"

namespace steward::twin {

bool Scenario::UsesServing() const {
  if (tidal.enabled) return true;
  return std::any_of(generators.begin(), generators.end(),
                     [](const GeneratorSpec& g) { return g.serving.enabled(); });
}

namespace scenario_yaml {
namespace {

Status InRange(const Reader& r, const YAML::Node& at, const std::string& field, double v, double lo,
               double hi, std::string_view what) {
  if (v >= lo && v <= hi) return Status::Ok();
  return r.Error(at, field, what);
}

Status ParseTraffic(const Reader& r, const YAML::Node& n, const std::string& path, TrafficSpec* t) {
  STEWARD_RETURN_IF_ERROR(r.CheckKeys(
      n, path,
      {"peak_rps", "trough_fraction", "peak_hour", "weekend_factor", "noise", "noise_minutes",
       "bursts_per_day", "burst_factor", "burst_minutes", "csv", "csv_scale"}));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "peak_rps", path, &t->peak_rps));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "trough_fraction", path, &t->trough_fraction));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "peak_hour", path, &t->peak_hour));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "weekend_factor", path, &t->weekend_factor));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "noise", path, &t->noise));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "noise_minutes", path, &t->noise_minutes));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "bursts_per_day", path, &t->bursts_per_day));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "burst_factor", path, &t->burst_factor));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "burst_minutes", path, &t->burst_minutes));
  std::string csv;
  STEWARD_RETURN_IF_ERROR(r.Get(n, "csv", path, &csv));
  t->csv = csv;
  STEWARD_RETURN_IF_ERROR(r.Get(n, "csv_scale", path, &t->csv_scale));
  if (csv.empty()) {
    STEWARD_RETURN_IF_ERROR(
        Positive(r, n["peak_rps"] ? n["peak_rps"] : n, path + ".peak_rps", t->peak_rps));
  } else if (n["peak_rps"]) {
    return r.Error(n["peak_rps"], path + ".peak_rps",
                   "a replayed csv replaces the curve: give csv or peak_rps, not both");
  }
  STEWARD_RETURN_IF_ERROR(InRange(r, n["trough_fraction"], path + ".trough_fraction",
                                  t->trough_fraction, 1e-9, 1, "must lie in (0, 1]"));
  STEWARD_RETURN_IF_ERROR(
      InRange(r, n["peak_hour"], path + ".peak_hour", t->peak_hour, 0, 24, "must lie in [0, 24]"));
  STEWARD_RETURN_IF_ERROR(
      Positive(r, n["weekend_factor"], path + ".weekend_factor", t->weekend_factor, true));
  STEWARD_RETURN_IF_ERROR(Positive(r, n["noise"], path + ".noise", t->noise, true));
  STEWARD_RETURN_IF_ERROR(
      Positive(r, n["noise_minutes"], path + ".noise_minutes", t->noise_minutes));
  STEWARD_RETURN_IF_ERROR(
      Positive(r, n["bursts_per_day"], path + ".bursts_per_day", t->bursts_per_day, true));
  STEWARD_RETURN_IF_ERROR(Positive(r, n["burst_factor"], path + ".burst_factor", t->burst_factor));
  STEWARD_RETURN_IF_ERROR(InRange(r, n["burst_minutes"], path + ".burst_minutes", t->burst_minutes,
                                  1e-9, 1440, "must lie in (0, 1440]"));
  STEWARD_RETURN_IF_ERROR(Positive(r, n["csv_scale"], path + ".csv_scale", t->csv_scale));
  return Status::Ok();
}

}  // namespace

Status ParseAutoscaler(const Reader& r, const YAML::Node& n, const std::string& path,
                       AutoscalerSpec* a) {
  STEWARD_RETURN_IF_ERROR(r.CheckKeys(
      n, path,
      {"target_utilization", "sync_seconds", "tolerance", "scale_up_pods", "scale_up_percent",
       "scale_up_period_seconds", "scale_down_stabilization_seconds"}));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "target_utilization", path, &a->target_utilization));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "sync_seconds", path, &a->sync_seconds));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "tolerance", path, &a->tolerance));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "scale_up_pods", path, &a->scale_up_pods));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "scale_up_percent", path, &a->scale_up_percent));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "scale_up_period_seconds", path, &a->scale_up_period_seconds));
  STEWARD_RETURN_IF_ERROR(
      r.Get(n, "scale_down_stabilization_seconds", path, &a->scale_down_stabilization_seconds));
  STEWARD_RETURN_IF_ERROR(InRange(r, n["target_utilization"], path + ".target_utilization",
                                  a->target_utilization, 1e-9, 1, "must lie in (0, 1]"));
  // At least a second: a sync per simulated microsecond would stall the run.
  STEWARD_RETURN_IF_ERROR(InRange(r, n["sync_seconds"], path + ".sync_seconds", a->sync_seconds, 1,
                                  3600, "must lie in [1, 3600]"));
  STEWARD_RETURN_IF_ERROR(
      InRange(r, n["tolerance"], path + ".tolerance", a->tolerance, 0, 1, "must lie in [0, 1]"));
  STEWARD_RETURN_IF_ERROR(
      Positive(r, n["scale_up_pods"], path + ".scale_up_pods", a->scale_up_pods, true));
  STEWARD_RETURN_IF_ERROR(
      Positive(r, n["scale_up_percent"], path + ".scale_up_percent", a->scale_up_percent, true));
  STEWARD_RETURN_IF_ERROR(Positive(r, n["scale_up_period_seconds"],
                                   path + ".scale_up_period_seconds", a->scale_up_period_seconds));
  // The HPA validates the stabilization window at <= 3600 s (tidal-facts.md §1.2).
  return InRange(r, n["scale_down_stabilization_seconds"],
                 path + ".scale_down_stabilization_seconds", a->scale_down_stabilization_seconds, 0,
                 3600, "must be less than or equal to 3600");
}

Status ParseServing(const Reader& r, const YAML::Node& n, const std::string& path,
                    GeneratorSpec* g) {
  ServingSpec& s = g->serving;
  const YAML::Node traffic = n["traffic"];
  if (!traffic) {
    for (const char* key : {"capacity_per_replica", "latency", "slo", "autoscaler"})
      if (n[key])
        return r.Error(n[key], path + "." + key, "needs a traffic model (traffic:) beside it");
    return Status::Ok();
  }
  if (g->kind != model::WorkloadKind::kInference)
    return r.Error(traffic, path + ".traffic", "only inference services take traffic");
  STEWARD_RETURN_IF_ERROR(ParseTraffic(r, traffic, path + ".traffic", &s.traffic));
  STEWARD_RETURN_IF_ERROR(r.Get(n, "capacity_per_replica", path, &s.capacity_per_replica, true));
  STEWARD_RETURN_IF_ERROR(Positive(r, n["capacity_per_replica"], path + ".capacity_per_replica",
                                   s.capacity_per_replica));
  if (YAML::Node l = n["latency"]) {
    const std::string lp = path + ".latency";
    STEWARD_RETURN_IF_ERROR(r.CheckKeys(l, lp, {"model", "base_p99_ms", "timeout_ms"}));
    std::string model = "mm1";
    STEWARD_RETURN_IF_ERROR(r.Get(l, "model", lp, &model));
    if (model != "mm1")
      return r.Error(l["model"], lp + ".model",
                     fmt::format("unknown latency model '{}' (mm1)", model));
    STEWARD_RETURN_IF_ERROR(r.Get(l, "base_p99_ms", lp, &s.latency.base_p99_ms));
    STEWARD_RETURN_IF_ERROR(r.Get(l, "timeout_ms", lp, &s.latency.timeout_ms));
    STEWARD_RETURN_IF_ERROR(
        Positive(r, l["base_p99_ms"], lp + ".base_p99_ms", s.latency.base_p99_ms));
    if (!(s.latency.timeout_ms > s.latency.base_p99_ms))
      return r.Error(l["timeout_ms"] ? l["timeout_ms"] : l, lp + ".timeout_ms",
                     "must be greater than base_p99_ms");
  }
  if (YAML::Node slo = n["slo"]) {
    const std::string sp = path + ".slo";
    STEWARD_RETURN_IF_ERROR(r.CheckKeys(slo, sp, {"p99_ms"}));
    STEWARD_RETURN_IF_ERROR(r.Get(slo, "p99_ms", sp, &s.slo_p99_ms, true));
    STEWARD_RETURN_IF_ERROR(Positive(r, slo["p99_ms"], sp + ".p99_ms", s.slo_p99_ms));
  }
  if (YAML::Node a = n["autoscaler"])
    STEWARD_RETURN_IF_ERROR(ParseAutoscaler(r, a, path + ".autoscaler", &s.autoscaler));
  return Status::Ok();
}

Status ParseTidal(const Reader& r, const YAML::Node& t, TidalSpec* out) {
  const std::string path = "tidal";
  STEWARD_RETURN_IF_ERROR(
      r.CheckKeys(t, path,
                  {"enabled", "lend_from", "lend_to", "lend_to_namespace", "reserve", "forecast",
                   "lead_time", "period_minutes", "grow_back", "lend_by"}));
  out->line = t.Mark().line + 1;
  out->enabled = true;
  STEWARD_RETURN_IF_ERROR(r.Get(t, "enabled", path, &out->enabled));
  STEWARD_RETURN_IF_ERROR(r.Get(t, "lend_from", path, &out->lend_from));
  STEWARD_RETURN_IF_ERROR(r.Get(t, "lend_to", path, &out->lend_to, true));
  STEWARD_RETURN_IF_ERROR(r.Get(t, "lend_to_namespace", path, &out->lend_to_namespace));
  if (YAML::Node by = t["lend_by"]) {
    std::string v;
    STEWARD_RETURN_IF_ERROR(r.Scalar(by, path + ".lend_by", &v));
    if (v != "nominal" && v != "lending-limit")
      return r.Error(by, path + ".lend_by", "must be 'nominal' or 'lending-limit'");
    out->lend_by_lending_limit = v == "lending-limit";
  }
  if (YAML::Node res = t["reserve"]) {
    std::string text;
    STEWARD_RETURN_IF_ERROR(r.Scalar(res, path + ".reserve", &text));
    char* end = nullptr;
    const double gpus = std::strtod(text.c_str(), &end);
    if (text == "hpa-step") {
      out->reserve_gpus = -1;
    } else if (text.empty() || end != text.c_str() + text.size() || !(gpus >= 0 && gpus <= 1e6) ||
               gpus != static_cast<int>(gpus)) {
      return r.Error(res, path + ".reserve", "must be 'hpa-step' or a whole number of GPUs >= 0");
    } else {
      out->reserve_gpus = gpus;
    }
  }
  if (YAML::Node f = t["forecast"]) {
    const std::string fp = path + ".forecast";
    STEWARD_RETURN_IF_ERROR(r.CheckKeys(f, fp, {"days", "bucket_minutes"}));
    STEWARD_RETURN_IF_ERROR(r.Get(f, "days", fp, &out->forecast_days));
    STEWARD_RETURN_IF_ERROR(r.Get(f, "bucket_minutes", fp, &out->forecast_bucket_minutes));
    STEWARD_RETURN_IF_ERROR(
        InRange(r, f["days"], fp + ".days", out->forecast_days, 1, 28, "must lie in [1, 28]"));
    const double b = out->forecast_bucket_minutes;
    if (!(b >= 1 && b <= 1440 && static_cast<int>(b) == b && 1440 % static_cast<int>(b) == 0))
      return r.Error(f["bucket_minutes"], fp + ".bucket_minutes",
                     "must be a whole number of minutes that divides a day (1440)");
  }
  if (YAML::Node l = t["lead_time"]) {
    const std::string lp = path + ".lead_time";
    STEWARD_RETURN_IF_ERROR(r.CheckKeys(l, lp, {"save_seconds", "restart_seconds"}));
    STEWARD_RETURN_IF_ERROR(r.Get(l, "save_seconds", lp, &out->save_seconds));
    STEWARD_RETURN_IF_ERROR(r.Get(l, "restart_seconds", lp, &out->restart_seconds));
    STEWARD_RETURN_IF_ERROR(
        Positive(r, l["save_seconds"], lp + ".save_seconds", out->save_seconds, true));
    if (l["restart_seconds"])
      STEWARD_RETURN_IF_ERROR(
          Positive(r, l["restart_seconds"], lp + ".restart_seconds", out->restart_seconds, true));
  }
  STEWARD_RETURN_IF_ERROR(r.Get(t, "grow_back", path, &out->grow_back));
  STEWARD_RETURN_IF_ERROR(r.Get(t, "period_minutes", path, &out->period_minutes));
  return InRange(r, t["period_minutes"], path + ".period_minutes", out->period_minutes, 0.25, 1440,
                 "must lie in [0.25, 1440]");
}

Status ValidateTidal(const Reader& r, const YAML::Node& root, Scenario* s) {
  TidalSpec& t = s->tidal;
  if (!t.enabled) return Status::Ok();
  const YAML::Node n = root["tidal"];
  // The serving queue: given, or the one queue the traffic services name.
  std::string from;
  for (const GeneratorSpec& g : s->generators) {
    if (!g.serving.enabled()) continue;
    const std::string q = g.queue.empty() ? g.team : g.queue;
    if (!from.empty() && from != q && t.lend_from.empty())
      return r.Error(n, "tidal.lend_from",
                     fmt::format("traffic services name queues '{}' and '{}': say which one "
                                 "lends",
                                 from, q));
    from = q;
  }
  if (from.empty())
    return r.Error(n, "tidal", "lends a serving fleet's trough: no generator has traffic:");
  if (t.lend_from.empty()) t.lend_from = from;
  if (t.lend_from == t.lend_to)
    return r.Error(n["lend_to"], "tidal.lend_to", "must differ from lend_from");
  // A lendingLimit is a Kueue ClusterQueue's; and a service admitted at its peak holds its
  // quota through the trough, so its queue would have nothing unused to lend.
  if (t.lend_by_lending_limit && s->policies.governance.empty())
    return r.Error(n["lend_by"], "tidal.lend_by",
                   "lending-limit lends through a Kueue cohort: needs policies.governance "
                   "(admission kueue)");
  if (t.lend_by_lending_limit && !s->policies.serving_per_replica)
    return r.Error(n["lend_by"], "tidal.lend_by",
                   "lending-limit needs policies.serving_admission: per-replica (a service "
                   "admitted at its peak holds its quota through the trough)");
  // Under fifo-quota the queues are the teams'; under kueue the ClusterQueues are checked when
  // the twin starts (the controller reports an unknown one).
  if (s->policies.governance.empty()) {
    for (const char* key : {"lend_from", "lend_to"}) {
      const std::string& q = key == std::string_view("lend_to") ? t.lend_to : t.lend_from;
      const int team = s->FindTeam(q);
      if (team < 0)
        return r.Error(n[key] ? n[key] : n, fmt::format("tidal.{}", key),
                       fmt::format("no team (fifo-quota queue) '{}'", q));
      if (&q == &t.lend_to && t.lend_to_namespace.empty())
        t.lend_to_namespace = s->teams[team].namespace_name;
    }
  }
  if (t.lend_to_namespace.empty()) t.lend_to_namespace = t.lend_to;
  return Status::Ok();
}

Status LoadTrafficCsvs(Scenario* s) {
  for (GeneratorSpec& g : s->generators) {
    TrafficSpec& t = g.serving.traffic;
    if (t.csv.empty()) continue;
    STEWARD_ASSIGN_OR_RETURN(CsvReader csv, CsvReader::Open(t.csv));
    const int sec = csv.Column("seconds"), rps = csv.Column("rps");
    if (sec < 0 || rps < 0)
      return Status::InvalidArgument(
          fmt::format("{}:1: traffic csv needs the columns seconds and rps", csv.file()));
    t.points.clear();
    while (csv.Next()) {
      const double at = csv.Number(sec), rate = csv.Number(rps);
      STEWARD_RETURN_IF_ERROR(csv.status());
      if (rate < 0) return csv.Error(rps, "rps must be >= 0");
      if (!t.points.empty() && at <= t.points.back().first)
        return csv.Error(sec, "seconds must increase from row to row");
      t.points.emplace_back(at, rate);
    }
    STEWARD_RETURN_IF_ERROR(csv.status());
    if (t.points.empty())
      return Status::InvalidArgument(fmt::format("{}: traffic csv has no rows", csv.file()));
  }
  return Status::Ok();
}

}  // namespace scenario_yaml
}  // namespace steward::twin

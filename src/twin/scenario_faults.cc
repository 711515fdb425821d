// A scenario's fault model: XID rates (Llama 3 defaults), rack events, driver rollouts, stack
// versions and scheduled faults.
#include <fmt/format.h>

#include <algorithm>

#include "model/xid_catalog.h"
#include "twin/scenario_sections.h"

namespace steward::twin {
namespace scenario_yaml {
namespace {

Status ParseXid(const Reader& r, const YAML::Node& n, const std::string& field, int* xid) {
  STEWARD_RETURN_IF_ERROR(r.Scalar(n, field, xid));
  if (model::XidCatalog::Builtin().Find(*xid) == nullptr)
    return r.Error(n, field,
                   fmt::format("XID {} is not in the catalog (steward health xid)", *xid));
  return Status::Ok();
}

// `gated: true`, or a mapping of GatedRolloutSpec's fields (which turns it on).
Status ParseGated(const Reader& r, const YAML::Node& g, const std::string& path,
                  GatedRolloutSpec* out) {
  if (!g.IsMap()) return r.Scalar(g, path, &out->enabled);
  out->enabled = true;
  STEWARD_RETURN_IF_ERROR(
      r.CheckKeys(g, path,
                  {"canary_nodes", "soak_hours", "max_parallel", "max_xid_rate_delta",
                   "min_schedulable_gpus", "max_job_failure_rate", "plan", "human"}));
  if (const YAML::Node h = g["human"]) {
    const std::string field = path + ".human";
    if (!h.IsMap()) return r.Error(h, field, "must be a mapping {answer, after_hours}");
    STEWARD_RETURN_IF_ERROR(r.CheckKeys(h, field, {"answer", "after_hours"}));
    GatedRolloutSpec::HumanAnswer human;
    std::string answer;
    STEWARD_RETURN_IF_ERROR(r.Get(h, "answer", field, &answer, /*required=*/true));
    if (answer != "resume" && answer != "abort")
      return r.Error(h["answer"], field + ".answer", "must be resume or abort");
    human.resume = answer == "resume";
    STEWARD_RETURN_IF_ERROR(r.Get(h, "after_hours", field, &human.after_hours));
    STEWARD_RETURN_IF_ERROR(
        Positive(r, h["after_hours"], field + ".after_hours", human.after_hours, true));
    out->human = human;
  }
  if (const YAML::Node plan = g["plan"]) {
    // The plan file carries batches, budgets and gates: the entry's own would be ignored.
    for (const char* key : {"canary_nodes", "soak_hours", "max_parallel", "max_xid_rate_delta",
                            "min_schedulable_gpus", "max_job_failure_rate"})
      if (g[key])
        return r.Error(g[key], path + "." + key, "set it in the plan file (gated.plan is given)");
    std::string file;
    STEWARD_RETURN_IF_ERROR(r.Scalar(plan, path + ".plan", &file));
    if (file.empty()) return r.Error(plan, path + ".plan", "must name a rollout plan file");
    out->plan = file;
    out->plan_line = plan.Mark().line + 1;
    return Status::Ok();
  }
  STEWARD_RETURN_IF_ERROR(r.Get(g, "canary_nodes", path, &out->canary_nodes));
  if (out->canary_nodes < 1)
    return r.Error(g["canary_nodes"], path + ".canary_nodes", "must be >= 1");
  STEWARD_RETURN_IF_ERROR(r.Get(g, "soak_hours", path, &out->soak_hours));
  STEWARD_RETURN_IF_ERROR(
      Positive(r, g["soak_hours"], path + ".soak_hours", out->soak_hours, true));
  STEWARD_RETURN_IF_ERROR(r.Get(g, "max_parallel", path, &out->max_parallel));
  if (out->max_parallel < 0)
    return r.Error(g["max_parallel"], path + ".max_parallel", "must be >= 0");
  STEWARD_RETURN_IF_ERROR(r.Get(g, "max_xid_rate_delta", path, &out->max_xid_rate_delta));
  STEWARD_RETURN_IF_ERROR(Positive(r, g["max_xid_rate_delta"], path + ".max_xid_rate_delta",
                                   out->max_xid_rate_delta, true));
  STEWARD_RETURN_IF_ERROR(r.Get(g, "min_schedulable_gpus", path, &out->min_schedulable_gpus));
  if (out->min_schedulable_gpus < 0 || out->min_schedulable_gpus > 1)
    return r.Error(g["min_schedulable_gpus"], path + ".min_schedulable_gpus", "must be 0..1");
  STEWARD_RETURN_IF_ERROR(r.Get(g, "max_job_failure_rate", path, &out->max_job_failure_rate));
  if (out->max_job_failure_rate < 0 || out->max_job_failure_rate > 1)
    return r.Error(g["max_job_failure_rate"], path + ".max_job_failure_rate", "must be 0..1");
  return Status::Ok();
}

}  // namespace

Status ParseFaults(const Reader& r, const YAML::Node& f, FaultSpec* out) {
  STEWARD_RETURN_IF_ERROR(r.CheckKeys(f, "faults",
                                      {"enabled", "other_interruptions_per_gpu_hour", "xids",
                                       "rack_events", "driver_rollouts", "versions", "scheduled"}));
  STEWARD_RETURN_IF_ERROR(r.Get(f, "enabled", "faults", &out->enabled));
  STEWARD_RETURN_IF_ERROR(r.Get(f, "other_interruptions_per_gpu_hour", "faults",
                                &out->other_interruptions_per_gpu_hour));
  STEWARD_RETURN_IF_ERROR(Positive(r, f["other_interruptions_per_gpu_hour"],
                                   "faults.other_interruptions_per_gpu_hour",
                                   out->other_interruptions_per_gpu_hour, true));
  if (YAML::Node x = f["xids"]) {
    if (!x.IsSequence()) return r.Error(x, "faults.xids", "must be a list");
    out->xids.clear();  // A list replaces the default mix.
    for (size_t i = 0; i < x.size(); ++i) {
      const std::string path = fmt::format("faults.xids[{}]", i);
      STEWARD_RETURN_IF_ERROR(r.CheckKeys(x[i], path, {"xid", "per_gpu_hour"}));
      XidRateSpec rate;
      if (!x[i]["xid"]) return r.Error(x[i], path + ".xid", "is required");
      STEWARD_RETURN_IF_ERROR(ParseXid(r, x[i]["xid"], path + ".xid", &rate.xid));
      STEWARD_RETURN_IF_ERROR(r.Get(x[i], "per_gpu_hour", path, &rate.per_gpu_hour, true));
      STEWARD_RETURN_IF_ERROR(
          Positive(r, x[i]["per_gpu_hour"], path + ".per_gpu_hour", rate.per_gpu_hour, true));
      out->xids.push_back(rate);
    }
  }
  if (YAML::Node k = f["rack_events"]) {
    const std::string path = "faults.rack_events";
    STEWARD_RETURN_IF_ERROR(r.CheckKeys(k, path, {"per_rack_day", "xid"}));
    STEWARD_RETURN_IF_ERROR(r.Get(k, "per_rack_day", path, &out->rack_events.per_rack_day));
    STEWARD_RETURN_IF_ERROR(Positive(r, k["per_rack_day"], path + ".per_rack_day",
                                     out->rack_events.per_rack_day, true));
    if (k["xid"])
      STEWARD_RETURN_IF_ERROR(ParseXid(r, k["xid"], path + ".xid", &out->rack_events.xid));
  }
  if (YAML::Node d = f["driver_rollouts"]) {
    if (!d.IsSequence()) return r.Error(d, "faults.driver_rollouts", "must be a list");
    for (size_t i = 0; i < d.size(); ++i) {
      const std::string path = fmt::format("faults.driver_rollouts[{}]", i);
      const YAML::Node n = d[i];
      STEWARD_RETURN_IF_ERROR(
          r.CheckKeys(n, path,
                      {"pool", "at_hours", "first_node", "nodes", "driver_version",
                       "xid_rate_multiplier", "advertises_gpus", "gated"}));
      DriverRolloutSpec ro;
      ro.line = n.Mark().line + 1;
      STEWARD_RETURN_IF_ERROR(r.Get(n, "pool", path, &ro.pool, true));
      STEWARD_RETURN_IF_ERROR(r.Get(n, "at_hours", path, &ro.at_hours, true));
      STEWARD_RETURN_IF_ERROR(Positive(r, n["at_hours"], path + ".at_hours", ro.at_hours, true));
      STEWARD_RETURN_IF_ERROR(r.Get(n, "first_node", path, &ro.first_node));
      if (ro.first_node < 0) return r.Error(n["first_node"], path + ".first_node", "must be >= 0");
      STEWARD_RETURN_IF_ERROR(r.Get(n, "nodes", path, &ro.nodes));
      if (n["nodes"] && ro.nodes < 1) return r.Error(n["nodes"], path + ".nodes", "must be >= 1");
      STEWARD_RETURN_IF_ERROR(r.Get(n, "driver_version", path, &ro.driver_version, true));
      if (ro.driver_version.empty())
        return r.Error(n["driver_version"], path + ".driver_version", "must not be empty");
      STEWARD_RETURN_IF_ERROR(r.Get(n, "xid_rate_multiplier", path, &ro.xid_rate_multiplier));
      if (ro.xid_rate_multiplier < 1)
        return r.Error(n["xid_rate_multiplier"], path + ".xid_rate_multiplier", "must be >= 1");
      STEWARD_RETURN_IF_ERROR(r.Get(n, "advertises_gpus", path, &ro.advertises_gpus));
      if (n["gated"])
        STEWARD_RETURN_IF_ERROR(ParseGated(r, n["gated"], path + ".gated", &ro.gated));
      out->driver_rollouts.push_back(std::move(ro));
    }
  }
  if (YAML::Node d = f["versions"]) {
    if (!d.IsSequence()) return r.Error(d, "faults.versions", "must be a list");
    for (size_t i = 0; i < d.size(); ++i) {
      const std::string path = fmt::format("faults.versions[{}]", i);
      const YAML::Node n = d[i];
      STEWARD_RETURN_IF_ERROR(r.CheckKeys(
          n, path, {"version", "extra_xids_per_gpu_hour", "xid", "advertises_gpus", "mig_state"}));
      VersionSpec v;
      v.line = n.Mark().line + 1;
      STEWARD_RETURN_IF_ERROR(r.Get(n, "version", path, &v.version, true));
      if (v.version.empty()) return r.Error(n["version"], path + ".version", "must not be empty");
      STEWARD_RETURN_IF_ERROR(
          r.Get(n, "extra_xids_per_gpu_hour", path, &v.extra_xids_per_gpu_hour));
      STEWARD_RETURN_IF_ERROR(Positive(r, n["extra_xids_per_gpu_hour"],
                                       path + ".extra_xids_per_gpu_hour", v.extra_xids_per_gpu_hour,
                                       true));
      if (n["xid"]) STEWARD_RETURN_IF_ERROR(ParseXid(r, n["xid"], path + ".xid", &v.xid));
      STEWARD_RETURN_IF_ERROR(r.Get(n, "advertises_gpus", path, &v.advertises_gpus));
      STEWARD_RETURN_IF_ERROR(r.Get(n, "mig_state", path, &v.mig_state));
      if (v.mig_state != "success" && v.mig_state != "pending" && v.mig_state != "failed")
        return r.Error(n["mig_state"], path + ".mig_state", "must be success, pending or failed");
      out->versions.push_back(std::move(v));
    }
  }
  if (YAML::Node d = f["scheduled"]) {
    if (!d.IsSequence()) return r.Error(d, "faults.scheduled", "must be a list");
    for (size_t i = 0; i < d.size(); ++i) {
      const std::string path = fmt::format("faults.scheduled[{}]", i);
      const YAML::Node n = d[i];
      STEWARD_RETURN_IF_ERROR(r.CheckKeys(n, path, {"at_hours", "node", "gpu", "rack", "xid"}));
      ScheduledFaultSpec sf;
      sf.line = n.Mark().line + 1;
      STEWARD_RETURN_IF_ERROR(r.Get(n, "at_hours", path, &sf.at_hours, true));
      STEWARD_RETURN_IF_ERROR(Positive(r, n["at_hours"], path + ".at_hours", sf.at_hours, true));
      STEWARD_RETURN_IF_ERROR(r.Get(n, "node", path, &sf.node));
      STEWARD_RETURN_IF_ERROR(r.Get(n, "gpu", path, &sf.gpu));
      STEWARD_RETURN_IF_ERROR(r.Get(n, "rack", path, &sf.rack));
      if (sf.node.empty() == !n["rack"])
        return r.Error(n, path, "needs exactly one of node or rack");
      if (n["rack"] && sf.rack < 0) return r.Error(n["rack"], path + ".rack", "must be >= 0");
      if (n["rack"] && n["gpu"])
        return r.Error(n["gpu"], path + ".gpu", "a rack event hits every GPU");
      if (sf.gpu < -1 || sf.gpu >= 64)
        return r.Error(n["gpu"], path + ".gpu", "must be a GPU index, or -1 for every GPU");
      if (!n["xid"]) return r.Error(n, path + ".xid", "is required");
      STEWARD_RETURN_IF_ERROR(ParseXid(r, n["xid"], path + ".xid", &sf.xid));
      out->scheduled.push_back(std::move(sf));
    }
  }
  return Status::Ok();
}

}  // namespace scenario_yaml

std::vector<XidRateSpec> FaultSpec::DefaultXidRates() {
  // GPU-related causes are 58.7% of the 419; the four GPU causes the report lists (faulty GPU
  // incl. NVLink 148, HBM3 72, SRAM 19, GPU system processor 17) share it in proportion, and
  // each cause is split over the XIDs it shows up as (a modelling assumption, see
  // docs/calibration.md).
  const double gpu = kLlama3InterruptionsPerGpuHour * 0.587;
  const double listed = 148 + 72 + 19 + 17;
  const double faulty = gpu * 148 / listed, hbm = gpu * 72 / listed, sram = gpu * 19 / listed,
               gsp = gpu * 17 / listed;
  return {
      {79, faulty * 0.6},  // GPU fell off the bus: reboot.
      {74, faulty * 0.4},  // NVLink error: reset.
      {48, hbm * 0.5},     // Double-bit ECC: reset.
      {94, hbm * 0.3},     // Contained ECC: only the application restarts.
      {64, hbm * 0.2},     // Row remap failure: RMA.
      {95, sram},          // Uncontained error: reset.
      {119, gsp},          // GSP RPC timeout: reset.
  };
}

}  // namespace steward::twin

// The sections of the controllers the CLI attaches to a scenario's twin: remediation, reclaim.
#include <fmt/format.h>

#include <algorithm>

#include "twin/scenario_sections.h"

namespace steward::twin::scenario_yaml {

Status ParseRemediation(const Reader& r, const YAML::Node& m, RemediationSpec* out) {
  const std::string path = "remediation";
  STEWARD_RETURN_IF_ERROR(r.CheckKeys(
      m, path,
      {"enabled", "max_out_fraction", "reset_gpu_hours", "reboot_hours", "investigate_hours",
       "rma_hours", "human_release_hours", "diagnostic_minutes", "repair_failure_probability"}));
  STEWARD_RETURN_IF_ERROR(r.Get(m, "enabled", path, &out->enabled));
  STEWARD_RETURN_IF_ERROR(r.Get(m, "max_out_fraction", path, &out->max_out_fraction));
  if (!(out->max_out_fraction > 0 && out->max_out_fraction <= 1))
    return r.Error(m["max_out_fraction"], path + ".max_out_fraction", "must lie in (0, 1]");
  for (auto [key, v] : {std::pair{"reset_gpu_hours", &out->reset_gpu_hours},
                        std::pair{"reboot_hours", &out->reboot_hours},
                        std::pair{"investigate_hours", &out->investigate_hours},
                        std::pair{"rma_hours", &out->rma_hours},
                        std::pair{"human_release_hours", &out->human_release_hours},
                        std::pair{"diagnostic_minutes", &out->diagnostic_minutes}}) {
    STEWARD_RETURN_IF_ERROR(r.Get(m, key, path, v));
    STEWARD_RETURN_IF_ERROR(Positive(r, m[key], Reader::Join(path, key), *v, true));
  }
  STEWARD_RETURN_IF_ERROR(
      r.Get(m, "repair_failure_probability", path, &out->repair_failure_probability));
  if (out->repair_failure_probability < 0 || out->repair_failure_probability > 1)
    return r.Error(m["repair_failure_probability"], path + ".repair_failure_probability",
                   "must lie in [0, 1]");
  return Status::Ok();
}

Status ParseReclaim(const Reader& r, const YAML::Node& m, ReclaimSpec* out) {
  const std::string path = "reclaim";
  STEWARD_RETURN_IF_ERROR(
      r.CheckKeys(m, path,
                  {"enabled", "dry_run", "notify_after_minutes", "reclaim_after_minutes",
                   "idle_sm_active_below", "kinds", "exempt_labels"}));
  STEWARD_RETURN_IF_ERROR(r.Get(m, "enabled", path, &out->enabled));
  STEWARD_RETURN_IF_ERROR(r.Get(m, "dry_run", path, &out->dry_run));
  STEWARD_RETURN_IF_ERROR(r.Get(m, "notify_after_minutes", path, &out->notify_after_minutes));
  STEWARD_RETURN_IF_ERROR(Positive(r, m["notify_after_minutes"], path + ".notify_after_minutes",
                                   out->notify_after_minutes, true));
  STEWARD_RETURN_IF_ERROR(r.Get(m, "reclaim_after_minutes", path, &out->reclaim_after_minutes));
  if (!(out->reclaim_after_minutes > out->notify_after_minutes))
    return r.Error(m["reclaim_after_minutes"] ? m["reclaim_after_minutes"] : m,
                   path + ".reclaim_after_minutes",
                   fmt::format("must be greater than notify_after_minutes ({}): the notice comes "
                               "before the reclaim",
                               out->notify_after_minutes));
  STEWARD_RETURN_IF_ERROR(r.Get(m, "idle_sm_active_below", path, &out->idle_sm_active_below));
  if (!(out->idle_sm_active_below > 0 && out->idle_sm_active_below <= 1))
    return r.Error(m["idle_sm_active_below"], path + ".idle_sm_active_below", "must lie in (0, 1]");
  if (YAML::Node k = m["kinds"]) {
    out->kinds.clear();  // The scenario's list replaces the default.
    STEWARD_RETURN_IF_ERROR(ParseKinds(r, k, path + ".kinds", &out->kinds));
  }
  if (m["exempt_labels"]) {
    out->exempt_labels.clear();  // The scenario's list replaces the default.
    STEWARD_RETURN_IF_ERROR(ParseLabels(r, m, "exempt_labels", path, &out->exempt_labels));
  }
  return Status::Ok();
}

}  // namespace steward::twin::scenario_yaml

// The scenario's readers of the tidal section and of a service's autoscaler block, shared by the
// twin's scenario parser (scenario_serving.cc) and `steward operate --tidal`
// (operate/tidal_config.h), so a live cluster's tidal configuration reads exactly as a
// scenario's: one parser, the same keys, defaults and errors.
//
//   const scenario_yaml::Reader r("tidal.yaml");
//   TidalSpec t;
//   STEWARD_RETURN_IF_ERROR(scenario_yaml::ParseTidal(r, root["tidal"], &t));
//
// yaml-cpp may throw on a shape error (a scalar read as a map): callers catch YAML::Exception,
// as ParseScenario does. Stateless: thread-compatible.
#pragma once

#include <string>

#include "model/status.h"
#include "twin/scenario.h"
#include "twin/scenario_reader.h"
#include "twin/serving_spec.h"

namespace steward::twin::scenario_yaml {

// `tidal:` (enabled, lend_from, lend_to, lend_to_namespace, lend_by, reserve, forecast,
// lead_time, period_minutes, grow_back) into *out; cross-references are the caller's (ValidateTidal
// for a scenario).
Status ParseTidal(const Reader& r, const YAML::Node& tidal, TidalSpec* out);
// A service's `autoscaler:` block (the HPA's target and policies) at `path`.
Status ParseAutoscaler(const Reader& r, const YAML::Node& autoscaler, const std::string& path,
                       AutoscalerSpec* out);

}  // namespace steward::twin::scenario_yaml

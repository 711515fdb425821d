#include "cli/twin_setup.h"

#include <fmt/format.h>

#include <cstdlib>

#include "rollout/scenario_rollouts.h"

namespace steward::cli {

Result<TwinSetup> CreateTwin(twin::Scenario scenario, const twin::TwinOptions& options,
                             const std::string& remediation_db) {
  TwinSetup setup;
  STEWARD_ASSIGN_OR_RETURN(setup.twin, twin::Twin::Create(std::move(scenario), options));
  STEWARD_ASSIGN_OR_RETURN(setup.remediation,
                           health::AttachRemediation(*setup.twin, remediation_db));
  STEWARD_ASSIGN_OR_RETURN(setup.reclaim, reclaim::AttachReclaim(*setup.twin));
  STEWARD_ASSIGN_OR_RETURN(setup.tidal, tidal::AttachTidal(*setup.twin));
  STEWARD_ASSIGN_OR_RETURN(setup.rollouts, rollout::AttachScenarioRollouts(*setup.twin));
  return setup;
}

Result<SimTime> ParseAt(const std::string& text) {
  if (text.empty()) return Status::InvalidArgument("--at: empty time");
  double scale = 3600;
  std::string num = text;
  switch (text.back()) {
    case 's':
      scale = 1;
      num.pop_back();
      break;
    case 'm':
      scale = 60;
      num.pop_back();
      break;
    case 'h':
      scale = 3600;
      num.pop_back();
      break;
    case 'd':
      scale = 86400;
      num.pop_back();
      break;
    default:
      break;
  }
  char* end = nullptr;
  const double v = std::strtod(num.c_str(), &end);
  if (num.empty() || end != num.c_str() + num.size() || v < 0)
    return Status::InvalidArgument(
        fmt::format("--at: '{}' is not a time (e.g. 36h, 90m, 2d)", text));
  return kSimStart + SecondsF(v * scale);
}

}  // namespace steward::cli

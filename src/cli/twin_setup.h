// How every command builds a twin: the scenario's twin plus the controllers its scenario asks
// for (the remediation loop, idle reclaim, tidal lending, the gated driver rollouts), so `twin
// run`, `twin explain`, `twin nodes`, `health overview`, `serve` and `metrics serve` all simulate
// the same world.
#pragma once

#include <memory>
#include <string>

#include "health/remediation/twin_remediation.h"
#include "model/status.h"
#include "reclaim/idle_reclaimer.h"
#include "rollout/twin_rollout.h"
#include "store/event_log.h"
#include "tidal/twin_tidal.h"
#include "twin/twin.h"

namespace steward::cli {

struct TwinSetup {
  std::unique_ptr<twin::Twin> twin;
  health::TwinRemediation* remediation = nullptr;  // Owned by the twin; null when disabled.
  reclaim::IdleReclaimer* reclaim = nullptr;       // Owned by the twin; null when disabled.
  tidal::TwinTidal* tidal = nullptr;               // Owned by the twin; null without tidal:.
  // The gated faults.driver_rollouts entries (rollout/scenario_rollouts.h); owned by the twin.
  std::vector<rollout::TwinRollout*> rollouts;
};

// `remediation_db`: the remediation store (SQLite); ":memory:" keeps it in memory.
Result<TwinSetup> CreateTwin(twin::Scenario scenario, const twin::TwinOptions& options,
                             const std::string& remediation_db = ":memory:");

// `twin run --events FILE`: the run's lifecycle records go to a SQLite event log (a new run
// in it). Finish the sink's log after the run; `status` holds the first write error.
struct EventLogSink {
  std::unique_ptr<store::EventLog> log;
  Status status;
};
Status AttachEventLog(const std::string& path, const twin::Scenario& scenario,
                      twin::TwinOptions* options, std::shared_ptr<EventLogSink>* sink);

// A simulated time for --at: "36h", "90m", "2d", "3600s" or a plain number of hours.
Result<SimTime> ParseAt(const std::string& text);

}  // namespace steward::cli

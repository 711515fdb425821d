// `steward rollout run PLAN --kubeconfig FILE [--apply]`: the rollout engine on a live cluster
// through live::LiveClusterControl behind control::GatedControl, as `operate` runs its
// controllers: without --apply every label change, cordon and eviction is a plan line and
// nothing is written (not even the state file); with --apply the engine acts and keeps its
// state in --state, resuming it after a crash.
#pragma once

#include <optional>
#include <string>

#include "rollout/engine.h"
#include "rollout/plan.h"
#include "rollout/rollout_store.h"

namespace steward::cli {

struct LiveRolloutFlags {
  std::string kubeconfig, context;
  bool apply = false, once = false;
  double interval = 0;  // Seconds between steps; 0 = the plan's tick.
  double sync_timeout = 60;
  int max_evictions_per_minute = 20;  // The write gate's cap (as `operate`).
  // XID and job-failure gates from Prometheus (DCGM_FI_DEV_XID_ERRORS); empty: none.
  std::string prometheus, prometheus_config;
  double prometheus_timeout = 10;
  // The answer to a paused rollout (--resume / --abort; with --apply only).
  std::optional<rollout::RolloutEngine::Answer> answer;
  std::string why;
};

// Exit code: 0 done (or planned), 1 the rollout failed or an error, 2 configuration.
int RunRolloutLive(const LiveRolloutFlags& flags, const rollout::RolloutPlan& plan,
                   const std::string& commit, rollout::RolloutStore* store);

}  // namespace steward::cli

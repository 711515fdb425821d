// The quota behind each team's queueing waste, for a twin source: the team's queue and its
// nominal GPU quota, from the scenario's fifo-quota teams or, when Kueue policy files govern
// admission (the scenario's `policies.governance` or `--policy`), from the ClusterQueue the
// team's LocalQueue points to.
//
//   AddScenarioQuotas(scenario, policy_files, diagnosis);  // fills queueing_by_team quotas
//
// Cost: reads the policy files once. Thread-safe (no shared state).
#pragma once

#include <string>
#include <vector>

#include "diagnose/diagnosis.h"
#include "twin/scenario.h"

namespace steward::diagnose {

// Rows whose team the scenario or policy does not know keep quota_gpus = -1. A policy file
// that does not load leaves every quota unknown (the twin run has already reported it).
void AddScenarioQuotas(const twin::Scenario& scenario, const std::vector<std::string>& policy_files,
                       Diagnosis& d);

}  // namespace steward::diagnose

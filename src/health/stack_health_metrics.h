// The GPU stack findings (stack_health.h) as Prometheus text (0.0.4), for every /metrics that
// reports them (`steward serve`'s twin, `steward operate --health-port`), so the alert rule
// StewardGPUStackFinding (deploy/prometheus/steward-rules.yaml) reads one shape:
//   steward_stack_findings{check}                 count per check, every check listed (0 = clean)
//   steward_stack_finding{node,check,severity} 1  one per finding
//
// Usage: body += StackFindingsExposition(CheckStackHealth(nodes));
// Cost: O(findings + checks). Pure function; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "health/stack_health.h"

namespace steward::health {

std::string StackFindingsExposition(const std::vector<StackFinding>& findings);

}  // namespace steward::health

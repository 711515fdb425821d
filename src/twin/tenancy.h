// The tenant isolation audit of a scenario (its `tenancy:` section, twin/scenario.h
// TenancySpec): the section's object files plus the twin's own nodes and Kueue policy, audited
// once when the twin is created; the findings go into the report and the dashboard.
//
//   STEWARD_ASSIGN_OR_RETURN(audit::AuditResult r,
//                            AuditScenarioTenancy(scenario, cluster, policy));
//   std::string text = TenancyText(r);
//
// Deterministic (findings sorted); reads the section's files. Errors name the scenario and
// the object file, line and field.
#pragma once

#include <string>

#include "audit/check.h"
#include "govern/policy.h"
#include "model/cluster.h"
#include "model/status.h"
#include "twin/scenario.h"

namespace steward::twin {

// REQUIRES: scenario.tenancy.enabled(). `twin_policy` is the policy the twin admits with
// (added unless the files hold ClusterQueues).
Result<audit::AuditResult> AuditScenarioTenancy(const Scenario& scenario,
                                                const model::Cluster& cluster,
                                                const govern::Policy& twin_policy);

// The report's sections: a count by severity and one line per finding.
std::string TenancyText(const audit::AuditResult& result);
std::string TenancyHtml(const audit::AuditResult& result);

}  // namespace steward::twin

// The audit's findings for people (a table), for programs (JSON) and for CI (SARIF 2.1.0).
//
//   std::cout << audit::FindingsTable(result);
//   nlohmann::json j = audit::FindingsJson(result);   // {"findings": [...], "summary": {...}}
//   nlohmann::json s = audit::FindingsSarif(result);  // one run, a rule per check
//
// Pure functions of the result: deterministic, thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "audit/check.h"

namespace steward::audit {

// One finding as JSON: id, layer, severity, tenant, objects (ids), message, fix, and
// locations (file:line of each object that came from a file).
nlohmann::json FindingJson(const Finding& f);
// {"findings": [...], "summary": {"critical": N, "warning": N, "objects": N, "tenants": {...}}}
nlohmann::json FindingsJson(const AuditResult& r);
std::string FindingsTable(const AuditResult& r);
nlohmann::json FindingsSarif(const AuditResult& r);

// --fail-on: the lowest severity that fails the run; nullopt = never.
Result<std::optional<Severity>> ParseFailOn(std::string_view text);
// True when a finding reaches the --fail-on severity.
bool ShouldFail(const AuditResult& r, std::optional<Severity> fail_on);

}  // namespace steward::audit

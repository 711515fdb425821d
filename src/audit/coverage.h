// Which checks can be trusted when some kinds could not be read (a cluster that does not serve
// RBAC, credentials that may not list NetworkPolicies): an SRE must never read "no RBAC
// findings" when RBAC was never read.
//
//   std::vector<CheckCoverage> gaps = audit::CoverageGaps(objects.not_read);
//   for (const CheckCoverage& g : gaps) ... g.id, g.run ("not run" when false), g.missing
//
// Each check names the kinds it reads (coverage.cc). A check is *not run* when a kind it
// requires is unread: its conclusion would be wrong in either direction (no default-deny
// policy read = every namespace flagged; no bindings read = nothing found). It is *incomplete*
// when only a kind it merely uses is unread, e.g. the kinds that assign namespaces to tenants.
// Pure functions over static tables: thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "audit/objects.h"

namespace steward::audit {

struct CheckInputs {
  std::vector<std::string_view> required;  // Any unread: the check does not run.
  std::vector<std::string_view> used;      // Any unread: its findings may be incomplete.
};

// The kinds check `id` reads (tenant assignment kinds included in `used`); empty for an
// unknown id.
CheckInputs InputsOf(std::string_view check_id);

// Every kind any check reads, in the order of the audit's inputs (docs/tenancy.md).
const std::vector<std::string_view>& AuditedKinds();

struct CheckCoverage {
  std::string id;
  bool run = false;                  // false: not run (its findings are withheld).
  std::vector<std::string> missing;  // The unread kinds it needed, in AuditedKinds order.
};

// The checks affected by `not_read`, in AllChecks order; empty when every kind was read.
std::vector<CheckCoverage> CoverageGaps(const std::vector<UnreadKind>& not_read);

}  // namespace steward::audit

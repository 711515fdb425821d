// A tenancy check and its findings: one check = an id, a layer, a severity and a function over
// the indexed object set. The checks are listed in one table (check_registry.cc), documented
// one by one with their anchors in docs/tenancy.md.
//
//   audit::AuditResult r = audit::RunAudit(objects, {.tenant_label = "steward.io/tenant"});
//   for (const audit::Finding& f : r.findings) std::cout << f.id << " " << f.message << "\n";
//
// Findings come out sorted (layer, id, tenant, objects), so the same objects always give the
// same output. Checks never fail: missing input simply yields no finding. Thread-safe (pure).
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "audit/coverage.h"
#include "audit/objects.h"
#include "audit/tenants.h"

namespace steward::audit {

enum class Layer { kQuota, kRbac, kNetwork, kNodes, kSharing };
enum class Severity { kWarning, kCritical };  // Ordered: critical is worse.

std::string_view LayerName(Layer l);        // quota, rbac, network, nodes, sharing
std::string_view SeverityName(Severity s);  // warning, critical

struct Finding {
  std::string id;  // The check's id, e.g. "sharing.timeslice-cross-tenant".
  Layer layer = Layer::kQuota;
  Severity severity = Severity::kWarning;
  std::string tenant;              // "" when the finding is about no single tenant.
  std::vector<ObjectRef> objects;  // The objects involved, the first is the one to fix.
  std::string message;             // The evidence, with numbers.
  std::string fix;                 // A kubectl command or a YAML patch.
};

struct AuditOptions {
  // Namespace and node label naming the tenant (steward audit tenancy --tenant-label).
  std::string tenant_label = "steward.io/tenant";
};

// What a check reads: the objects, the tenant index built over them, the options.
struct AuditContext {
  const ObjectSet& objects;
  const TenantIndex& tenants;
  const AuditOptions& options;
};

struct Check;
using CheckFn = void (*)(const AuditContext&, const Check&, std::vector<Finding>*);

struct Check {
  std::string_view id;
  Layer layer;
  Severity severity;
  std::string_view title;   // One line: what is wrong when it fires.
  std::string_view anchor;  // The CIS / kubescape control or GPU-sharing fact it rests on.
  CheckFn run;

  // A finding of this check (id, layer, severity filled in).
  Finding Make(std::string tenant, std::vector<ObjectRef> objects, std::string message,
               std::string fix) const;
};

// Every check, in documentation order.
const std::vector<Check>& AllChecks();
// The check with this id, or null.
const Check* FindCheck(std::string_view id);

struct AuditResult {
  std::vector<Finding> findings;
  // Tenant -> namespaces the audit saw (for the report header).
  std::map<std::string, std::set<std::string>> tenants;
  size_t objects = 0;
  // Kinds the input could not provide (ObjectSet::not_read) and the checks they affect; checks
  // with run == false were skipped and have no findings (audit/coverage.h).
  std::vector<UnreadKind> not_read;
  std::vector<CheckCoverage> coverage_gaps;
  size_t checks_run = 0;
};

// Runs every check whose required kinds were read.
AuditResult RunAudit(const ObjectSet& objects, const AuditOptions& options);

// Runs a single check (unit tests run each check on its own object set).
std::vector<Finding> RunCheck(const Check& check, const ObjectSet& objects,
                              const AuditOptions& options);

}  // namespace steward::audit

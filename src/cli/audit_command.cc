// `steward audit tenancy FILE|DIR...`: the tenant isolation audit over what `kubectl get -A
// -o json|yaml` prints (docs/tenancy.md). Exit 0 clean, 1 when a finding reaches --fail-on,
// 2 on bad input (the message names file, line and field).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "audit/check.h"
#include "audit/loader.h"
#include "audit/report.h"
#include "cli/commands.h"

namespace steward::cli {
namespace {
constexpr int kExitBadInput = 2;
}  // namespace

void RegisterAuditCommands(CLI::App& app) {
  auto* audit = app.add_subcommand("audit", "Audit a cluster's configuration");
  audit->require_subcommand(1);

  struct Args {
    std::vector<std::string> paths;
    std::string tenant_label = audit::AuditOptions{}.tenant_label;
    bool json = false;
    bool sarif = false;
    std::string fail_on = "critical";
    bool list_checks = false;
  };
  auto args = std::make_shared<Args>();
  auto* tenancy = audit->add_subcommand(
      "tenancy",
      "Tenant isolation on a GPU cluster in five layers (quota, rbac, network, nodes, sharing) "
      "from `kubectl get ... -A -o json|yaml` output: Namespaces, ResourceQuotas, LimitRanges, "
      "RBAC, NetworkPolicies, Nodes, Pods, PDBs, Kueue/Volcano objects, device plugin "
      "ConfigMaps (docs/tenancy.md)");
  tenancy->add_option("PATH", args->paths, "Files or directories (*.json, *.yaml, *.yml)");
  tenancy
      ->add_option("--tenant-label", args->tenant_label,
                   "Namespace and node label naming the tenant (else a namespace's tenant is "
                   "the ClusterQueue its LocalQueue points at)")
      ->capture_default_str();
  auto* json = tenancy->add_flag("--json", args->json,
                                 "Print {findings: [{id, layer, severity, tenant, objects, "
                                 "message, fix}], summary}");
  tenancy->add_flag("--sarif", args->sarif, "Print SARIF 2.1.0 (for CI code-scanning)")
      ->excludes(json);
  tenancy
      ->add_option("--fail-on", args->fail_on,
                   "Exit 1 when a finding is at least this severe: critical, warning or never")
      ->capture_default_str();
  tenancy->add_flag("--list-checks", args->list_checks, "List the checks and exit");
  tenancy->callback([args] {
    if (args->list_checks) {
      for (const audit::Check& c : audit::AllChecks())
        std::cout << c.id << "\t" << audit::LayerName(c.layer) << "\t"
                  << audit::SeverityName(c.severity) << "\t" << c.title << "\n";
      return;
    }
    auto fail_on = audit::ParseFailOn(args->fail_on);
    if (!fail_on.ok()) {
      std::cerr << "steward audit tenancy: " << fail_on.status().message() << "\n";
      Fail(kExitBadInput);
    }
    if (args->tenant_label.empty()) {
      std::cerr << "steward audit tenancy: --tenant-label must not be empty\n";
      Fail(kExitBadInput);
    }
    if (args->paths.empty()) {
      std::cerr << "steward audit tenancy: give at least one FILE or DIR (kubectl get ... -A "
                   "-o json > cluster.json)\n";
      Fail(kExitBadInput);
    }
    audit::ObjectSet objects;
    if (Status s = audit::LoadPaths(args->paths, &objects); !s.ok()) {
      std::cerr << "steward audit tenancy: " << s.message() << "\n";
      Fail(kExitBadInput);
    }
    audit::AuditOptions options;
    options.tenant_label = args->tenant_label;
    const audit::AuditResult result = audit::RunAudit(objects, options);
    if (args->json) {
      std::cout << audit::FindingsJson(result).dump(2) << "\n";
    } else if (args->sarif) {
      std::cout << audit::FindingsSarif(result).dump(2) << "\n";
    } else {
      std::cout << audit::FindingsTable(result);
    }
    if (audit::ShouldFail(result, *fail_on)) Fail(kExitFailure);
  });
}

}  // namespace steward::cli

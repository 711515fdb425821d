// `steward audit tenancy FILE|DIR... | --kubeconfig FILE`: the tenant isolation audit over what
// `kubectl get -A -o json|yaml` prints, or over a live cluster read through the live client
// (docs/tenancy.md). Exit 0 clean, 1 when a finding reaches --fail-on, 2 on bad input (the
// message names file, line and field) or a cluster that cannot be read.
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "audit/check.h"
#include "audit/loader.h"
#include "audit/report.h"
#include "audit_live/cluster_reader.h"
#include "cli/commands.h"
#include "live/kube_client.h"
#include "live/kubeconfig.h"

namespace steward::cli {
namespace {

[[noreturn]] void FailAudit(const std::string& message) {
  std::cerr << "steward audit tenancy: " << message << "\n";
  Fail(kExitBadInput);
}

// Appends the cluster's objects (and the kinds it could not read) to `objects`.
void ReadCluster(const std::string& kubeconfig, const std::string& context,
                 audit::ObjectSet* objects) {
  Result<live::RestConfig> config =
      live::ResolveRestConfig({.kubeconfig = kubeconfig, .context = context});
  if (!config.ok()) FailAudit(config.status().message());
  // One read of ~25 requests: pace like kubectl rather than a long-running controller.
  live::KubeClientOptions options;
  options.qps = 20;
  options.burst = 40;
  options.user_agent = "steward-audit/1";
  Result<std::unique_ptr<live::KubeClient>> client = live::KubeClient::Create(*config, options);
  if (!client.ok()) FailAudit(client.status().message());
  Result<audit_live::ClusterRead> read = audit_live::ReadClusterObjects(client->get(), objects);
  if (!read.ok()) FailAudit(read.status().message());
  for (const std::string& group : read->not_installed)
    std::cerr << "steward audit tenancy: note: " << group
              << " is not installed on the cluster (absent from discovery): none of its objects "
                 "exist\n";
}
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
    std::string kubeconfig, context;
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
  tenancy->add_option("--kubeconfig", args->kubeconfig,
                      "Also read the cluster of this kubeconfig through its API (kinds it does "
                      "not serve or allow are reported as not read)");
  tenancy->add_option("--context", args->context,
                      "Kubeconfig context (default: current-context; implies reading the "
                      "cluster: --kubeconfig, else $KUBECONFIG, ~/.kube/config, in-cluster)");
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
    const bool cluster = !args->kubeconfig.empty() || !args->context.empty();
    if (args->paths.empty() && !cluster)
      FailAudit(
          "give at least one FILE or DIR (kubectl get ... -A -o json > cluster.json) or "
          "--kubeconfig FILE");
    audit::ObjectSet objects;
    if (Status s = audit::ReadPaths(args->paths, &objects); !s.ok()) FailAudit(s.message());
    if (cluster) {
      const std::map<std::string, int> from_files = objects.KindCounts();
      ReadCluster(args->kubeconfig, args->context, &objects);
      // A kind the cluster would not give but the files did is covered by the files.
      std::erase_if(objects.not_read, [&](const audit::UnreadKind& u) {
        auto it = from_files.find(u.kind);
        if (it == from_files.end()) return false;
        std::cerr << fmt::format(
            "steward audit tenancy: note: {} not read from the cluster ({}); using the {} from "
            "the files\n",
            u.kind, u.reason, it->second);
        return true;
      });
    }
    if (Status s = audit::FinishObjects(&objects); !s.ok()) FailAudit(s.message());
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

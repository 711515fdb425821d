// `steward policy import|export|simulate`: read Kueue/Volcano governance YAML, print it
// normalized or write it back as Kueue YAML; simulate Kueue's scheduler over files and/or a
// cluster's objects (read only, through the live client).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "govern/policy_io.h"
#include "govern/simulate.h"
#include "govern/workload_import.h"
#include "live/kind_lister.h"
#include "live/kube_client.h"
#include "live/kubeconfig.h"
#include "twin/scenario.h"
#include "twin/scenario_policy.h"

namespace steward::cli {
namespace {

// Imports `files`; warnings go to stderr unless the caller prints them itself (--json carries
// them in its "warnings" array, so they are not printed twice).
govern::Policy ImportOrFail(const std::vector<std::string>& files, bool print_warnings = true) {
  auto policy = govern::ImportPolicyFiles(files);
  if (!policy.ok()) {
    std::cerr << "steward policy: " << policy.status().message() << "\n";
    Fail();
  }
  if (print_warnings)
    for (const auto& w : policy->warnings) std::cerr << "warning: " << w << "\n";
  return std::move(policy).value();
}

// The Kueue objects `policy simulate --kubeconfig` lists (and the Namespaces, whose labels
// namespaceSelectors read). The cluster is never written.
const std::vector<live::KindToList>& SimulatedKinds() {
  static const std::vector<live::KindToList> kKinds = {
      {"Namespace", "", "namespaces", false},
      {"ResourceFlavor", "kueue.x-k8s.io", "resourceflavors", true},
      {"Cohort", "kueue.x-k8s.io", "cohorts", true},
      {"ClusterQueue", "kueue.x-k8s.io", "clusterqueues", true},
      {"LocalQueue", "kueue.x-k8s.io", "localqueues", true},
      {"WorkloadPriorityClass", "kueue.x-k8s.io", "workloadpriorityclasses", true},
      {"Workload", "kueue.x-k8s.io", "workloads", true},
  };
  return kKinds;
}

// Kinds a simulation means nothing without; the others (Cohorts, priority classes, Namespaces)
// only sharpen it and are noted when missing.
bool RequiredKind(std::string_view kind) {
  return kind == "ResourceFlavor" || kind == "ClusterQueue" || kind == "LocalQueue" ||
         kind == "Workload";
}

[[noreturn]] void SimulateDie(const std::string& message) {
  std::cerr << "steward policy simulate: " << message << "\n";
  Fail();
}

// Kueue's Configuration as its installation keeps it: a ConfigMap in kueue-system whose data key
// holds the Configuration YAML (fair sharing, waitForPodsReady). Absent or unreadable, the
// simulation runs on Kueue's defaults and says so (unless a file gives the Configuration).
void ReadKueueConfiguration(live::KubeClient* client, const std::string& server, bool in_files,
                            govern::SimulationInput* input) {
  const std::string path =
      fmt::format("/api/v1/namespaces/{}/configmaps/{}", govern::kKueueConfigMapNamespace,
                  govern::kKueueConfigMapName);
  const std::string where =
      fmt::format("ConfigMap {}/{}", govern::kKueueConfigMapNamespace, govern::kKueueConfigMapName);
  live::ApiResult cm = client->Get(path);
  if (!cm.ok()) {
    if (!in_files)
      std::cerr << fmt::format(
          "steward policy simulate: note: no Kueue Configuration read ({}: {}); simulating "
          "with Kueue's defaults (no fair sharing, no waitForPodsReady)\n",
          where, cm.error().reason.empty() ? cm.error().message : cm.error().reason);
    return;
  }
  const nlohmann::json& data = cm.value().value("data", nlohmann::json::object());
  if (!data.contains(govern::kKueueConfigMapKey) || !data[govern::kKueueConfigMapKey].is_string()) {
    if (!in_files)
      std::cerr << fmt::format(
          "steward policy simulate: note: {} has no {}; simulating with Kueue's defaults\n", where,
          govern::kKueueConfigMapKey);
    return;
  }
  Status s = govern::ImportSimulationYaml(
      data[govern::kKueueConfigMapKey].get<std::string>(),
      fmt::format("{}{} data.{}", server, path, govern::kKueueConfigMapKey), input);
  if (!s.ok()) SimulateDie(s.message());
}

// Reads the cluster's Kueue objects through the same importer as files (the list JSON is
// YAML), then lays the files' objects over them: a file's ClusterQueue replaces the cluster's
// of the same name. Notes go to stderr.
govern::SimulationInput ReadClusterForSimulation(const std::string& kubeconfig,
                                                 const std::string& context,
                                                 govern::SimulationInput from_files) {
  Result<live::RestConfig> config =
      live::ResolveRestConfig({.kubeconfig = kubeconfig, .context = context});
  if (!config.ok()) SimulateDie(config.status().message());
  // One read of about ten requests: pace like kubectl.
  live::KubeClientOptions options;
  options.qps = 20;
  options.burst = 40;
  options.user_agent = "steward-simulate/1";
  Result<std::unique_ptr<live::KubeClient>> client = live::KubeClient::Create(*config, options);
  if (!client.ok()) SimulateDie(client.status().message());
  Result<live::KindLists> lists = live::ListKinds(client->get(), SimulatedKinds());
  if (!lists.ok()) SimulateDie(lists.status().message());
  const std::string& server = (*client)->config().server;

  // What the files give covers what the cluster does not.
  std::map<std::string, bool> in_files = {
      {"ResourceFlavor", !from_files.policy.flavors.empty()},
      {"Cohort", !from_files.policy.cohorts.empty()},
      {"ClusterQueue", !from_files.policy.cluster_queues.empty()},
      {"LocalQueue", !from_files.policy.local_queues.empty()},
      {"WorkloadPriorityClass", !from_files.policy.priority_classes.empty()},
      {"Workload", !from_files.workloads.empty()},
      {"Namespace", !from_files.policy.namespaces.empty()}};
  for (const std::string& group : lists->not_installed) {
    if (!in_files["ClusterQueue"])
      SimulateDie(
          fmt::format("{}: {} is not installed on the cluster (absent from discovery): "
                      "there is no Kueue to simulate",
                      server, group));
    std::cerr << "steward policy simulate: note: " << group
              << " is not installed on the cluster; simulating the files' objects only\n";
  }
  for (const live::UnreadKind& u : lists->not_read) {
    if (in_files[u.kind]) {
      std::cerr << fmt::format(
          "steward policy simulate: note: {} not read from the cluster ({}); using the files'\n",
          u.kind, u.reason);
    } else if (RequiredKind(u.kind)) {
      SimulateDie(
          fmt::format("{}: {} not read ({}); give them in a file (kubectl get {} -A -o "
                      "yaml) or use credentials that may list them",
                      server, u.kind, u.reason, u.kind));
    } else {
      std::cerr << fmt::format(
          "steward policy simulate: note: {} not read from the cluster ({}); simulating without "
          "them{}\n",
          u.kind, u.reason,
          u.kind == "Namespace" ? " (a namespaceSelector then sees only kubernetes.io/"
                                  "metadata.name)"
                                : "");
    }
  }
  govern::SimulationInput input;
  for (const live::KindList& l : lists->lists) {
    // Compact JSON is one line: an error's position would be a column in it. One key per line
    // keeps file:line meaningful for the object the message names.
    Status s = govern::ImportSimulationYaml(l.list.dump(1), server + l.path, &input);
    if (!s.ok()) SimulateDie(s.message());
  }
  ReadKueueConfiguration(client->get(), server, from_files.policy.configuration.has_value(),
                         &input);
  for (const std::string& r : govern::OverlaySimulationInput(&input, std::move(from_files)))
    std::cerr << "steward policy simulate: note: " << r
              << " from the files replaces the cluster's\n";
  return input;
}

}  // namespace

void RegisterPolicyCommands(CLI::App& app) {
  auto* policy =
      app.add_subcommand("policy", "Import and export governance policy (Kueue/Volcano YAML)");
  policy->require_subcommand(1);

  struct ImportArgs {
    std::vector<std::string> files;
    bool json = false;
  };
  auto import_args = std::make_shared<ImportArgs>();
  auto* imp = policy->add_subcommand(
      "import",
      "Read Kueue (kueue.x-k8s.io) and Volcano (scheduling.volcano.sh) YAML and print "
      "the normalized policy");
  imp->add_option("FILE", import_args->files, "YAML files (multi-document)")
      ->required()
      ->check(CLI::ExistingFile);
  imp->add_flag("--json", import_args->json,
                "Print JSON (cluster_queues[].quotas[] in canonical units, with max_usable)");
  imp->callback([import_args] {
    govern::Policy p = ImportOrFail(import_args->files, !import_args->json);
    auto out = import_args->json ? govern::PolicyToJson(p) : govern::PolicyToText(p);
    if (!out.ok()) {
      std::cerr << "steward policy import: " << out.status().message() << "\n";
      Fail();
    }
    std::cout << *out << (import_args->json ? "\n" : "");
  });

  struct ExportArgs {
    std::vector<std::string> files;
    bool kueue = false;
  };
  auto export_args = std::make_shared<ExportArgs>();
  auto* exp = policy->add_subcommand(
      "export",
      "Print the policy as Kueue v1beta1 YAML (for GitOps): of the FILEs, or without FILE the "
      "built-in scenario's (its fifo-quota teams as StrictFIFO ClusterQueues)");
  exp->add_flag("--kueue", export_args->kueue, "Kueue YAML (the only format for now)")->required();
  exp->add_option("FILE", export_args->files,
                  "Kueue/Volcano YAML files to convert (omit: the built-in scenario's policy)")
      ->check(CLI::ExistingFile);
  exp->callback([export_args] {
    if (!export_args->files.empty()) {
      std::cout << govern::ExportKueueYaml(ImportOrFail(export_args->files));
      return;
    }
    auto p = twin::ScenarioPolicy(twin::DefaultScenario());
    if (!p.ok()) {
      std::cerr << "steward policy export: " << p.status().message() << "\n";
      Fail();
    }
    std::cout << govern::ExportKueueYaml(*p);
  });

  struct SimulateArgs {
    std::vector<std::string> files;
    int cycles = 0;
    bool json = false;
    std::string kubeconfig, context;
  };
  auto sim_args = std::make_shared<SimulateArgs>();
  auto* sim = policy->add_subcommand(
      "simulate",
      "Run Kueue's scheduling cycles offline over ClusterQueues, LocalQueues, Cohorts, "
      "priority classes and Workloads (kubectl get workloads -A -o yaml, or read from a "
      "cluster with --kubeconfig) and print what is admitted, preempted or pending, and why");
  sim->add_option("FILE", sim_args->files,
                  "YAML files: Kueue objects and Workloads (with --kubeconfig: laid over the "
                  "cluster's, a file's object replacing the cluster's of the same name)")
      ->check(CLI::ExistingFile);
  sim->add_option("--cycles", sim_args->cycles,
                  "Stop after N scheduling cycles (default: until nothing changes)")
      ->check(NonNegative());
  sim->add_flag("--json", sim_args->json,
                "Print JSON: workloads[] (state, flavors, preempted_by, reason, message) and "
                "cluster_queues[] (usage per flavor and resource)");
  sim->add_option("--kubeconfig", sim_args->kubeconfig,
                  "Read the Kueue objects and Workloads of this kubeconfig's cluster (list "
                  "calls only; nothing is written)");
  sim->add_option("--context", sim_args->context,
                  "Kubeconfig context (default: current-context; implies reading the cluster: "
                  "--kubeconfig, else $KUBECONFIG, ~/.kube/config, in-cluster)");
  sim->callback([sim_args] {
    const bool cluster = !sim_args->kubeconfig.empty() || !sim_args->context.empty();
    if (sim_args->files.empty() && !cluster)
      SimulateDie(
          "give at least one FILE (kubectl get workloads -A -o yaml > wl.yaml) or "
          "--kubeconfig FILE");
    auto files = govern::ReadSimulationFiles(sim_args->files);
    if (!files.ok()) SimulateDie(files.status().message());
    govern::SimulationInput input =
        cluster ? ReadClusterForSimulation(sim_args->kubeconfig, sim_args->context,
                                           std::move(files).value())
                : std::move(files).value();
    if (Status s = govern::FinishSimulationInput(&input); !s.ok()) SimulateDie(s.message());
    if (!sim_args->json)
      for (const auto& w : input.policy.warnings) std::cerr << "warning: " << w << "\n";
    auto result = govern::Simulate(input, {.max_cycles = sim_args->cycles});
    if (!result.ok()) {
      std::cerr << "steward policy simulate: " << result.status().message() << "\n";
      Fail();
    }
    std::cout << (sim_args->json ? govern::SimulationToJson(*result)
                                 : govern::SimulationToText(*result));
  });
}

}  // namespace steward::cli

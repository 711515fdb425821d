// `steward policy import|export`: read Kueue/Volcano governance YAML, print it normalized or
// write it back as Kueue YAML.
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
  };
  auto sim_args = std::make_shared<SimulateArgs>();
  auto* sim = policy->add_subcommand(
      "simulate",
      "Run Kueue's scheduling cycles offline over ClusterQueues, LocalQueues, Cohorts, "
      "priority classes and Workloads (kubectl get workloads -A -o yaml) and print what is "
      "admitted, preempted or pending, and why");
  sim->add_option("FILE", sim_args->files, "YAML files: Kueue objects and Workloads")
      ->required()
      ->check(CLI::ExistingFile);
  sim->add_option("--cycles", sim_args->cycles,
                  "Stop after N scheduling cycles (default: until nothing changes)")
      ->check(NonNegative());
  sim->add_flag("--json", sim_args->json,
                "Print JSON: workloads[] (state, flavors, preempted_by, reason, message) and "
                "cluster_queues[] (usage per flavor and resource)");
  sim->callback([sim_args] {
    auto input = govern::LoadSimulationFiles(sim_args->files);
    if (!input.ok()) {
      std::cerr << "steward policy simulate: " << input.status().message() << "\n";
      Fail();
    }
    if (!sim_args->json)
      for (const auto& w : input->policy.warnings) std::cerr << "warning: " << w << "\n";
    auto result = govern::Simulate(*input, {.max_cycles = sim_args->cycles});
    if (!result.ok()) {
      std::cerr << "steward policy simulate: " << result.status().message() << "\n";
      Fail();
    }
    std::cout << (sim_args->json ? govern::SimulationToJson(*result)
                                 : govern::SimulationToText(*result));
  });
}

}  // namespace steward::cli

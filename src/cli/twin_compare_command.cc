// `steward twin compare`: two twin runs side by side, each a (scenario, policy) pair — the
// guide's case 2 without and with limits, or any before/after.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/twin_setup.h"
#include "twin/report_compare.h"
#include "twin/scenario.h"

namespace steward::cli {
namespace {

struct CompareArgs {
  std::string scenario, vs_scenario;
  std::vector<std::string> policy, vs_policy;
  int64_t seed = -1;
  double days = 0;
  bool json = false;
  std::string html;
};

// A column label: the policy file's name without extension, else the scenario's.
std::string Label(const std::string& scenario, const std::vector<std::string>& policy,
                  const char* fallback) {
  if (!policy.empty()) return std::filesystem::path(policy[0]).stem().string();
  if (!scenario.empty()) return std::filesystem::path(scenario).stem().string();
  return fallback;
}

Result<twin::ComparedRun> RunOne(const std::string& scenario_file,
                                 const std::vector<std::string>& policy, const CompareArgs& a,
                                 const char* fallback) {
  Result<twin::Scenario> scenario = scenario_file.empty()
                                        ? Result<twin::Scenario>(twin::DefaultScenario())
                                        : twin::LoadScenario(scenario_file);
  if (!scenario.ok()) return scenario.status();
  twin::TwinOptions options;
  options.days = a.days;
  options.seed = a.seed;
  options.policy_files = policy;
  STEWARD_ASSIGN_OR_RETURN(TwinSetup setup, CreateTwin(std::move(scenario).value(), options));
  twin::ComparedRun r;
  r.label = Label(scenario_file, policy, fallback);
  r.scenario_file = scenario_file;
  r.policy_files = policy;
  r.report = setup.twin->Run();
  return r;
}

void Compare(const CompareArgs& a) {
  if (a.vs_policy.empty() && a.vs_scenario.empty()) {
    std::cerr << "steward twin compare: give --vs-policy FILE... and/or --vs-scenario FILE (the "
                 "second run)\n";
    Fail();
  }
  const std::string& vs_scenario = a.vs_scenario.empty() ? a.scenario : a.vs_scenario;
  const std::vector<std::string>& vs_policy = a.vs_policy.empty() ? a.policy : a.vs_policy;
  auto before = RunOne(a.scenario, a.policy, a, "before");
  auto after = before.ok() ? RunOne(vs_scenario, vs_policy, a, "after") : before;
  if (!before.ok() || !after.ok()) {
    std::cerr << "steward: " << (before.ok() ? after : before).status().message() << "\n";
    Fail();
  }
  if (before->label == after->label) before->label = "before", after->label = "after";
  if (!a.html.empty()) {
    std::ofstream out(a.html, std::ios::binary);
    out << twin::CompareToHtml(*before, *after);
    if (!out) {
      std::cerr << "steward: cannot write " << a.html << "\n";
      Fail();
    }
  }
  if (a.json) {
    std::cout << twin::CompareToJson(*before, *after).dump(2) << "\n";
  } else {
    std::cout << twin::CompareToText(*before, *after);
    if (!a.html.empty()) std::cout << "HTML comparison: " << a.html << "\n";
  }
}

}  // namespace

void RegisterTwinCompareCommand(CLI::App& twin) {
  auto a = std::make_shared<CompareArgs>();
  auto* cmd = twin.add_subcommand(
      "compare",
      "Run two (scenario, policy) pairs and show their KPIs side by side with the deltas");
  cmd->add_option("scenario", a->scenario,
                  "Scenario YAML of the first run (omit for the built-in default)");
  cmd->add_option("--policy", a->policy, "Kueue/Volcano YAML of the first run")->expected(1, -1);
  cmd->add_option("--vs-policy", a->vs_policy,
                  "Kueue/Volcano YAML of the second run (default: the first run's)")
      ->expected(1, -1);
  cmd->add_option("--vs-scenario", a->vs_scenario,
                  "Scenario YAML of the second run (default: the first run's)");
  cmd->add_option("--seed", a->seed, "Random seed for both runs (overrides the scenarios')");
  cmd->add_option("--days", a->days, "Simulated days for both runs")->check(Positive());
  cmd->add_flag("--json", a->json,
                "Print {before, after, delta}: both full reports and the KPI differences");
  cmd->add_option("--html", a->html, "Also write both reports side by side to FILE");
  cmd->callback([a] { Compare(*a); });
}

}  // namespace steward::cli

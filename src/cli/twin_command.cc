// `steward twin ...`: run, validate (and later explain) twin scenarios.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "twin/scenario.h"
#include "twin/twin.h"

namespace steward::cli {
namespace {

struct RunArgs {
  std::string scenario;
  int64_t seed = -1;
  double days = 0;
  bool json = false;
  bool progress = false;
  bool quiet = false;
  std::string html;
};

Result<twin::Scenario> LoadOrDefault(const std::string& path) {
  if (path.empty()) return twin::DefaultScenario();
  return twin::LoadScenario(path);
}

void RunTwin(const RunArgs& a) {
  Result<twin::Scenario> scenario = LoadOrDefault(a.scenario);
  if (!scenario.ok()) {
    std::cerr << "steward: " << scenario.status().message() << "\n";
    Fail();
  }
  twin::TwinOptions options;
  options.days = a.days;
  options.seed = a.seed;
  // Progress goes to stderr, one line per simulated day, when it is a terminal (or asked for).
  if (!a.quiet && (a.progress || isatty(STDERR_FILENO))) {
    options.progress = [](SimTime now, SimTime horizon) {
      std::fprintf(stderr, "steward: simulated day %.0f of %.0f\n", now.ToHours() / 24,
                   horizon.ToHours() / 24);
    };
  }
  auto t = twin::Twin::Create(std::move(scenario).value(), options);
  if (!t.ok()) {
    std::cerr << "steward: " << t.status().message() << "\n";
    Fail();
  }
  const twin::Report report = (*t)->Run();
  if (!a.html.empty()) {
    std::ofstream out(a.html, std::ios::binary);
    out << twin::ToHtml(report);
    if (!out) {
      std::cerr << "steward: cannot write " << a.html << "\n";
      Fail();
    }
  }
  if (a.json) {
    std::cout << twin::ToJson(report).dump(2) << "\n";
  } else {
    std::cout << twin::ToText(report);
    if (!a.html.empty()) std::cout << "HTML report: " << a.html << "\n";
  }
}

void Validate(const std::string& path) {
  Result<twin::Scenario> s = twin::LoadScenario(path);
  if (s.ok()) {
    // A scenario whose cluster cannot be built (e.g. a missing node list) is not valid either.
    Result<model::Cluster> c = twin::BuildCluster(*s);
    if (!c.ok()) {
      std::cerr << "steward: " << c.status().message() << "\n";
      Fail();
    }
    std::cout << fmt::format("{}: ok ({} GPUs on {} nodes, {} teams, {} generators, {} traces)\n",
                             path, c->total_gpus(), c->nodes().size(), s->teams.size(),
                             s->generators.size(), s->traces.size());
    return;
  }
  std::cerr << "steward: " << s.status().message() << "\n";
  Fail();
}

}  // namespace

void RegisterTwinCommands(CLI::App& app) {
  auto* twin = app.add_subcommand("twin", "Run the digital twin of a GPU cluster");
  twin->require_subcommand(1);

  auto args = std::make_shared<RunArgs>();
  auto* run = twin->add_subcommand(
      "run", "Simulate a scenario (default: the built-in 10,240-GPU cluster) and report its KPIs");
  run->add_option("scenario", args->scenario, "Scenario YAML file (omit for the built-in default)");
  run->add_option("--seed", args->seed, "Random seed (overrides the scenario's)");
  run->add_option("--days", args->days, "Simulated days (overrides the scenario's horizon)")
      ->check(CLI::PositiveNumber);
  run->add_flag("--json", args->json, "Print the report as one JSON object instead of a table");
  run->add_option("--html", args->html, "Also write a self-contained HTML report to FILE");
  run->add_flag("--progress", args->progress, "Print progress to stderr even when not a terminal");
  run->add_flag("--quiet", args->quiet, "Never print progress");
  run->callback([args] { RunTwin(*args); });

  auto path = std::make_shared<std::string>();
  auto* validate = twin->add_subcommand("validate", "Check a scenario file; exit 0 or explain");
  validate->add_option("scenario", *path, "Scenario YAML file")->required();
  validate->callback([path] { Validate(*path); });
}

}  // namespace steward::cli

// steward: a governance engine for GPU clusters on Kubernetes. See README.md.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>

#include "cli/commands.h"

namespace {

// CLI11's --help-all expands one level (`twin` lists `run` but not its flags); this prints each
// command's full help, depth first. The formatter is called directly because App::help hands over
// to the selected subcommand.
void PrintHelpTree(const CLI::App& app, const std::string& usage_name) {
  std::cout << app.get_formatter()->make_help(&app, usage_name, CLI::AppFormatMode::Normal);
  for (const CLI::App* sub :
       app.get_subcommands([](const CLI::App* a) { return !a->get_name().empty(); })) {
    std::cout << "\n";
    PrintHelpTree(*sub, usage_name + " " + sub->get_name());
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A peer that closes a TLS connection while we write must be an error on that connection
  // (OpenSSL writes without MSG_NOSIGNAL), not SIGPIPE killing the process.
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"steward: keep a GPU cluster schedulable, governed, visible and cheap"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print help for every command and flag");
  app.set_version_flag("--version", std::string("steward ") + STEWARD_VERSION);
  app.footer(
      "Each command has its own help: steward twin --help, steward twin run --help.\n"
      "steward --help-all prints every command with its flags and subcommands.");
  steward::cli::RegisterTwinCommands(app);
  steward::cli::RegisterDiagnoseCommands(app);
  steward::cli::RegisterCostCommands(app);
  steward::cli::RegisterExperimentCommands(app);
  steward::cli::RegisterMetricsCommands(app);
  steward::cli::RegisterMetricsServeCommands(app);
  steward::cli::RegisterHealthCommands(app);
  steward::cli::RegisterPolicyCommands(app);
  steward::cli::RegisterServeCommands(app);
  steward::cli::RegisterAuditCommands(app);
  steward::cli::RegisterOperateCommands(app);
  steward::cli::RegisterRolloutCommands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForAllHelp&) {
    // The deepest command named on the line (steward twin --help-all: twin and below).
    const CLI::App* at = &app;
    std::string name = "steward";
    while (!at->get_subcommands().empty()) {
      at = at->get_subcommands().back();
      name += " " + at->get_name();
    }
    PrintHelpTree(*at, name);
    return 0;
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return 0;
}

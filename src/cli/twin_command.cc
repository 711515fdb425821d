#include "cli/commands.h"

namespace steward::cli {

void RegisterTwinCommands(CLI::App& app) {
  auto* twin = app.add_subcommand("twin", "Run the digital twin of a GPU cluster");
  twin->require_subcommand(1);
}

}  // namespace steward::cli

// Each area of the CLI registers its subcommands on the root app. One function per area,
// defined in src/cli/<area>_command.cc; main.cc calls them all in the order listed here.
#pragma once

#include <CLI/CLI.hpp>

namespace steward::cli {

// Exit code of a subcommand that ran and failed (bad input, failed check). A command callback
// prints its error to stderr and then calls Fail(), which CLI11 turns into this exit code.
inline constexpr int kExitFailure = 1;
[[noreturn]] inline void Fail(int code = kExitFailure) { throw CLI::RuntimeError(code); }
// Exit code of a command whose input (a file, stdin, a flag) could not be read.
inline constexpr int kExitBadInput = 2;

void RegisterTwinCommands(CLI::App& app);
// `twin events`; RegisterTwinCommands calls it on its `twin` command.
void RegisterTwinEventsCommand(CLI::App& twin);
// `twin compare` (cli/twin_compare_command.cc); RegisterTwinCommands adds it to `twin`.
void RegisterTwinCompareCommand(CLI::App& twin);
// `twin snapshot` (cli/twin_snapshot_command.cc): a live cluster as a scenario directory.
void RegisterTwinSnapshotCommand(CLI::App& twin);
void RegisterDiagnoseCommands(CLI::App& app);
void RegisterCostCommands(CLI::App& app);
void RegisterExperimentCommands(CLI::App& app);
void RegisterMetricsCommands(CLI::App& app);
// `metrics serve` / `metrics query`; adds to the `metrics` command, so call it after the above.
void RegisterMetricsServeCommands(CLI::App& app);
void RegisterHealthCommands(CLI::App& app);
void RegisterPolicyCommands(CLI::App& app);
void RegisterServeCommands(CLI::App& app);
// `audit tenancy` (cli/audit_command.cc).
void RegisterAuditCommands(CLI::App& app);
// `operate` and `operate log` (cli/operate_command.cc).
void RegisterOperateCommands(CLI::App& app);
// `rollout validate|run|status` (cli/rollout_command.cc).
void RegisterRolloutCommands(CLI::App& app);

}  // namespace steward::cli

// `steward health nodes FILE|- [--fail-on critical|warning|never] [--json]` (GPU stack and node
// checks over a NodeList, JSON or YAML; exit 0 = nothing at or above --fail-on, 1 = findings at
// or above it, 2 = input it cannot read),
// `steward health overview [SCENARIO] [--at T] [--json]` (the cluster health overview of the
// twin) and `steward health xid CODE` (the XID catalog entry).
#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/twin_setup.h"
#include "health/node_list.h"
#include "health/stack_health.h"
#include "health/xid_catalog.h"
#include "kube/json_decoder.h"
#include "server/api.h"
#include "server/snapshot.h"
#include "twin/scenario.h"

namespace steward::cli {

namespace {

struct HealthNodesArgs {
  std::string file;
  bool json = false;
  std::string fail_on = "critical";
  std::string now;  // RFC 3339; "" = the wall clock.
  std::string mig_pending_limit = "30m";
  std::vector<std::string> pool_labels;
  std::vector<std::string> toolkit_labels;
  std::vector<std::string> plugin_labels;
};

[[noreturn]] void FailInput(const std::string& message) {
  fmt::print(stderr, "error: {}\n", message);
  Fail(kExitBadInput);
}

void RunHealthNodes(const HealthNodesArgs& args) {
  std::optional<health::Severity> fail_at;  // nullopt: never fail on findings.
  if (args.fail_on != "never") {
    fail_at = health::ParseSeverity(args.fail_on);
    if (!fail_at || *fail_at == health::Severity::kInfo) {
      FailInput(
          fmt::format("--fail-on must be critical, warning or never, got \"{}\"", args.fail_on));
    }
  }
  health::StackHealthOptions options;
  if (!args.pool_labels.empty()) options.pool_labels = args.pool_labels;
  if (!args.toolkit_labels.empty()) options.toolkit_version_labels = args.toolkit_labels;
  if (!args.plugin_labels.empty()) options.device_plugin_version_labels = args.plugin_labels;
  if (args.now.empty()) {
    options.now = std::chrono::duration_cast<std::chrono::seconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  } else {
    std::optional<int64_t> micros = kube::ParseTime(args.now);
    if (!micros) FailInput(fmt::format("--now: \"{}\" is not an RFC 3339 time", args.now));
    options.now = *micros / 1'000'000;
  }
  Result<SimTime> limit = ParseAt(args.mig_pending_limit);
  if (!limit.ok()) FailInput("--mig-pending-limit: " + limit.status().message());
  options.mig_pending_limit_seconds = static_cast<int64_t>(limit->ToSeconds());

  Result<std::vector<health::NodeInfo>> nodes = health::LoadNodeList(args.file);
  if (!nodes.ok()) FailInput(nodes.status().message());
  std::vector<health::StackFinding> findings = health::CheckStackHealth(*nodes, options);
  size_t failing = 0;
  for (const auto& f : findings) {
    std::optional<health::Severity> s = health::ParseSeverity(f.severity);
    failing += fail_at && s && *s <= *fail_at;
  }
  if (args.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& f : findings) {
      out.push_back({{"node", f.node},
                     {"check", f.check},
                     {"severity", f.severity},
                     {"message", f.message},
                     {"hint", f.hint}});
    }
    std::cout << out.dump(2) << "\n";
  } else {
    size_t gpu_nodes = 0;
    for (const auto& n : *nodes) gpu_nodes += health::IsGpuNode(n);
    fmt::print("{} nodes ({} with GPUs): {} finding(s)\n", nodes->size(), gpu_nodes,
               findings.size());
    for (const auto& f : findings) {
      fmt::print("{:<8} {:<28} {}: {}\n         fix: {}\n", f.severity, f.check, f.node, f.message,
                 f.hint);
    }
  }
  std::cout.flush();
  if (failing > 0) {
    fmt::print(stderr, "{} finding(s) at or above --fail-on {}\n", failing, args.fail_on);
    Fail(kExitFailure);
  }
}

void RunHealthXid(const std::string& code_text) {
  int code = 0;
  auto [p, ec] = std::from_chars(code_text.data(), code_text.data() + code_text.size(), code);
  if (ec != std::errc() || p != code_text.data() + code_text.size() || code <= 0) {
    fmt::print(stderr, "error: XID code must be a positive integer, got \"{}\"\n", code_text);
    Fail();
  }
  const health::XidCatalog& cat = health::XidCatalog::Builtin();
  const health::XidEntry* e = cat.Find(code);
  if (e == nullptr) {
    std::vector<int> known;
    for (const auto& [c, _] : cat.entries()) known.push_back(c);
    fmt::print(stderr,
               "error: XID {} is not in the catalog (data/xid_catalog.csv); known codes: {}\n"
               "See https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html\n",
               code, fmt::join(known, " "));
    Fail();
  }
  fmt::print("XID {} {}\n", e->code, e->mnemonic);
  fmt::print("  meaning:        {}\n", e->meaning);
  fmt::print("  severity:       {}\n", health::XidSeverityName(e->severity));
  fmt::print("  action:         {}\n", health::XidActionName(e->action));
  fmt::print("  NVIDIA bucket:  {}\n", e->nvidia_action);
  fmt::print("  node condition: {}\n",
             e->node_condition ? "yes (repair-eligible)" : "no (event only)");
  fmt::print(
      "  source:         NVIDIA Xid Catalog (docs.nvidia.com/deploy/xid-errors), NVSentinel "
      "xiderrorsmapping.csv, eks-node-monitoring-agent dcgm_policies.go\n");
}

struct OverviewArgs {
  std::string scenario, at;
  std::vector<std::string> policy;
  int64_t seed = -1;
  bool json = false;
};

// `steward health overview`: the overview dashboard's numbers in one call, from the twin (with
// its remediation loop) at a simulated time; the same Snapshot `steward serve` publishes.
void RunHealthOverview(const OverviewArgs& a) {
  Result<twin::Scenario> scenario = a.scenario.empty()
                                        ? Result<twin::Scenario>(twin::DefaultScenario())
                                        : twin::LoadScenario(a.scenario);
  if (!scenario.ok()) {
    fmt::print(stderr, "steward: {}\n", scenario.status().message());
    Fail();
  }
  twin::TwinOptions options;
  options.policy_files = a.policy;
  options.seed = a.seed;
  auto setup = CreateTwin(std::move(scenario).value(), options);
  if (!setup.ok()) {
    fmt::print(stderr, "steward: {}\n", setup.status().message());
    Fail();
  }
  twin::Twin& t = *setup->twin;
  SimTime at = t.horizon();
  if (!a.at.empty()) {
    Result<SimTime> parsed = ParseAt(a.at);
    if (!parsed.ok() || *parsed > t.horizon()) {
      fmt::print(stderr, "steward: {}\n",
                 parsed.ok() ? fmt::format("--at {} is past the scenario's horizon ({:.0f} h)",
                                           a.at, t.horizon().ToHours())
                             : parsed.status().message());
      Fail();
    }
    at = *parsed;
  }
  t.RunUntil(at);
  server::SnapshotContext ctx;
  ctx.remediation = setup->remediation;
  const server::Snapshot snap = server::BuildSnapshot(t, ctx);
  if (a.json) {
    nlohmann::json j = server::OverviewJson(snap);
    j["incidents"] = server::IncidentsJson(snap)["incidents"];
    std::cout << j.dump(2) << "\n";
    return;
  }
  const server::Overview& o = snap.overview;
  fmt::print("Cluster health: {} at {:.1f} h ({} GPUs on {} nodes)\n", o.scenario,
             o.sim_seconds / 3600, o.gpus_total, o.nodes_total);
  fmt::print("  GPUs     in use {}  idle {}  faulty {}  cordoned {}\n", o.gpus_in_use, o.gpus_idle,
             o.gpus_faulty, o.gpus_cordoned);
  fmt::print("  nodes    cordoned {}  with faulty GPUs {}\n", o.nodes_cordoned, o.nodes_faulty);
  if (o.remediation) {
    std::string states;
    for (const auto& [state, n] : o.nodes_by_remediation_state)
      states += fmt::format("  {} {}", state, n);
    fmt::print("  remediation{}{}; tickets filed {}\n", states.empty() ? "  all nodes healthy" : "",
               states, o.tickets);
  } else {
    fmt::print("  remediation  off\n");
  }
  fmt::print("  workloads  running {}  starting {}  pending {}\n", o.workloads_running,
             o.workloads_starting, o.workloads_pending);
  for (const auto& [reason, n] : o.pending_by_reason)
    if (n > 0) fmt::print("    pending: {:<24} {}\n", reason, n);
  fmt::print("  utilization now  allocation {:.1f}%  SM-active {:.1f}%\n", 100 * o.allocation_rate,
             100 * o.sm_active_utilization);
  fmt::print("  open incidents {}\n", snap.incidents.size());
  for (const server::IncidentView& i : snap.incidents)
    fmt::print("    #{} {} {} ({}): {} node(s), {} faulty GPUs, since {:.1f} h{}\n", i.id, i.scope,
               i.subject, i.category, i.nodes.size(), i.faulty_gpus, i.first_fault_hours,
               i.ticket ? fmt::format(", ticket #{}", i.ticket) : std::string(", no ticket yet"));
}

}  // namespace

void RegisterHealthCommands(CLI::App& app) {
  auto* health = app.add_subcommand("health", "GPU stack health and XID triage");
  health->require_subcommand(1);
  auto args = std::make_shared<HealthNodesArgs>();
  auto* nodes = health->add_subcommand(
      "nodes",
      "Check a NodeList (kubectl get nodes -o json|yaml) for node and GPU stack problems; exit "
      "0 = nothing at or above --fail-on, 1 = findings at or above it, 2 = unreadable input");
  nodes->add_option("file", args->file, "NodeList JSON or YAML file; - reads standard input")
      ->required();
  nodes->add_option("--fail-on", args->fail_on,
                    "Exit 1 when a finding is at least this severe: critical (default), warning "
                    "or never");
  nodes->add_option("--now", args->now,
                    "Time to judge ages against (RFC 3339); default: the wall clock");
  nodes->add_option("--mig-pending-limit", args->mig_pending_limit,
                    "A MIG state of pending/rebooting older than this is critical: 30m "
                    "(default), 2h, 900s (its start: annotation " +
                        std::string(health::kMigStateSinceAnnotation) + ")");
  nodes->add_flag("--json", args->json, "Print a JSON list of findings (node, check, hint, ...)");
  nodes->add_option("--pool-label", args->pool_labels,
                    "Node label naming the pool (repeatable; first present wins)");
  nodes->add_option("--toolkit-label", args->toolkit_labels,
                    "Node label holding the container-toolkit version");
  nodes->add_option("--device-plugin-label", args->plugin_labels,
                    "Node label holding the device-plugin version");
  nodes->callback([args] { RunHealthNodes(*args); });

  auto ov = std::make_shared<OverviewArgs>();
  auto* overview = health->add_subcommand(
      "overview",
      "GPUs in use / idle / faulty / cordoned, pending workloads and open incidents of the twin");
  overview->add_option("scenario", ov->scenario, "Scenario YAML (omit for the built-in default)");
  overview->add_option("--at", ov->at,
                       "Simulated time: 36h, 90m, 2d, 3600s (plain number: hours); default: "
                       "the end of the scenario");
  overview->add_option("--seed", ov->seed, "Random seed (overrides the scenario's)");
  overview->add_option("--policy", ov->policy, "Kueue/Volcano YAML governing admission")
      ->expected(1, -1);
  overview->add_flag("--json", ov->json, "Print GET /api/overview's object plus the incidents");
  overview->callback([ov] { RunHealthOverview(*ov); });

  auto code = std::make_shared<std::string>();
  auto* xid = health->add_subcommand("xid", "Print the XID catalog entry for a code");
  xid->add_option("code", *code, "XID code, e.g. 79")->required();
  xid->callback([code] { RunHealthXid(*code); });
}

}  // namespace steward::cli

// `steward health nodes FILE.json [--json]` (GPU stack checks over a NodeList),
// `steward health overview [SCENARIO] [--at T] [--json]` (the cluster health overview of the
// twin) and `steward health xid CODE` (the XID catalog entry).
#include <fmt/format.h>

#include <charconv>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/twin_setup.h"
#include "health/node_list.h"
#include "health/stack_health.h"
#include "health/xid_catalog.h"
#include "server/api.h"
#include "server/snapshot.h"
#include "twin/scenario.h"

namespace steward::cli {

namespace {

struct HealthNodesArgs {
  std::string file;
  bool json = false;
  std::vector<std::string> pool_labels;
  std::vector<std::string> toolkit_labels;
  std::vector<std::string> plugin_labels;
};

void RunHealthNodes(const HealthNodesArgs& args) {
  Result<std::vector<health::NodeInfo>> nodes = health::LoadNodeList(args.file);
  if (!nodes.ok()) {
    fmt::print(stderr, "error: {}\n", nodes.status().message());
    Fail();
  }
  health::StackHealthOptions options;
  if (!args.pool_labels.empty()) options.pool_labels = args.pool_labels;
  if (!args.toolkit_labels.empty()) options.toolkit_version_labels = args.toolkit_labels;
  if (!args.plugin_labels.empty()) options.device_plugin_version_labels = args.plugin_labels;
  std::vector<health::StackFinding> findings = health::CheckStackHealth(*nodes, options);
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
    return;
  }
  size_t gpu_nodes = 0;
  for (const auto& n : *nodes) gpu_nodes += health::IsGpuNode(n);
  fmt::print("{} nodes ({} with GPUs): {} finding(s)\n", nodes->size(), gpu_nodes, findings.size());
  for (const auto& f : findings) {
    fmt::print("{:<8} {:<28} {}: {}\n         fix: {}\n", f.severity, f.check, f.node, f.message,
               f.hint);
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
      "nodes", "Check a NodeList (kubectl get nodes -o json) for GPU stack problems");
  nodes->add_option("file", args->file, "NodeList JSON file")->required();
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

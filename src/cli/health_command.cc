// `steward health nodes FILE.json [--json]` (GPU stack checks over a NodeList) and
// `steward health xid CODE` (the XID catalog entry).
#include <fmt/format.h>

#include <charconv>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "health/node_list.h"
#include "health/stack_health.h"
#include "health/xid_catalog.h"

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

  auto code = std::make_shared<std::string>();
  auto* xid = health->add_subcommand("xid", "Print the XID catalog entry for a code");
  xid->add_option("code", *code, "XID code, e.g. 79")->required();
  xid->callback([code] { RunHealthXid(*code); });
}

}  // namespace steward::cli

#include "rollout/status.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace steward::rollout {
namespace {

std::string Hours(SimTime t) {
  return t.is_never() ? "-" : fmt::format("{:.2f}h", t.ToSeconds() / 3600);
}

}  // namespace

nlohmann::json StatusJson(const RolloutRun& run, const std::vector<Decision>& decisions) {
  nlohmann::json j = ToJson(run);
  nlohmann::json log = nlohmann::json::array();
  for (const Decision& d : decisions)
    log.push_back({{"seq", d.seq},
                   {"at_us", d.at.micros()},
                   {"commit", d.commit},
                   {"kind", d.kind},
                   {"object", d.object},
                   {"from", d.from},
                   {"to", d.to},
                   {"reason", d.reason}});
  j["log"] = std::move(log);
  return j;
}

std::string StatusText(const RolloutRun& run, const std::vector<Decision>& decisions,
                       const StatusTextOptions& options) {
  std::string out;
  auto add = [&out](const std::string& s) { out += s; };
  add(fmt::format("rollout {}: {} {} -> {} (commit {})\n", run.plan_name, run.component,
                  run.previous_version, run.version, run.plan_commit));
  add(fmt::format("state: {}{}\n", RolloutStateName(run.state),
                  run.reason.empty() ? "" : fmt::format(" ({})", run.reason)));
  add(fmt::format("nodes upgraded {}, rolled back {}; max unavailable seen {} of {}\n",
                  run.nodes_upgraded, run.nodes_rolled_back, run.max_unavailable_seen,
                  run.max_unavailable));
  for (const BatchRun& b : run.batches) {
    // The first nodes of a big batch (all of them are in the JSON).
    constexpr size_t kShown = 8;
    const std::vector<std::string> shown(b.nodes.begin(),
                                         b.nodes.begin() + std::min(kShown, b.nodes.size()));
    add(fmt::format(
        "  batch {:<12} {:<12} {} node(s): {}{}\n", b.name, BatchStateName(b.state), b.nodes.size(),
        fmt::join(shown, ", "),
        b.nodes.size() > kShown ? fmt::format(", ... ({} more)", b.nodes.size() - kShown) : ""));
    for (const GateRun& g : b.gates) {
      const std::string value = g.measurements.empty() || !g.measurements.back().value
                                    ? "-"
                                    : fmt::format("{:.4g}", *g.measurements.back().value);
      add(fmt::format("    gate {:<20} {:<12} {} = {} (success: {}; failure: {}; {} measured)\n",
                      g.name, VerdictName(g.verdict), g.metric, value,
                      g.success_condition.empty() ? "-" : g.success_condition,
                      g.failure_condition.empty() ? "-" : g.failure_condition,
                      g.tally.measurements));
    }
  }
  std::vector<const Decision*> shown;
  for (const Decision& d : decisions)
    if (options.node_steps || d.kind != "node") shown.push_back(&d);
  const size_t from =
      shown.size() > options.last_decisions ? shown.size() - options.last_decisions : 0;
  if (from < shown.size())
    add(fmt::format("decisions ({} of {}):\n", shown.size() - from, decisions.size()));
  for (size_t i = from; i < shown.size(); ++i) {
    const Decision& d = *shown[i];
    add(fmt::format("  #{:<4} {:>8} {:<11} {:<24} {} -> {}: {}\n", d.seq, Hours(d.at), d.kind,
                    d.object, d.from.empty() ? "\"\"" : d.from, d.to.empty() ? "\"\"" : d.to,
                    d.reason));
  }
  return out;
}

}  // namespace steward::rollout

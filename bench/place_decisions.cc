// Placement benchmarks on the 6,212-GPU Alibaba cluster (docs/placement.md, "Speed"): for each
// registered policy, decisions/s over one full FGD experiment (default trace, tune 1.3, seed
// 42; Observe + Place per pod, ExperimentResult::decision_seconds), the time per decision
// against FGD's, the node scores computed per decision (Placer::rescored_leaves, a
// deterministic measure of the work) and the wall time of the whole experiment (metrics
// included).
// The machine is shared, so each round runs every policy once, back to back: decisions/s and
// the experiment time are the best round's, and "vs fgd" is the median over rounds of the
// ratio to FGD's time in the same round (a load spike hits both sides of a ratio alike).
// Usage: place_decisions [DATA_DIR] [ROUNDS]   (default $STEWARD_DATA or ../shared/data, 9)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "place/experiment.h"
#include "place/policy_registry.h"

using namespace steward::place;

int main(int argc, char** argv) {
  std::filesystem::path data = argc > 1                      ? argv[1]
                               : std::getenv("STEWARD_DATA") ? std::getenv("STEWARD_DATA")
                                                             : "../shared/data";
  const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 9;
  std::filesystem::path dir = data / "alibaba-gpu-v2023";
  auto nodes = LoadAlibabaNodes(dir / "openb_node_list_gpu_node.csv");
  auto pods = LoadAlibabaPods(dir / "openb_pod_list_default.csv");
  if (!nodes.ok() || !pods.ok()) {
    std::fprintf(stderr, "cannot load the trace from %s\n", dir.c_str());
    return 1;
  }
  auto trace = PrepareTrace(*nodes, *pods, "openb_pod_list_default");
  if (!trace.ok()) return 1;
  std::printf(
      "cluster: %d nodes, %d GPUs; default trace, tune 1.3, seed 42, one core, best of %d\n",
      trace->cluster.size(), trace->cluster.total_gpus(), rounds);

  const std::vector<PolicyInfo>& policies = Policies();
  const size_t fgd = static_cast<size_t>(
      std::find_if(policies.begin(), policies.end(), [](auto& p) { return p.name == "fgd"; }) -
      policies.begin());
  std::vector<double> decide(policies.size(), 1e9), run(policies.size(), 1e9);
  std::vector<std::vector<double>> ratios(policies.size());
  std::vector<int64_t> n(policies.size(), 0), leaves(policies.size(), 0);
  for (int round = 0; round < rounds; ++round) {
    std::vector<double> per_decision(policies.size());
    for (size_t i = 0; i < policies.size(); ++i) {
      auto r = RunExperiment(*trace, policies[i].name, ExperimentConfig{});
      if (!r.ok()) {
        std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
        return 1;
      }
      decide[i] = std::min(decide[i], r->decision_seconds);
      run[i] = std::min(run[i], r->seconds);
      n[i] = r->pods;
      leaves[i] = r->rescored_leaves;
      per_decision[i] = r->decision_seconds / static_cast<double>(r->pods);
    }
    if (fgd < policies.size())
      for (size_t i = 0; i < policies.size(); ++i)
        ratios[i].push_back(per_decision[i] / per_decision[fgd]);
  }
  std::printf("%-16s %7s %12s %12s %14s %15s %16s\n", "policy", "pods", "decisions/s",
              "us/decision", "vs fgd (med)", "scores/decision", "experiment (s)");
  for (size_t i = 0; i < policies.size(); ++i) {
    const double per = decide[i] / static_cast<double>(n[i]);
    double median = 0;
    if (!ratios[i].empty()) {
      std::sort(ratios[i].begin(), ratios[i].end());
      const size_t m = ratios[i].size();
      median = m % 2 ? ratios[i][m / 2] : (ratios[i][m / 2 - 1] + ratios[i][m / 2]) / 2;
    }
    std::printf("%-16s %7lld %12.0f %12.2f %13.2fx %15.1f %16.3f\n",
                std::string(policies[i].name).c_str(), static_cast<long long>(n[i]), 1.0 / per,
                per * 1e6, median, static_cast<double>(leaves[i]) / static_cast<double>(n[i]),
                run[i]);
  }
  return 0;
}

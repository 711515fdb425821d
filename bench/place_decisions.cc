// Placement benchmarks on the 6,212-GPU Alibaba cluster (docs/placement.md, "Speed"):
// decisions/s of each policy over one full FGD experiment (default trace, tune 1.3, seed 42),
// wall time of one experiment per policy, against Best-Fit as the baseline.
// Usage: place_decisions [DATA_DIR]   (default $STEWARD_DATA or ../shared/data)
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "place/experiment.h"
#include "place/policy_registry.h"

using namespace steward::place;

int main(int argc, char** argv) {
  std::filesystem::path data = argc > 1                      ? argv[1]
                               : std::getenv("STEWARD_DATA") ? std::getenv("STEWARD_DATA")
                                                             : "../shared/data";
  std::filesystem::path dir = data / "alibaba-gpu-v2023";
  auto nodes = LoadAlibabaNodes(dir / "openb_node_list_gpu_node.csv");
  auto pods = LoadAlibabaPods(dir / "openb_pod_list_default.csv");
  if (!nodes.ok() || !pods.ok()) {
    std::fprintf(stderr, "cannot load the trace from %s\n", dir.c_str());
    return 1;
  }
  auto trace = PrepareTrace(*nodes, *pods, "openb_pod_list_default");
  if (!trace.ok()) return 1;
  std::printf("cluster: %d nodes, %d GPUs; default trace, tune 1.3, seed 42, one core\n",
              trace->cluster.size(), trace->cluster.total_gpus());
  std::printf("%-12s %10s %14s %12s %10s\n", "policy", "pods", "decisions/s", "run (s)",
              "vs bestfit");
  double base = 0;
  for (const PolicyInfo& p : Policies()) {
    // Best of 3 runs (the machine is shared).
    double best = 1e9;
    int64_t n = 0;
    for (int i = 0; i < 3; ++i) {
      auto r = RunExperiment(*trace, p.name, ExperimentConfig{});
      if (!r.ok()) return 1;
      best = std::min(best, r->seconds);
      n = r->pods;
    }
    if (p.name == "bestfit") base = best;
    std::printf("%-12s %10lld %14.0f %12.3f %10s\n", std::string(p.name).c_str(),
                static_cast<long long>(n), n / best, best,
                base > 0 ? (std::to_string(best / base).substr(0, 4) + "x").c_str() : "-");
  }
  return 0;
}

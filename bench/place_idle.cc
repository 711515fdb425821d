// Where the idle GPUs are when a placement run ends (docs/placement.md, "Beyond FGD"): per
// policy, mean over seeds of the idle GPU capacity left after the last pod, split by what
// blocks it on its node: fewer than 4 free cores (77% of the default trace's GPU pods ask for
// more), else less than 8 GiB free memory, else neither (GPU fragments too small for the pods
// that come), and per GPU model the idle GPUs and the free cores.
// Usage: place_idle [WORKLOAD] [POLICIES] [SEEDS]   (default: default fgd,fgd-cpu-online 42-51;
// data from $STEWARD_DATA or ../shared/data)
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "place/experiment.h"
#include "place/matrix.h"

using namespace steward::place;

namespace {

struct Idle {
  double gpus = 0, cpu_bound = 0, memory_bound = 0, fragments = 0;
  std::map<std::string, std::pair<double, double>> by_model;  // Idle GPUs, free cores.
};

}  // namespace

int main(int argc, char** argv) {
  const std::string workload = argc > 1 ? argv[1] : "default";
  const std::string policies = argc > 2 ? argv[2] : "fgd,fgd-cpu-online";
  auto seeds = ParseSeedList(argc > 3 ? argv[3] : "42-51");
  std::filesystem::path data =
      std::getenv("STEWARD_DATA") ? std::getenv("STEWARD_DATA") : "../shared/data";
  std::filesystem::path dir = data / "alibaba-gpu-v2023";
  auto nodes = LoadAlibabaNodes(dir / "openb_node_list_gpu_node.csv");
  auto pods = LoadAlibabaPods(dir / ("openb_pod_list_" + workload + ".csv"));
  if (!seeds.ok() || !nodes.ok() || !pods.ok()) {
    std::fprintf(stderr, "bad seeds or cannot load %s from %s\n", workload.c_str(), dir.c_str());
    return 1;
  }
  auto trace = PrepareTrace(*nodes, *pods, workload);
  if (!trace.ok()) return 1;
  std::stringstream list(policies);
  std::string policy;
  while (std::getline(list, policy, ',')) {
    Idle idle;
    double final_alloc = 0;
    for (uint64_t seed : *seeds) {
      ExperimentConfig config;
      config.seed = seed;
      config.on_finish = [&](const ClusterState& c) {
        for (NodeId id = 0; id < c.size(); ++id) {
          const NodeState& n = c.node(id);
          const double g = static_cast<double>(n.gpu_free_total) / kMilliPerGpu;
          idle.gpus += g;
          if (n.cpu_free < 4000)
            idle.cpu_bound += g;
          else if (n.memory_free < 8192)
            idle.memory_bound += g;
          else
            idle.fragments += g;
          auto& m = idle.by_model[c.model_names()[n.model]];
          m.first += g;
          m.second += static_cast<double>(n.cpu_free) / 1000;
        }
      };
      auto r = RunExperiment(*trace, policy, config);
      if (!r.ok()) {
        std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
        return 1;
      }
      final_alloc += r->alloc_ratio[kCurvePoints - 1];
    }
    const double n = static_cast<double>(seeds->size());
    std::printf(
        "%s on %s, mean of %zu seeds: allocation %.2f%%, idle %.1f GPUs: %.1f on nodes with "
        "< 4 free cores (%.0f%%), %.1f with < 8 GiB free memory, %.1f in fragments\n",
        policy.c_str(), workload.c_str(), seeds->size(), final_alloc / n, idle.gpus / n,
        idle.cpu_bound / n, 100 * idle.cpu_bound / idle.gpus, idle.memory_bound / n,
        idle.fragments / n);
    for (const auto& [model, m] : idle.by_model)
      std::printf("  %-8s idle %6.1f GPUs, %8.0f free cores\n", model.c_str(), m.first / n,
                  m.second / n);
  }
  return 0;
}

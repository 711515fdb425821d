// The experiment matrix: policies × workloads × seeds, on all cores.
//
// Each workload's CSV is read and prepared once and shared read-only by the worker threads;
// each run owns its ClusterState copy, policy and Placer, so runs are independent and the
// results (in fixed policy, workload, seed order) do not depend on the thread count.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "model/status.h"
#include "place/experiment.h"

namespace steward::place {

// The 17 workloads of the paper's 1,020-run matrix (fgd-protocol.md §2), without the
// "openb_pod_list_" prefix.
const std::vector<std::string>& PaperWorkloads();

struct MatrixConfig {
  std::filesystem::path data_dir;  // Holds openb_node_list_gpu_node.csv and the pod lists.
  std::vector<std::string> workloads = PaperWorkloads();
  std::vector<std::string> policies;  // Default (empty): every registered policy.
  std::vector<uint64_t> seeds = {42, 43, 44, 45, 46, 47, 48, 49, 50, 51};
  double tune = 1.3;
  int threads = 0;  // 0 = std::thread::hardware_concurrency().
  // Called after each finished run (from worker threads, serialised), with done and total.
  std::function<void(int, int)> progress;
};

struct MatrixResult {
  std::vector<ExperimentResult> runs;  // Policy-major, then workload, then seed.
  double seconds = 0;
  int threads = 0;
};

Result<MatrixResult> RunMatrix(const MatrixConfig& config);

// "42-51" or "42,45,50-52" -> seeds.
Result<std::vector<uint64_t>> ParseSeedList(std::string_view text);

}  // namespace steward::place

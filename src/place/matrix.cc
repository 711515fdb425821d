#include "place/matrix.h"

#include <fmt/format.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <mutex>
#include <thread>

#include "place/policy_registry.h"

namespace steward::place {

const std::vector<std::string>& PaperWorkloads() {
  static const std::vector<std::string> w = {
      "default",    "cpu050",     "cpu100",      "cpu200",     "cpu250",     "gpushare40",
      "gpushare60", "gpushare80", "gpushare100", "multigpu20", "multigpu30", "multigpu40",
      "multigpu50", "gpuspec10",  "gpuspec20",   "gpuspec25",  "gpuspec33"};
  return w;
}

Result<std::vector<uint64_t>> ParseSeedList(std::string_view text) {
  std::vector<uint64_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view part = text.substr(start, comma - start);
    size_t dash = part.find('-');
    auto num = [&](std::string_view s, uint64_t* v) {
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
      return !s.empty() && ec == std::errc() && p == s.data() + s.size();
    };
    uint64_t a = 0, b = 0;
    if (dash == std::string_view::npos) {
      if (!num(part, &a)) return Status::InvalidArgument(fmt::format("bad seed '{}'", part));
      b = a;
    } else if (!num(part.substr(0, dash), &a) || !num(part.substr(dash + 1), &b) || b < a ||
               b - a > 100000) {
      return Status::InvalidArgument(fmt::format("bad seed range '{}'", part));
    }
    for (uint64_t s = a; s <= b; ++s) out.push_back(s);
    start = comma + 1;
  }
  return out;
}

Result<MatrixResult> RunMatrix(const MatrixConfig& config) {
  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> policies = config.policies;
  if (policies.empty())
    for (const PolicyInfo& p : Policies())
      if (p.in_matrix) policies.emplace_back(p.name);
  for (const std::string& p : policies) {
    STEWARD_ASSIGN_OR_RETURN(auto unused, NewPolicy(p));  // Validate names before any run.
    (void)unused;
  }
  STEWARD_ASSIGN_OR_RETURN(std::vector<NodeSpec> nodes,
                           LoadAlibabaNodes(config.data_dir / "openb_node_list_gpu_node.csv"));
  std::vector<PreparedTrace> traces;
  for (const std::string& w : config.workloads) {
    std::string name = "openb_pod_list_" + w;
    STEWARD_ASSIGN_OR_RETURN(std::vector<TracePod> pods,
                             LoadAlibabaPods(config.data_dir / (name + ".csv")));
    STEWARD_ASSIGN_OR_RETURN(PreparedTrace t, PrepareTrace(nodes, std::move(pods), name));
    traces.push_back(std::move(t));
  }
  struct Job {
    int policy, trace;
    uint64_t seed;
  };
  std::vector<Job> jobs;
  for (int p = 0; p < static_cast<int>(policies.size()); ++p)
    for (int t = 0; t < static_cast<int>(traces.size()); ++t)
      for (uint64_t s : config.seeds) jobs.push_back({p, t, s});

  MatrixResult out;
  out.runs.resize(jobs.size());
  std::vector<Status> errors(jobs.size());
  int threads =
      config.threads > 0 ? config.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::max(1, std::min<int>(threads, static_cast<int>(jobs.size())));
  out.threads = threads;
  std::atomic<size_t> next{0};
  std::atomic<int> done{0};
  std::mutex progress_mu;
  auto worker = [&] {
    for (size_t j = next++; j < jobs.size(); j = next++) {
      ExperimentConfig ec;
      ec.tune = config.tune;
      ec.seed = jobs[j].seed;
      Result<ExperimentResult> r =
          RunExperiment(traces[jobs[j].trace], policies[jobs[j].policy], ec);
      if (r.ok())
        out.runs[j] = std::move(r).value();
      else
        errors[j] = r.status();
      int d = ++done;
      if (config.progress) {
        std::lock_guard<std::mutex> lock(progress_mu);
        config.progress(d, static_cast<int>(jobs.size()));
      }
    }
  };
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  for (const Status& s : errors) STEWARD_RETURN_IF_ERROR(s);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace steward::place

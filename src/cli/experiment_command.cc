// steward experiment frag: the FGD fragmentation experiment (docs/placement.md).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "place/experiment.h"
#include "place/matrix.h"
#include "place/policy_registry.h"
#include "place/report.h"

namespace steward::cli {
namespace {

struct FragOptions {
  std::string nodes, pods, policy, csv, html, data, policies, seeds = "42-51", workloads, markdown;
  double tune = 1.3;
  uint64_t seed = 42;
  bool json = false, matrix = false, list = false, quiet = false;
  int threads = 0;
};

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

void FailFrag(const Status& s) {
  std::fprintf(stderr, "steward experiment frag: %s\n", s.message().c_str());
  Fail();
}

// "[#####.....] 120/1190 runs, 35 s elapsed, ETA 5 min" on one stderr line.
class ProgressBar {
 public:
  void Update(int done, int total) {
    using Clock = std::chrono::steady_clock;
    double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const int width = 40;
    int filled = total > 0 ? done * width / total : width;
    double eta = done > 0 ? elapsed / done * (total - done) : 0;
    std::fprintf(stderr, "\r[%s%s] %d/%d runs, %.0f s elapsed, ETA %.0f s ",
                 std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(), done,
                 total, elapsed, eta);
    if (done == total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

void RunSingle(const FragOptions& o) {
  if (o.nodes.empty() || o.pods.empty() || o.policy.empty())
    FailFrag(
        Status::InvalidArgument("a single run needs --nodes, --pods and --policy (or --matrix)"));
  auto nodes = place::LoadAlibabaNodes(o.nodes);
  if (!nodes.ok()) FailFrag(nodes.status());
  auto pods = place::LoadAlibabaPods(o.pods);
  if (!pods.ok()) FailFrag(pods.status());
  std::string workload = std::filesystem::path(o.pods).stem().string();
  auto trace = place::PrepareTrace(*nodes, std::move(pods).value(), workload);
  if (!trace.ok()) FailFrag(trace.status());
  place::ExperimentConfig config;
  config.tune = o.tune;
  config.seed = o.seed;
  auto result = place::RunExperiment(*trace, o.policy, config);
  if (!result.ok()) FailFrag(result.status());
  std::vector<place::ExperimentResult> runs = {*result};
  if (!o.csv.empty()) {
    Status s = place::WriteCsvFiles(runs, o.csv);
    if (!s.ok()) FailFrag(s);
  }
  if (!o.html.empty()) {
    Status s = place::WriteTextFile(
        o.html, place::HtmlReport(runs, fmt::format("{} on {}, seed {}", result->policy,
                                                    result->workload, result->seed)));
    if (!s.ok()) FailFrag(s);
  }
  if (o.json) {
    std::cout << place::ResultJson(*result) << "\n";
    return;
  }
  const auto& a = result->alloc_ratio;
  std::cout << fmt::format(
      "policy {}  workload {}  seed {}  tune {}\n"
      "{} nodes, {} GPUs, {} pods submitted, {} failed ({:.1f} GPUs of demand)\n"
      "allocation at 80/90/100/110/120/130% arrived: {:.2f} {:.2f} {:.2f} {:.2f} {:.2f} {:.2f}\n"
      "fragmentation ratio at 130%: {:.2f}%, fragmented GPU: {:.2f}% of capacity\n"
      "placement loop: {:.3f} s ({:.0f} decisions/s)\n",
      result->policy, result->workload, result->seed, result->tune, result->nodes,
      result->total_gpus, result->pods, result->failed_pods, result->failed_gpu_milli / 1000.0,
      a[80], a[90], a[100], a[110], a[120], a[130], result->frag_ratio[130],
      result->frag_amount[130], result->seconds,
      result->seconds > 0 ? result->pods / result->seconds : 0.0);
}

void RunMatrixCommand(const FragOptions& o) {
  if (o.data.empty()) FailFrag(Status::InvalidArgument("--matrix needs --data DIR"));
  if (o.csv.empty()) FailFrag(Status::InvalidArgument("--matrix needs --csv FILE"));
  place::MatrixConfig config;
  config.data_dir = o.data;
  config.tune = o.tune;
  config.threads = o.threads;
  config.policies = SplitComma(o.policies);
  if (!o.workloads.empty()) config.workloads = SplitComma(o.workloads);
  auto seeds = place::ParseSeedList(o.seeds);
  if (!seeds.ok()) FailFrag(seeds.status());
  config.seeds = *seeds;
  ProgressBar bar;
  if (!o.quiet) config.progress = [&bar](int done, int total) { bar.Update(done, total); };
  auto result = place::RunMatrix(config);
  if (!result.ok()) FailFrag(result.status());
  Status s = place::WriteCsvFiles(result->runs, o.csv);
  if (!s.ok()) FailFrag(s);
  if (!o.html.empty()) {
    s = place::WriteTextFile(o.html,
                             place::HtmlReport(result->runs, "Steward: FGD experiment matrix"));
    if (!s.ok()) FailFrag(s);
  }
  std::string md = place::MarkdownSummary(result->runs);
  if (!o.markdown.empty()) {
    s = place::WriteTextFile(o.markdown, md);
    if (!s.ok()) FailFrag(s);
  }
  std::cout << md;
  std::cout << fmt::format("\n{} runs in {:.1f} s on {} threads\n", result->runs.size(),
                           result->seconds, result->threads);
}

}  // namespace

void RegisterExperimentCommands(CLI::App& app) {
  auto* experiment = app.add_subcommand("experiment", "Reproducible placement experiments");
  experiment->require_subcommand(1);
  auto o = std::make_shared<FragOptions>();
  auto* frag = experiment->add_subcommand(
      "frag", "GPU fragmentation experiment of the FGD paper (ATC'23) on the Alibaba trace");
  frag->add_option("--nodes", o->nodes, "Node list CSV (sn,cpu_milli,memory_mib,gpu,model)");
  frag->add_option("--pods", o->pods,
                   "Pod list CSV (name,cpu_milli,memory_mib,num_gpu,gpu_milli,...)");
  frag->add_option("--policy", o->policy, "Placement policy (see --list-policies)");
  frag->add_option("--tune", o->tune, "Target GPU demand as a multiple of capacity")
      ->capture_default_str();
  frag->add_option("--seed", o->seed, "Seed of the run")->capture_default_str();
  frag->add_flag("--json", o->json, "Print the result as one JSON object");
  frag->add_option("--csv", o->csv, "Write curves as CSV (paper's analysis layout)");
  frag->add_option("--html", o->html, "Write a self-contained HTML report");
  frag->add_flag("--matrix", o->matrix, "Run policies x workloads x seeds");
  frag->add_option("--data", o->data, "Directory with the Alibaba trace CSVs (--matrix)");
  frag->add_option("--policies", o->policies, "Comma-separated policies (--matrix; default all)");
  frag->add_option("--seeds", o->seeds, "Seeds, e.g. 42-51 or 42,44 (--matrix)")
      ->capture_default_str();
  frag->add_option("--workloads", o->workloads,
                   "Comma-separated workloads without the openb_pod_list_ prefix (--matrix; "
                   "default the paper's 17)");
  frag->add_option("--threads", o->threads, "Worker threads (--matrix; default all cores)");
  frag->add_option("--markdown", o->markdown, "Also write the summary tables as Markdown");
  frag->add_flag("--quiet", o->quiet, "No progress bar");
  frag->add_flag("--list-policies", o->list, "Print the policy names, one per line");
  frag->callback([o] {
    if (o->list) {
      for (const std::string& n : place::PolicyNames()) std::cout << n << "\n";
      return;
    }
    if (o->matrix)
      RunMatrixCommand(*o);
    else
      RunSingle(*o);
  });
}

}  // namespace steward::cli

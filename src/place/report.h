// Experiment reports: JSON, CSV in the layout of the FGD authors' analysis files, and a
// self-contained HTML page with SVG curves (allocation like the paper's Fig. 9a,
// fragmentation like Fig. 7) and the comparison tables.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "model/status.h"
#include "place/experiment.h"

namespace steward::place {

// One run as a JSON object: policy, workload, seed, tune, total_gpus, alloc_ratio[131],
// frag_ratio[131], frag_amount[131], failed_pods, ...
std::string ResultJson(const ExperimentResult& r);

enum class CurveMetric { kAlloc, kFragRatio, kFragAmount, kFailed };
// Rows "workload,sc_policy,tune,seed,total_gpus,0,...,130" (analysis_allo_discrete.csv etc).
std::string CurvesCsv(const std::vector<ExperimentResult>& runs, CurveMetric metric);
// Writes the allocation CSV to `path` and the others beside it: <stem>_frag_ratio.csv,
// <stem>_frag_amount.csv, <stem>_failed.csv.
Status WriteCsvFiles(const std::vector<ExperimentResult>& runs, const std::filesystem::path& path);

std::string HtmlReport(const std::vector<ExperimentResult>& runs, const std::string& title);

// Mean and sample standard deviation of the final allocation (col 130) per (workload, policy).
struct FinalStats {
  std::string workload, policy;
  int n = 0;
  double mean = 0, stddev = 0, min = 0, max = 0;
  double mean_seconds = 0;
};
std::vector<FinalStats> SummariseFinal(const std::vector<ExperimentResult>& runs);

// One policy against a baseline (FGD) on one workload: final allocation (col 130) paired by
// seed. se is the standard error of the mean paired difference, t = diff / se (0 if se is 0).
struct PairedWorkload {
  std::string workload;
  double baseline_mean = 0, mean = 0, diff = 0, se = 0, t = 0;
  int won = 0;  // Seeds where the policy allocated strictly more.
  std::vector<double> seed_diffs;
  bool significant = false;  // |t| above the two-sided 5% critical value (df = seeds - 1).
};
struct PairedComparison {
  std::string policy, baseline;
  std::vector<PairedWorkload> workloads;  // Only workloads with at least one paired seed.
  int wins = 0;                           // Workloads with diff > 0 (mean over seeds).
  int significant_wins = 0, significant_losses = 0;
  // Decision time per pod (ExperimentResult::decision_seconds / pods) over the paired runs,
  // policy / baseline; 0 if not measured.
  double decision_time_ratio = 0;
};
PairedComparison CompareWith(const std::vector<ExperimentResult>& runs, const std::string& policy,
                             const std::string& baseline = "fgd");
// Two-sided 5% critical value of Student's t with `df` degrees of freedom (1.96 above 30).
double StudentT975(int df);

// Markdown tables for docs/placement.md: ours vs published (col 130), our policies vs FGD
// per seed, and the default trace's curves vs the published levels (§8.1, §8.3).
std::string MarkdownSummary(const std::vector<ExperimentResult>& runs);

Status WriteTextFile(const std::filesystem::path& path, const std::string& text);

}  // namespace steward::place

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

// Markdown tables for docs/placement.md: ours vs published (col 130), and our policies vs FGD.
std::string MarkdownSummary(const std::vector<ExperimentResult>& runs);

Status WriteTextFile(const std::filesystem::path& path, const std::string& text);

}  // namespace steward::place

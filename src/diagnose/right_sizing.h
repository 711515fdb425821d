// Right-sizing (issue 7 item 4): per workload class, what the pods asked for against what they
// drove, turned into a recommended request and the GPU-hours it would free.
//
// History is kept as histograms, O(1) per workload, fed by RightSizer from the same frames the
// waste classifier reads (so the twin, Prometheus and a bundle give one answer):
//  - pod-hours by how many of the pod's GPUs were driven (computing: activity at or above the
//    classifier's idle_sm_active), and
//  - driven GPU-hours by their SM-active.
// Per class (ClassOf: the team and the pods' app.kubernetes.io/name, else the workload) and
// requested size (a class mixing 1- and 8-GPU pods gets one row per size):
//  - recommended GPUs per pod = the `quantile` (default p95) of GPUs driven per pod over
//    pod-hours, at least 1; GPU-hours freed = (requested - recommended) x pod-hours. Idle time
//    counts as driving none, so a class idle over 95% of the time is sent to idle reclaim;
//  - a 1-GPU pod whose driven GPUs' SM-active stays under share_below at the quantile is a
//    sharing candidate: the smallest MIG instance whose share of the SMs (k/7) covers that
//    SM-active; freed = (1 - k/7) x pod-hours. Memory is not checked (FB_USED must fit too).
// Kubecost's request right-sizing has the same shape (quantile of usage / target utilization,
// ../shared/docs/util-cost-facts.md §2); GPUs are whole, so the quantile is rounded up.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "diagnose/frame.h"

namespace steward::diagnose {

inline constexpr int kSmBins = 20;  // SM-active histogram bins of 0.05.

struct RequestHistory {
  std::string workload;
  std::string workload_class;  // What the recommendation is for (e.g. team/job template).
  int gpus_per_pod = 1;        // Requested nvidia.com/gpu per pod.
  // Pod-hours by GPUs of the pod driven (index 0..gpus_per_pod).
  std::vector<double> pod_hours_by_driven;
  // Driven GPU-hours by SM-active, bin i = [i/kSmBins, (i+1)/kSmBins); 1.0 goes to the last.
  std::array<double, kSmBins> driven_gpu_hours_by_sm{};

  void AddPodHours(int driven, double pod_hours);
  void AddDrivenGpuHours(double sm_active, double gpu_hours);
};

struct RightSizingOptions {
  double quantile = 0.95;    // Of pod-hours, for GPUs driven and for SM-active.
  double share_below = 0.5;  // SM-active (at the quantile) under which a 1-GPU pod may share.
  double min_pod_hours = 1;  // Less history than this: no recommendation.
};

struct RightSizing {
  std::string workload_class;
  int gpus_per_pod = 0;  // Requested.
  int workloads = 0;
  double pod_hours = 0;
  int driven_gpus = 0;  // GPUs per pod driven at the quantile.
  int recommended_gpus_per_pod = 0;
  double sm_active = 0;  // SM-active of a driven GPU at the quantile (upper edge of its bin).
  int mig_sevenths = 0;  // Sharing candidate: MIG compute slices (of 7) that carry it; 0 = none.
  double gpu_hours_freed = 0;             // By requesting fewer whole GPUs.
  double gpu_hours_freed_by_sharing = 0;  // By a MIG instance instead of a whole GPU.
  std::string recommendation;             // One concrete sentence.
};

// Largest GPU-hours freed first (then class, size); classes under min_pod_hours are left out.
std::vector<RightSizing> RightSize(const std::vector<RequestHistory>& history,
                                   const RightSizingOptions& options = {});
// MIG profile name of k compute slices on an 80 GB H100/A100 ("2g.20gb"); "" for no such
// profile.
std::string_view MigProfile80Gb(int sevenths);

nlohmann::json RightSizingJson(const std::vector<RightSizing>& rows);
// The rows that change something, as the diagnose report's section.
std::string RightSizingText(const std::vector<RightSizing>& rows, double quantile);

// Builds per-workload request histories from frames: for each bound, running pod, how many of
// its GPUs computed in the sample (activity >= idle_sm_active) and at what SM-active. Pods
// still starting are not usage history.
class RightSizer : public FrameSink {
 public:
  RightSizer(double idle_sm_active, RightSizingOptions options);

  Status Consume(const Snapshot& raw, const Frame& frame, const Catalog& catalog) override;
  std::vector<RightSizing> Result() const { return RightSize(histories_, options_); }

 private:
  double idle_sm_active_;
  RightSizingOptions options_;
  std::vector<RequestHistory> histories_;
  // (workload name id, requested GPUs per pod) -> index in histories_.
  std::vector<std::vector<std::pair<int, int32_t>>> index_;
  // The history of workload p.workload's pods of `requested` GPUs (created on first use).
  int32_t History(const PodState& p, int requested, const Catalog& catalog);

  // Per frame, by pod id: GPUs seen and driven (reset through the pods the frame lists), and
  // the history the pod's samples go to (-1: none, e.g. still starting).
  std::vector<int> seen_, driven_;
  std::vector<int32_t> history_of_;
};

}  // namespace steward::diagnose

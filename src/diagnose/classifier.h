// The waste classifier: reads frames in time order and decides, per GPU sample, where each
// allocated GPU-hour went. State is O(1) per GPU and per workload (streak counters, no sample
// history), so 7 days x 10,240 GPUs at a 5-minute step streams through in seconds.
//
// Per sample of a GPU a pod holds, with `a` its activity (SM_ACTIVE, else GR_ENGINE_ACTIVE,
// else GPU_UTIL/100) and `dt` the step, exactly one of (the rules of docs/diagnose.md):
//  - startup: the pod is Pending on a node (image pull, container start): (1 - a) dt.
//  - computing (a >= idle_sm_active): a dt is SM-active; (1 - a) dt is low_efficiency when
//    a < low_sm_active (or tensor-active < low_tensor_active), else unattributed.
//  - idle with memory held (FB_USED >= fb_held_mib): joins the GPU's idle streak.
//  - untouched (no memory, not computing): before the pod ever touched the GPU, a candidate for
//    over_request; after, part of an idle streak.
// Idle streaks: one reaching zombie_minutes is zombie, all of it; a shorter one between two
// computing samples whose GPU_UTIL stayed <= stall_gpu_util_percent is a drop, and a pod's hold
// of a GPU with >= stall_min_drops drops charges them all to dataloader_stall (else
// low_efficiency, as are other short pauses). A hold that never touched the GPU is
// over_request. Holds close when the GPU's pod label changes or at the end.
// Per frame, for pods pending with no node: free GPUs (allocatable - held on schedulable nodes)
// up to the GPUs of no-fit pods that fit in the free total but on no node are fragmentation;
// free GPUs left, up to the GPUs of pods waiting for quota, are queueing.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "cost/waste_cause.h"
#include "diagnose/diagnosis.h"
#include "diagnose/frame.h"
#include "diagnose/right_sizing.h"
#include "diagnose/thresholds.h"

namespace steward::diagnose {

class Classifier : public FrameSink {
 public:
  Classifier(Thresholds thresholds, cost::CostModel cost_model);

  Status Consume(const Snapshot& raw, const Frame& frame, const Catalog& catalog) override;
  Status Finish(const Catalog& catalog) override;

  // The report; valid after Finish(). `source` is copied into it as given.
  Diagnosis Result(const Diagnosis::Source& source) const;

 private:
  using Cause = cost::WasteCause;
  static constexpr int kCauses = cost::kNumWasteCauses;

  struct GpuState {
    uint32_t last_frame = 0;
    int32_t pod = -1;  // Pod of the open hold; -1 = none.
    int32_t workload = -1;
    bool touched = false;  // The hold used the GPU (memory or compute) at least once.
    double untouched_hours = 0, untouched_waste = 0;
    double streak_hours = 0, streak_waste = 0;
    bool streak_after_compute = false;  // The open streak follows a computing sample.
    bool streak_all_zero = true;        // Every sample: memory held and GPU_UTIL at ~0.
    bool streak_zombie = false;         // Reached zombie_minutes (already charged).
    bool computed = false;              // The last sample of the hold computed.
    double drop_waste = 0;
    int drops = 0;
    double usd_per_hour = 0;
    std::array<double, kCauses> waste{};
  };
  struct WorkloadTotals {
    int32_t team = -1;
    int32_t owner_kind = -1;  // Name id.
    int peak_pods = 0;        // Most pods bound at one frame.
    int pods_now = 0;
    uint32_t pods_frame = 0;  // Frame pods_now counts.
    double allocated = 0, sm_active = 0, usd = 0;
    std::array<double, kCauses> waste{};
  };

  void Charge(int32_t gpu, Cause cause, double hours);
  void Sample(int32_t gpu, const GpuReading& r, const PodState& pod, double dt);
  void AddIdle(int32_t gpu, double dt, double waste, bool zero);
  void CloseStreak(int32_t gpu, bool computing_follows);
  void CloseHold(int32_t gpu);
  void ClusterWaste(const Frame& frame, const Catalog& catalog);
  double PriceOfName(int32_t name_id, const Catalog& catalog);

  Thresholds t_;
  cost::CostModel cost_model_;
  RightSizer right_sizer_;  // Same frames, same idle threshold.
  double zombie_hours_;
  uint32_t frame_no_ = 0;
  int64_t first_ms_ = 0, last_ms_ = 0;
  double step_hours_ = 0;

  std::vector<GpuState> gpus_;
  std::vector<WorkloadTotals> workloads_;  // By name id (workload names).
  struct TeamQueueing {
    double gpu_hours = 0, usd = 0, waiting_gpu_hours = 0;
    int peak_waiting = 0;
    int waiting_now = 0;
    uint32_t frame = 0;  // Frame waiting_now counts.
  };
  std::vector<TeamQueueing> team_queueing_;  // By name id (team names).
  std::vector<int32_t> waiting_teams_;       // Per frame scratch: teams with pods waiting.
  std::vector<double> name_price_;           // By name id (products); < 0 = not computed.
  std::vector<int32_t> pod_slot_;            // Pod id -> index in the current frame's pods.
  std::vector<uint32_t> pod_slot_frame_;
  // Per frame scratch, by node id.
  std::vector<int> held_on_node_;
  std::vector<int> free_on_node_;
  std::vector<int32_t> node_of_free_;

  double capacity_ = 0, allocated_ = 0, busy_ = 0, sm_active_ = 0;
  double unattributed_ = 0, unmapped_busy_ = 0;
  std::array<double, kCauses> waste_{}, usd_{};
  const Catalog* catalog_ = nullptr;  // Set by Finish() for Result().
};

}  // namespace steward::diagnose

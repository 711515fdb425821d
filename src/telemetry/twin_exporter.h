// The twin as a dcgm-exporter: per-GPU DCGM records for every simulated GPU, derived from the
// workloads' usage profiles at the twin's current time, so the twin can be scraped by a real
// Prometheus and Steward's PromQL views can be checked against ground truth.
//
// One Update() is O(GPUs + workloads + pods): a pass over the workloads' pods marks each
// allocated GPU (which pod, active or not), then a pass over the GPUs fills the values. Identity
// labels (Hostname, UUID, modelName, ...) are built once in the constructor.
//
// The value model (every formula is documented in docs/telemetry.md, "The twin as an exporter"):
//  - A pod holding n GPUs drives only the lowest k = ceil(used_gpu_fraction x n) of them
//    (over-request: 8 asked, 2 used). The other n - k are allocated but untouched.
//  - On a driven GPU of a running pod in its active phase: GPU_UTIL = 100 x busy, SM_ACTIVE =
//    sm_active, except while the pod's data loader stalls (InDataLoaderStall), when both are 0
//    and the memory stays held: GPU_UTIL drops to 0 periodically, as on a real input-bound job.
//    In the idle (zombie) phase: GPU_UTIL = 100 x idle_busy, SM_ACTIVE = 0.
//  - PIPE_TENSOR_ACTIVE and DRAM_ACTIVE are per-kind fractions of SM_ACTIVE; GR_ENGINE_ACTIVE =
//    GPU_UTIL / 100.
//  - FB_USED: a per-kind share of usable memory on every driven GPU of a running pod, active or
//    idle (a zombie holds its memory: that is how it shows up); 0 on untouched, starting and
//    free GPUs. FB_RESERVED = 2.04% of memory (the L4 sample's 470 of 23,034 MiB); FB_FREE =
//    memory - reserved - used.
//  - POWER_USAGE = idle + (max - idle) x min(1, 0.3 x util + 0.7 x sm + 0.05 if memory held);
//    GPU_TEMP = 30 + 45 x (power - idle) / (max - idle) degrees C. XID_ERRORS = the GPU's last
//    XID, and the ECC and NVLink error counters, from the twin's fault model
//    (twin::GpuFaultState: injected faults move them; a repair clears the XID and the volatile
//    ECC counters).
// Values are quantized to what the exporter prints (integers for %d fields, 1e-6 for %f), so the
// records, the scrape and the ground truth (TwinTruth) agree exactly.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "model/cluster.h"
#include "telemetry/dcgm_writer.h"
#include "telemetry/gpu_record.h"
#include "twin/twin.h"

namespace steward::telemetry {

// The container label of a workload's pod_index-th pod: the name of the pod set it belongs to (a
// service's replicas all run its first pod set). The pod label is twin::PodName, the name the
// Kubernetes front gives the pod.
std::string_view ContainerOf(const model::Workload& w, int pod_index);

// Whether the data loader of the pod with twin pod id `pod_id` is stalled at `t`. A profile with
// stalls (stall_period P > 0, stall_fraction f) waits f x P at a time: time is cut into slots of
// f x P and each slot of each pod stalls with probability f, drawn from a generator seeded by
// (pod_id, slot). So stalls last f x P, recur on average every P, stall a share f of the time,
// differ between pods, and never phase-lock with a scrape interval (a strictly periodic stall
// sampled at its own period would be seen always or never). Deterministic in (pod_id, t).
bool InDataLoaderStall(const model::UsageProfile& usage, int32_t pod_id, SimTime t);

// Electrical envelope of a GPU product, matched on the model's name or product label.
struct GpuPowerModel {
  double idle_watts = 70;
  double max_watts = 700;
};
// H100/H200/H800 SXM 70-700 W, A100 SXM 50-400 W, L4 16-72 W, L40S 35-350 W, B200 140-1000 W;
// anything else gets the H100 envelope.
GpuPowerModel PowerModelFor(const model::GpuModel& model);

struct TwinExporterOptions {
  // pod/namespace/container (and pod_uid="") labels, as dcgm-exporter with pod mapping on.
  bool pod_labels = true;
  // Also export the opt-in ECC (SBE/DBE, volatile/aggregate) and NVLink error counters, as
  // deployments that alert on hardware errors enable them.
  bool error_counters = true;
};

// Aggregates of one snapshot, computed from the records (what a correct PromQL query over the
// scrape must return), plus the twin's own meter for comparison.
struct TwinTruth {
  struct Group {
    int gpus = 0;
    double gpu_util_sum = 0;   // Sum of DCGM_FI_DEV_GPU_UTIL (percent).
    double sm_active_sum = 0;  // Sum of DCGM_FI_PROF_SM_ACTIVE.
    double fb_used_sum = 0;    // Sum of DCGM_FI_DEV_FB_USED (MiB).
    double power_sum = 0;      // Sum of DCGM_FI_DEV_POWER_USAGE (W).
  };
  double sim_hours = 0;
  int gpus = 0;
  int allocated_gpus = 0;  // Held by a pod (starting or running).
  int driven_gpus = 0;     // Driven by a running pod (active or idle phase).
  int idle_held_gpus = 0;  // Driven GPUs of pods in their idle (zombie) phase.
  Group all;
  std::map<std::string, Group> by_namespace;  // "" = GPUs no pod holds.
  // The twin's UsageMeter rates per GPU at the same instant. The meter integrates stalls as a
  // rate (x (1 - stall_fraction)) where the exporter shows each pod stalled or not, so the two
  // agree on average over time (exactly, at every instant, for profiles without stalls) when
  // every used_gpu_fraction x n is an integer; otherwise the exporter's ceil() rounds up and the
  // scrape shows slightly more activity.
  double meter_sm_rate = 0;
  double meter_busy_rate = 0;
};

class TwinExporter {
 public:
  // Precomputes the identity of every GPU of `cluster`, which must outlive the exporter.
  explicit TwinExporter(const model::Cluster& cluster, TwinExporterOptions options = {});

  // Rebuilds every record and the truth from `twin` at twin.now(). `twin` must simulate the
  // cluster given to the constructor.
  void Update(const twin::Twin& twin);

  std::span<const GpuRecord> records() const { return records_; }
  const TwinTruth& truth() const { return truth_; }
  // The /metrics page of the current records (dcgm-exporter 0.0.4 text).
  std::string Render() const;
  void AppendTo(std::string& out) const;
  // How Render() writes records (for rendering a copy of them elsewhere).
  const DcgmWriterOptions& writer_options() const { return writer_; }

  // The series the twin exports, in dcgm-exporter's default-counters.csv order, plus the opt-in
  // DCGM_FI_PROF_SM_ACTIVE (deployments that chart SM activity enable it) and, with
  // `error_counters`, the opt-in ECC and NVLink error counters.
  static std::vector<DcgmField> Fields(bool error_counters = true);

 private:
  enum class Use : uint8_t { kFree, kStarting, kUntouched, kActive, kIdle };
  struct Slot {
    Use use = Use::kFree;
    int32_t run = -1;  // Workload id in twin.runs().
    int32_t pod = -1;  // Index into the run's pods.
  };
  const model::Cluster& cluster_;
  TwinExporterOptions options_;
  DcgmWriterOptions writer_;
  std::vector<GpuRecord> records_;
  std::vector<Slot> slots_;
  std::vector<GpuPowerModel> power_;  // Per GPU model.
  TwinTruth truth_;
};

}  // namespace steward::telemetry

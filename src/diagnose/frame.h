// What every diagnosis source produces: one Snapshot per instant (the DCGM records of every
// GPU, the pods, the nodes), turned by a FrameBuilder into a Frame of small integer ids that
// the classifier and the writers consume. A source does nothing else; one code path decides.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "diagnose/objects.h"
#include "health/node_list.h"
#include "model/status.h"
#include "telemetry/gpu_record.h"

namespace steward::diagnose {

// The raw inputs of one instant, as a source read them. Spans are valid during Add() only.
struct Snapshot {
  int64_t time_ms = 0;  // Unix milliseconds.
  std::span<const telemetry::GpuRecord> gpus;
  std::span<const PodObject* const> pods;
  std::span<const health::NodeInfo> nodes;  // Empty = unknown (free GPUs are counted from DCGM).
  // The source promises `gpus` lists the same GPUs, in the same order, as its previous snapshot
  // (the twin's exporter does): their identities are not compared again.
  bool same_gpus_as_before = false;
};

// Identities seen so far. Ids are dense, start at 0, and stay valid for the whole diagnosis.
class Catalog {
 public:
  struct Gpu {
    std::string hostname;
    std::string uuid;
    int index = -1;
    std::string model_name;  // DCGM modelName, e.g. "NVIDIA H100 80GB HBM3".
    int32_t node = -1;       // The node named like the GPU's Hostname.
    int32_t product = -1;    // modelName in GFD's label form ("NVIDIA-H100-80GB-HBM3").
  };
  struct Pod {
    std::string namespace_name;
    std::string name;
  };
  struct Node {
    std::string name;
    int32_t product = -1;  // GFD product label, else the product of its first GPU seen.
  };

  int32_t InternGpu(const telemetry::GpuIdentity& id);
  int32_t InternPod(std::string_view namespace_name, std::string_view name);
  int32_t InternNode(std::string_view name);
  // Teams, workloads and products share one string table.
  int32_t InternName(std::string_view name);

  const std::vector<Gpu>& gpus() const { return gpus_; }
  const std::vector<Pod>& pods() const { return pods_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::string& name(int32_t id) const { return names_[id]; }
  size_t num_names() const { return names_.size(); }
  void set_node_product(int32_t node, int32_t product) { nodes_[node].product = product; }

 private:
  std::vector<Gpu> gpus_;
  std::vector<Pod> pods_;
  std::vector<Node> nodes_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, int32_t> gpu_index_, pod_index_, node_index_, name_index_;
};

// "NVIDIA H100 80GB HBM3" -> "NVIDIA-H100-80GB-HBM3": GPU feature discovery's product label is
// NVML's name with spaces replaced.
std::string ProductOf(std::string_view model_name);

inline constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();
inline bool Present(double v) { return !std::isnan(v); }

struct GpuReading {
  int32_t gpu = -1;
  int32_t pod = -1;  // -1 = no pod holds the GPU (empty pod label).
  // DCGM values; NaN when the series is not exported.
  double sm_active = kAbsent;         // DCGM_FI_PROF_SM_ACTIVE, 0..1.
  double gr_engine_active = kAbsent;  // DCGM_FI_PROF_GR_ENGINE_ACTIVE, 0..1.
  double tensor_active = kAbsent;     // DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, 0..1.
  double gpu_util = kAbsent;          // DCGM_FI_DEV_GPU_UTIL, percent.
  double fb_used = kAbsent;           // DCGM_FI_DEV_FB_USED, MiB.
};

// A sample's activity: SM_ACTIVE, else GR_ENGINE_ACTIVE, else GPU_UTIL / 100, clamped to
// [0, 1]; 0 when none is exported.
inline double ActivityOf(const GpuReading& r) {
  double a = 0;
  if (Present(r.sm_active)) {
    a = r.sm_active;
  } else if (Present(r.gr_engine_active)) {
    a = r.gr_engine_active;
  } else if (Present(r.gpu_util)) {
    a = r.gpu_util / 100;
  }
  return a < 0 ? 0 : a > 1 ? 1 : a;
}

struct PodState {
  int32_t pod = -1;
  int32_t node = -1;  // -1 = not bound.
  int32_t team = -1;  // Name ids.
  int32_t workload = -1;
  int32_t workload_class = -1;  // Right-sizing class (ClassOf), a name id.
  int32_t product = -1;         // Required product (nodeSelector); -1 = any.
  int32_t owner_kind = -1;      // OwnerKindOf, a name id; -1 = no pod object.
  int gpus = 0;
  PodPhase phase = PodPhase::kRunning;
  PodWait wait = PodWait::kNone;
};

struct NodeState {
  int32_t node = -1;
  int allocatable = 0;
  bool schedulable = true;  // Not cordoned and Ready.
};

struct Frame {
  int64_t time_ms = 0;
  double hours = 0;  // How long the frame stands for: the step.
  std::vector<GpuReading> gpus;
  std::vector<PodState> pods;  // Every pod with GPUs, plus a default for each DCGM pod label
                               // without a pod object (Running, team = its namespace).
  std::vector<NodeState> nodes;
  bool has_nodes = false;
};

// Consumes frames in time order: the classifier, the bundle and OpenMetrics writers.
class FrameSink {
 public:
  virtual ~FrameSink() = default;
  virtual Status Consume(const Snapshot& raw, const Frame& frame, const Catalog& catalog) = 0;
  virtual Status Finish(const Catalog& catalog) {
    (void)catalog;
    return Status::Ok();
  }
};

// The one place where raw inputs become frames: interning, attribution, defaults.
class FrameBuilder {
 public:
  FrameBuilder(Attribution attribution, int64_t step_ms);

  void AddSink(FrameSink* sink) { sinks_.push_back(sink); }
  // Times must increase strictly; a GPU that appears twice in one snapshot is kept once (the
  // first), as is a pod.
  Status Add(const Snapshot& snapshot);
  Status Finish();

  const Catalog& catalog() const { return catalog_; }
  int64_t step_ms() const { return step_ms_; }
  int frames() const { return frames_; }
  int64_t first_ms() const { return first_ms_; }
  int64_t last_ms() const { return last_ms_; }

 private:
  int32_t PodId(int slot, const telemetry::GpuIdentity& id);

  Attribution attribution_;
  int64_t step_ms_;
  Catalog catalog_;
  std::vector<FrameSink*> sinks_;
  Frame frame_;
  int frames_ = 0;
  int64_t first_ms_ = 0, last_ms_ = 0;
  // Per record position: the last identity and ids seen there, so an unchanged record costs two
  // string compares instead of hash lookups.
  struct Slot {
    std::string hostname, uuid;
    int index = -1;
    int32_t gpu = -1;
    std::string pod_namespace, pod_name;
    int32_t pod = -1;
  };
  std::vector<Slot> slots_;
  std::vector<uint32_t> gpu_stamp_, pod_stamp_;  // Frame number that last used each id.
  struct PodMeta {                               // Per pod id: attribution resolved once.
    int32_t team = -1, workload = -1, workload_class = -1, product = -1, owner_kind = -1;
    bool from_object = false;  // Else a default from the DCGM labels, replaced by an object.
    std::string node_name;     // The node it was last bound to, and its id.
    int32_t node = -1;
  };
  struct NodeSlot {  // Per position in the node list, as Slot for GPUs.
    std::string name;
    int32_t node = -1;
    std::string product;
  };
  std::vector<NodeSlot> node_slots_;
  std::vector<PodMeta> meta_;
  std::unordered_map<const PodObject*, int32_t> pod_by_address_;
};

}  // namespace steward::diagnose

// PodRequest: what one pod asks of the placement layer.
//
// Units follow the Alibaba trace and the FGD simulator: CPU in milli-cores, memory in MiB,
// GPU share in milli-GPU per GPU (1000 = one whole GPU). A pod with num_gpu == 1 and
// gpu_milli < 1000 shares one physical GPU with others; a pod with num_gpu >= 1 and
// gpu_milli == 1000 takes whole GPUs, all on one node; a MIG pod (mig_profile != kNoMig) takes
// one GPU instance of that profile on one GPU (place/mig.h). The same struct is filled by the
// Alibaba trace loader and by the digital twin from its workloads.
#pragma once

#include <cstdint>

#include "model/extended_resources.h"
#include "model/workload.h"
#include "place/mig.h"

namespace steward::place {

inline constexpr int kMilliPerGpu = 1000;

// Extended resources (model/extended_resources.h) by the cluster's slots: four keep NodeState
// flat.
using model::ExtendedAmounts;
using model::kMaxExtendedResources;

// A set of GPU model indices (bit i = model i of the ClusterState); 0 means "any model".
using ModelMask = uint64_t;
inline constexpr ModelMask kAnyModel = 0;

struct PodRequest {
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int num_gpu = 0;    // 0 = CPU-only pod.
  int gpu_milli = 0;  // Per GPU, 1..1000 when num_gpu > 0.
  ModelMask allowed_models = kAnyModel;
  // Where a gang's pods would like to land. Single-pod placement (the Alibaba experiment)
  // ignores it; the twin's gang placement uses it to rank nodes of one domain first.
  model::TopologyPreference topology = model::TopologyPreference::kNone;
  // The twin's placement pool the pod must land in (NodeState::pool); -1 = any node.
  int16_t pool = -1;
  // A MIG instance instead of whole or fractional GPUs: num_gpu is 1 and gpu_milli is
  // MigMilli(profile), the compute share, so milli-based scores still see its size.
  int8_t mig_profile = kNoMig;
  ExtendedAmounts extended{};  // Per slot; all 0 for almost every pod.

  bool IsMig() const { return mig_profile != kNoMig; }
  bool IsCpuOnly() const { return num_gpu == 0; }
  bool IsSharing() const { return num_gpu == 1 && gpu_milli < kMilliPerGpu; }
  int64_t TotalGpuMilli() const { return static_cast<int64_t>(num_gpu) * gpu_milli; }
  bool AllowsModel(int model) const {
    return allowed_models == kAnyModel || ((allowed_models >> model) & 1) != 0;
  }
};

// The GPU "shape" class of a pod, as GPU Clustering labels it: CPU-only, shared GPU (MIG
// included), or k whole GPUs (k = 1..8). Index into NodeState::shape_pods.
inline constexpr int kNumShapeClasses = 10;
inline int ShapeClass(const PodRequest& pod) {
  if (pod.num_gpu == 0) return 0;
  if (pod.IsSharing() || pod.IsMig()) return 1;
  return pod.num_gpu < kNumShapeClasses - 1 ? pod.num_gpu + 1 : kNumShapeClasses - 1;
}

}  // namespace steward::place

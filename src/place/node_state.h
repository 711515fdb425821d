// NodeState: the free resources of one node as the placement layer sees them.
//
// Small and flat (no heap) so policies score it in a few nanoseconds and the engine can copy
// it to try a placement. GPUs are identified by their index on the node (0..num_gpus-1), as
// the FGD simulator's gpu-index annotation and nvidia-smi do.
#pragma once

#include <array>
#include <cstdint>

#include "place/pod_request.h"

namespace steward::place {

// Largest node the placement layer models (HGX / DGX and every Alibaba node have <= 8).
inline constexpr int kMaxGpusPerNode = 8;

// The exact GPUs a pod gets on its node.
struct GpuList {
  int8_t count = 0;
  std::array<int8_t, kMaxGpusPerNode> index{};
  void Add(int i) { index[count++] = static_cast<int8_t>(i); }
  bool operator==(const GpuList& o) const {
    if (count != o.count) return false;
    for (int i = 0; i < count; ++i)
      if (index[i] != o.index[i]) return false;
    return true;
  }
};

struct NodeState {
  int64_t cpu_capacity = 0;  // milli-cores.
  int64_t cpu_free = 0;
  int64_t memory_capacity = 0;  // MiB.
  int64_t memory_free = 0;
  int model = 0;  // GPU model index (ClusterState::model_names()).
  int num_gpus = 0;
  int pods = 0;                // Pods bound to the node.
  int max_pods = 1001;         // Kubernetes "pods" allocatable (1001 in the FGD simulator's nodes).
  int64_t gpu_free_total = 0;  // Σ gpu_free, milli.
  std::array<int16_t, kMaxGpusPerNode> gpu_free{};  // milli left per GPU, 0..1000.
  // Pods per shape class (ShapeClass()), for GPU Clustering's affinity bands.
  std::array<uint16_t, kNumShapeClasses> shape_pods{};

  int FullyFreeGpus() const {
    int n = 0;
    for (int i = 0; i < num_gpus; ++i) n += gpu_free[i] == kMilliPerGpu;
    return n;
  }
  // GPUs with at least `milli` free.
  int GpusWithFree(int milli) const {
    int n = 0;
    for (int i = 0; i < num_gpus; ++i) n += gpu_free[i] >= milli;
    return n;
  }
  // GPU pods (any shape but CPU-only) on the node, and how many distinct GPU shapes they have.
  int GpuShapeKinds() const {
    int k = 0;
    for (int c = 1; c < kNumShapeClasses; ++c) k += shape_pods[c] > 0;
    return k;
  }
};

// The hard rules every policy obeys (the FGD simulator's NodeResourcesFit + Open-Gpu-Share
// filters): CPU, memory and pod count fit; a GPU pod needs the node's model to be allowed and
// num_gpu GPUs each with gpu_milli free (so whole-GPU pods need fully free GPUs).
inline bool Fits(const NodeState& node, const PodRequest& pod) {
  if (node.cpu_free < pod.cpu_milli || node.memory_free < pod.memory_mib) return false;
  if (node.pods >= node.max_pods) return false;
  if (pod.num_gpu == 0) return true;
  if (node.num_gpus == 0 || !pod.AllowsModel(node.model)) return false;
  return node.GpusWithFree(pod.gpu_milli) >= pod.num_gpu;
}

// The simulator's "best" GPU choice: a sharing pod takes the GPU with the least free milli
// that still fits (lowest index on ties); a whole-GPU pod takes the lowest-index fully free
// GPUs. REQUIRES: Fits(node, pod).
GpuList TightestGpus(const NodeState& node, const PodRequest& pod);

// Applies / removes `pod` on `gpus`. Apply REQUIRES the GPUs to have room; Release REQUIRES
// that the same pod was applied on the same GPUs.
void ApplyPod(NodeState& node, const PodRequest& pod, const GpuList& gpus);
void ReleasePod(NodeState& node, const PodRequest& pod, const GpuList& gpus);

// The node after placing `pod` the way NodeResource.Sub does in the simulator (CPU taken,
// each requested GPU from the tightest GPU that fits). Used by scores that look ahead.
NodeState AfterTightest(const NodeState& node, const PodRequest& pod);

}  // namespace steward::place

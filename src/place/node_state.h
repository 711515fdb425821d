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

// Largest node the placement layer models: 16 GPUs (HGX-2 / DGX-2; HGX H100/H200/B200 and every
// Alibaba node have 8; an NVL72 rack is 18 trays of 4 GPUs in one NVLink domain). Kept small so
// a NodeState stays flat and cheap to copy in scores (docs/placement.md, "Twin").
inline constexpr int kMaxGpusPerNode = 16;

// The exact GPUs a pod gets on its node.
struct GpuList {
  int8_t count = 0;
  std::array<int8_t, kMaxGpusPerNode> index{};
  int8_t mig_start = -1;  // MIG pods: the first memory slice of the instance on index[0].
  void Add(int i) { index[count++] = static_cast<int8_t>(i); }
  bool operator==(const GpuList& o) const {
    if (count != o.count || mig_start != o.mig_start) return false;
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
  // Used MIG memory slices per GPU; non-zero = the GPU is in MIG mode, and then its gpu_free
  // is 0 so whole-GPU and fractional pods never land on it (the slices are its capacity).
  std::array<uint8_t, kMaxGpusPerNode> mig_used{};
  // Broken GPUs (the twin's faults): a broken GPU takes no new pod; its free milli (all of it
  // once no pod holds it) is withheld instead of free, until it is repaired.
  uint16_t broken = 0;                              // Bit per GPU.
  std::array<int16_t, kMaxGpusPerNode> withheld{};  // Milli withheld per broken GPU.
  ExtendedAmounts extended_free{};                  // Per slot (PodRequest::extended).
  int16_t pool = 0;                                 // The twin's placement pool (PodRequest::pool).
  bool schedulable = true;   // False when cordoned or the device plugin is down.
  bool mig_capable = false;  // GPUs may be partitioned into MIG instances.

  // GPUs at least one pod holds (whole, fractional or a MIG instance).
  int HeldGpus() const {
    int n = 0;
    for (int i = 0; i < num_gpus; ++i)
      n += mig_used[i] != 0 || gpu_free[i] + withheld[i] < kMilliPerGpu;
    return n;
  }
  // Broken GPUs no pod holds: out of service, neither free nor allocated.
  int WithheldGpus() const {
    int n = 0;
    for (int i = 0; i < num_gpus; ++i) n += withheld[i] == kMilliPerGpu;
    return n;
  }
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

// The GPU a MIG pod would take: the MIG-mode GPU with the most slices used that still has a
// start for the profile (tightest), else the lowest-index fully free GPU; -1 if none.
int MigGpu(const NodeState& node, int profile);

// Whether the node has every extended resource the pod asks for.
inline bool ExtendedFits(const NodeState& node, const PodRequest& pod) {
  for (int i = 0; i < kMaxExtendedResources; ++i)
    if (node.extended_free[i] < pod.extended[i]) return false;
  return true;
}

// The hard rules every policy obeys (the FGD simulator's NodeResourcesFit + Open-Gpu-Share
// filters): CPU, memory, extended resources and pod count fit; a GPU pod needs the node's model to
// be allowed and num_gpu GPUs each with gpu_milli free (so whole-GPU pods need fully free GPUs); a
// MIG pod needs a MIG-capable node with a GPU that can hold its instance. The twin adds two: the
// node is schedulable and in the pod's placement pool.
inline bool Fits(const NodeState& node, const PodRequest& pod) {
  if (!node.schedulable || (pod.pool >= 0 && node.pool != pod.pool)) return false;
  if (node.cpu_free < pod.cpu_milli || node.memory_free < pod.memory_mib) return false;
  if (node.pods >= node.max_pods || !ExtendedFits(node, pod)) return false;
  if (pod.num_gpu == 0) return true;
  if (node.num_gpus == 0 || !pod.AllowsModel(node.model)) return false;
  if (pod.IsMig()) return node.mig_capable && MigGpu(node, pod.mig_profile) >= 0;
  return node.GpusWithFree(pod.gpu_milli) >= pod.num_gpu;
}

// How many pods like `pod` the node could take at once (0 if it does not fit): GPUs, CPU,
// memory, extended resources and pod slots each bound it. Used to size topology groups for gangs.
int PodsThatFit(const NodeState& node, const PodRequest& pod);

// The simulator's "best" GPU choice: a sharing pod takes the GPU with the least free milli
// that still fits (lowest index on ties); a whole-GPU pod takes the lowest-index fully free
// GPUs; a MIG pod takes MigGpu() at its highest free start. REQUIRES: Fits(node, pod).
GpuList TightestGpus(const NodeState& node, const PodRequest& pod);

// Applies / removes `pod` on `gpus`. Apply REQUIRES the GPUs to have room; Release REQUIRES
// that the same pod was applied on the same GPUs.
void ApplyPod(NodeState& node, const PodRequest& pod, const GpuList& gpus);
void ReleasePod(NodeState& node, const PodRequest& pod, const GpuList& gpus);

// Marks GPU g broken (its free milli is withheld, and so is what its pods release) or repaired
// (the withheld milli is free again).
void SetGpuBroken(NodeState& node, int g, bool broken);

// The node after placing `pod` the way NodeResource.Sub does in the simulator (CPU taken,
// each requested GPU from the tightest GPU that fits). Used by scores that look ahead.
NodeState AfterTightest(const NodeState& node, const PodRequest& pod);

}  // namespace steward::place

// ClusterState: the nodes the placement layer places onto, and what changed since when.
//
// Built from NodeSpecs by whoever owns the cluster (the Alibaba trace loader for the FGD
// experiment, the digital twin for its H100 pools); it does not know either. It records every
// node change in an append-only change log, which is how the Placer's per-pod-shape score
// indexes update incrementally: an index remembers how far into the log it has read and
// rescoring touches only the nodes changed since. Owned by one thread; not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"
#include "place/node_state.h"

namespace steward::place {

using NodeId = int32_t;
inline constexpr NodeId kNoNode = -1;

struct NodeSpec {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpus = 0;
  std::string model;  // GPU model label (P100, T4, G2, H100, ...); any text for CPU-only nodes.
  int max_pods = 1001;
};

class ClusterState {
 public:
  // Validates the specs (unique names, non-negative amounts, at most kMaxGpusPerNode GPUs).
  static Result<ClusterState> Build(const std::vector<NodeSpec>& specs);

  int size() const { return static_cast<int>(nodes_.size()); }
  const NodeState& node(NodeId id) const { return nodes_[id]; }
  const std::string& name(NodeId id) const { return names_[id]; }
  const std::vector<std::string>& model_names() const { return model_names_; }
  int FindModel(std::string_view name) const;  // -1 if no node has that model.
  // "V100M16|V100M32" -> mask of the known models; "" -> kAnyModel. Unknown names are
  // dropped; if none is known the mask matches no node (kNoModel).
  ModelMask ParseModelList(std::string_view spec) const;
  static constexpr ModelMask kNoModel = ModelMask{1} << 63;

  // Tie-break order: among equally scored nodes the one with the smallest rank wins. Default
  // rank = index. The FGD simulator breaks ties by the smallest node name after prefixing each
  // name with a seed-dependent rand.Perm index, i.e. a random rank per seed.
  int32_t rank(NodeId id) const { return rank_[id]; }
  void SetRanks(std::vector<int32_t> ranks);

  // Binds / unbinds a pod. REQUIRES: Fits() for Apply; the same placement for Release.
  void Apply(NodeId id, const PodRequest& pod, const GpuList& gpus);
  void Release(NodeId id, const PodRequest& pod, const GpuList& gpus);

  // Every node change in order (one entry per Apply/Release).
  const std::vector<NodeId>& change_log() const { return change_log_; }

  int total_gpus() const { return total_gpus_; }
  int64_t total_gpu_milli() const { return int64_t{total_gpus_} * kMilliPerGpu; }
  int64_t used_gpu_milli() const { return used_gpu_milli_; }
  // Σ over nodes of free GPU milli.
  int64_t free_gpu_milli() const { return total_gpu_milli() - used_gpu_milli_; }

 private:
  std::vector<NodeState> nodes_;
  std::vector<std::string> names_;
  std::vector<std::string> model_names_;
  std::vector<int32_t> rank_;
  std::vector<NodeId> change_log_;
  int total_gpus_ = 0;
  int64_t used_gpu_milli_ = 0;
};

}  // namespace steward::place

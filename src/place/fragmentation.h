// Fragmentation: the FGD paper's measure of GPU capacity that typical pods cannot use.
//
// A workload's typical pods are its most common resource specs (CPU, per-GPU milli, GPU count,
// allowed models; memory is not part of the spec), taken by count until they cover 95% of the
// pods, with frequencies renormalised to 1. The fragment of a node relative to a typical pod
// m is the node's idle GPU milli that m cannot use: all of it if m cannot run there at all
// (m is CPU-only, m's models exclude the node's, too little CPU, too few GPUs with m's milli
// free), else the milli left on GPUs with less than m's per-GPU milli free. F(node) =
// Σ_m p_m · frag_m(node), in milli-GPU. Source: fgd-protocol.md §4 (pkg/utils/frag.go).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <tuple>
#include <vector>

#include "place/node_state.h"

namespace steward::place {

struct TypicalPod {
  PodRequest pod;     // memory_mib is 0: not part of the spec.
  double weight = 0;  // Renormalised frequency; the weights sum to 1.
};

// Counts of pod specs (CPU, per-GPU milli, GPU count, allowed models), the input of the
// typical-pod selection; fed one pod at a time it lets a policy learn typical pods online.
class PodSpecCounts {
 public:
  // gpu_res_weight is the simulator's gpuResWeight: a whole-GPU pod counts 1 + num_gpu × w
  // instead of 1 (the paper's runs use 0).
  void Add(const PodRequest& pod, double gpu_res_weight = 0);
  // Specs sorted by count (descending; ties to the smaller spec by cpu, gpu milli, gpu count,
  // models), taken one at a time until their cumulative count is >= threshold × total, then
  // renormalised. Empty if nothing was added.
  std::vector<TypicalPod> Typical(double threshold = 0.95) const;
  double total() const { return total_; }

 private:
  using Spec = std::tuple<int64_t, int, int, ModelMask>;  // cpu, milli, count, models.
  std::map<Spec, double> counts_;
  double total_ = 0;
};

// The typical pods of a whole `population` (PodSpecCounts over it, see there).
std::vector<TypicalPod> TypicalPodsOf(std::span<const PodRequest> population,
                                      double threshold = 0.95, double gpu_res_weight = 0);

// F(node) with a memo keyed by the node's fragmentation-relevant state (CPU free, model,
// sorted GPU free list), as the simulator memoises it. Not thread-safe (owns its memo).
class FragmentationModel {
 public:
  explicit FragmentationModel(std::vector<TypicalPod> typical);

  // F(node) in milli-GPU.
  double NodeFrag(const NodeState& node);
  // The same without the memo (reference implementation, for tests).
  double ComputeNodeFrag(const NodeState& node) const;

  const std::vector<TypicalPod>& typical() const { return typical_; }
  int64_t memo_size() const { return static_cast<int64_t>(used_); }

 private:
  struct Slot {
    uint64_t a = 0, b = 0;  // a == 0 means empty (a real key always has bit 63 set).
    double value = 0;
  };
  void Grow();

  std::vector<TypicalPod> typical_;
  std::vector<Slot> slots_;
  size_t used_ = 0;
};

}  // namespace steward::place

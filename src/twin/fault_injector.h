// FaultInjector: the random fault processes of a scenario's FaultSpec, as independent Poisson
// processes whose superposition is the cluster's fault stream:
//   process 0       XIDs on any GPU (busy or idle), total rate sum(per_gpu_hour) x GPUs; the
//                   XID is drawn by its share of the rate, the GPU uniformly;
//   process 1       rack events, per_rack_day x racks; the rack is drawn uniformly;
//   process 2 + i   the extra XIDs of driver rollout i's batch, (multiplier - 1) x the per-GPU
//                   XID rate x the batch's GPUs, from the rollout's time on; the GPU is drawn
//                   uniformly in the batch (the twin skips nodes that left the bad driver);
//   after those, one per listed version with extra XIDs: extra x the cluster's GPUs, the GPU
//   drawn from the whole cluster (the twin keeps only faults on nodes running the version:
//   thinning, exact for a Poisson process). None exist when no version is listed.
// Each process has its own random stream (MixSeed of the scenario seed), so adding a rollout
// never shifts the base faults. It only draws; the twin applies the faults.
#pragma once

#include <cstdint>
#include <vector>

#include "model/cluster.h"
#include "model/time.h"
#include "twin/rng.h"
#include "twin/scenario.h"

namespace steward::twin {

class FaultInjector {
 public:
  static constexpr int kGpuXids = 0;
  static constexpr int kRackEvents = 1;
  static constexpr int kFirstRollout = 2;

  FaultInjector(const FaultSpec& spec, const model::Cluster& cluster, uint64_t seed);

  int num_processes() const { return static_cast<int>(rngs_.size()); }
  // The process's next fault after `now`; Never() when its rate is zero.
  SimTime Next(int process, SimTime now);
  // The XID of a GPU fault, drawn by rate.
  int DrawXid(int process);
  // A GPU: any (kGpuXids) or one of rollout batch's (kFirstRollout + i).
  model::GpuId DrawGpu(int process);
  int DrawRack();

  // The process of scenario version v (faults.versions[v]).
  int VersionProcess(int v) const { return first_version_ + v; }
  // The version index of process p, or -1 when p is not a version's.
  int VersionOf(int p) const { return p >= first_version_ ? p - first_version_ : -1; }

  // Rollout i's batch of nodes: [first, first + count) (set by the twin, which resolves pools).
  void SetBatch(int rollout, model::NodeId first, int count);
  model::NodeId batch_first(int rollout) const { return batches_[rollout].first_node; }
  int batch_nodes(int rollout) const { return batches_[rollout].nodes; }

 private:
  struct Batch {
    model::NodeId first_node = 0;
    int nodes = 0;
    model::GpuId first_gpu = 0;
    int gpus = 0;
  };
  const FaultSpec& spec_;
  const model::Cluster& cluster_;
  std::vector<Rng> rngs_;
  std::vector<double> rate_per_hour_;  // Per process.
  double xid_rate_per_gpu_ = 0;        // Sum of the per-XID rates.
  std::vector<Batch> batches_;
  int first_version_ = 0;
};

}  // namespace steward::twin

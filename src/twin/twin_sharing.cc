// Sharing a GPU between serving and training in the twin (issue 19 item 3, docs/tidal.md
// "Sharing a GPU"). Opt-in: only when a scenario has traffic services and a pool declares
// `gpu_sharing: mps | time-slicing`; other scenarios get no index, no work and no report keys.
//
// - The index (twin/gpu_sharing.h): every pod that shares a GPU (one GPU, a fraction or a MIG
//   instance) is listed on its GPU as it is placed and struck off as it is released.
// - At each serving sync, each ready replica of a traffic service that shares its GPU looks up
//   the other pods there that are not serving replicas (its neighbours), and the interference
//   model (twin/interference.h) gives its service-rate factor and slice wait from what they do
//   (their usage profile: SM-active and busy while computing, times their share of the GPU; an
//   idle or not yet started neighbour does nothing). The service's latency is then the mixture
//   of its unlike replicas (twin/latency_model.h).
// - The neighbours' side: each training pod beside ready replicas runs at NeighbourSpeed of
//   their load (a replica's duty is its utilization at this sync). The twin accounts what they
//   held and what they computed (GPU-hours x speed) between syncs; their completion times do
//   not yet stretch (docs/tidal.md, Left).
// Serving replicas beside serving replicas are not interference here: capacity_per_replica is
// what a replica sustains on its share as measured, neighbours of its own kind included.
#include <algorithm>
#include <bit>

#include "twin/twin.h"

namespace steward::twin {
namespace {

bool PodSharesGpu(const PodAllocation& p) {
  return std::popcount(p.gpus) == 1 &&
         (p.mig_profile != place::kNoMig || p.gpu_milli < place::kMilliPerGpu);
}

// A neighbour computes when it runs outside an idle phase (a service's replica once placed).
bool NeighbourComputes(const WorkloadRun& run) {
  return !run.idle &&
         (run.state == RunState::kRunning || run.spec.kind == model::WorkloadKind::kInference);
}

void AddReplicaToGroups(std::vector<ReplicaGroup>& groups, const ReplicaEffect& e) {
  for (ReplicaGroup& g : groups)
    if (g.rate_factor == e.rate_factor && g.wait_ms == e.wait_ms && g.wait_share == e.wait_share) {
      ++g.replicas;
      return;
    }
  groups.push_back({1, e.rate_factor, e.wait_ms, e.wait_share});
}

}  // namespace

void Twin::SetUpSharing() {
  bool any = false;
  for (const PoolSpec& p : scenario_.pools) any = any || p.gpu_sharing != GpuSharingMode::kNone;
  if (!any || serving_generators_.empty()) return;
  std::vector<GpuSharingMode> modes(cluster_.nodes().size(), GpuSharingMode::kNone);
  for (size_t n = 0; n < modes.size(); ++n) {
    const size_t pool = static_cast<size_t>(cluster_.node(static_cast<model::NodeId>(n)).pool);
    if (pool < scenario_.pools.size()) modes[n] = scenario_.pools[pool].gpu_sharing;
  }
  sharing_ = std::make_unique<GpuSharing>(std::move(modes), cluster_.gpus().size(),
                                          scenario_.interference);
}

void Twin::IndexSharedPod(const WorkloadRun& run, const PodAllocation& p, bool placed) {
  if (!PodSharesGpu(p)) return;
  const model::GpuId g = cluster_.node(p.node).first_gpu + std::countr_zero(p.gpus);
  if (placed) {
    sharing_->Add(g, {run.spec.id, p.pod_id, p.Share(), p.mig_profile != place::kNoMig});
  } else {
    sharing_->Remove(g, run.spec.id, p.pod_id);
  }
}

ReplicaSharing Twin::SharingOf(const WorkloadRun& run, const ServiceModel& model) {
  ReplicaSharing out;
  int ready = 0;
  for (const PodAllocation& p : run.pods) ready += p.running ? 1 : 0;
  if (ready == 0) return out;
  const double per_replica = model.RateAt(now_) / ready;
  const double capacity = model.spec().capacity_per_replica;
  std::vector<GpuLoad> loads;
  for (const PodAllocation& p : run.pods) {
    if (!p.running) continue;
    ReplicaEffect effect;
    bool shared = false;
    if (PodSharesGpu(p)) {
      const model::GpuId g = cluster_.node(p.node).first_gpu + std::countr_zero(p.gpus);
      const bool mig = p.mig_profile != place::kNoMig;
      const GpuSharingMode mode = sharing_->mode(p.node);
      loads.clear();
      for (const GpuSharing::Resident& r : sharing_->residents(g)) {
        if (r.workload == run.spec.id || serving_of_.count(r.workload) > 0) continue;
        shared = true;
        const WorkloadRun& n = runs_[r.workload];
        if (!NeighbourComputes(n)) continue;
        const model::UsageRates rates = model::ActiveRates(n.spec.usage);
        loads.push_back({rates.sm * r.share, rates.busy});
      }
      effect = ReplicaInterference(sharing_->spec(), mode, mig, loads);
      if (shared) {
        // Its load on the neighbours: busy for its utilization, on its whole share.
        const double u = std::min(1.0, per_replica / (effect.rate_factor * capacity));
        sharing_->replica_loads().push_back({g, {u * p.Share(), u}});
      }
    }
    AddReplicaToGroups(out.groups, effect);
    out.shared += shared ? 1 : 0;
  }
  return out;
}

void Twin::AccountSharedNeighbours() {
  auto& loads = sharing_->replica_loads();
  std::stable_sort(loads.begin(), loads.end(),
                   [](const auto& a, const auto& b) { return a.gpu < b.gpu; });
  double held = 0, effective = 0;
  std::vector<GpuLoad> on_gpu;
  for (size_t i = 0; i < loads.size();) {
    const model::GpuId g = loads[i].gpu;
    on_gpu.clear();
    for (; i < loads.size() && loads[i].gpu == g; ++i) on_gpu.push_back(loads[i].load);
    const GpuSharingMode mode = sharing_->mode(cluster_.gpu(g).node);
    for (const GpuSharing::Resident& r : sharing_->residents(g)) {
      if (serving_of_.count(r.workload) > 0) continue;
      const WorkloadRun& n = runs_[r.workload];
      if (n.spec.kind != model::WorkloadKind::kTraining || !NeighbourComputes(n)) continue;
      held += r.share;
      effective += r.share * NeighbourSpeed(sharing_->spec(), mode, r.mig, on_gpu);
    }
  }
  sharing_->SetNeighbourRates(now_, held, effective);
  loads.clear();
}

void Twin::FillSharingReport(Report& r) const {
  SharingReport& s = r.tidal.sharing;
  s.enabled = true;
  for (const PoolSpec& p : scenario_.pools)
    if (p.gpu_sharing != GpuSharingMode::kNone)
      s.pools[p.name] = std::string(GpuSharingModeName(p.gpu_sharing));
  s.training_gpu_hours_beside_serving = sharing_->held_hours(now_);
  s.training_effective_gpu_hours_beside_serving = sharing_->effective_hours(now_);
}

}  // namespace steward::twin

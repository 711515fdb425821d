// Serving in the twin (issue 19, docs/tidal.md): inference services with a traffic model are
// sized by their autoscaler every sync period instead of the hourly diurnal curve. Their
// replicas are the twin's pods: admitted, placed and started as any service's; here they are
// only wanted or released. One kServe event per sync period serves every such service, and it
// exists only when a generator has traffic:, so other scenarios run exactly as before.
#include <algorithm>
#include <bit>

#include "twin/twin.h"

namespace steward::twin {
namespace {

// Salt of the traffic streams: per (generator name, instance) so adding a generator shifts
// no other service's traffic.
constexpr uint64_t kTrafficSalt = 0x7aff1c;

// FNV-1a with its own offset basis (one digit short of pod_names.h's NameHash): stable across
// runs and platforms, and kept so serving traffic stays byte-identical.
uint64_t ServingNameHash(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

}  // namespace

Status Twin::SetUpServing() {
  double sync = 0;
  for (size_t i = 0; i < scenario_.generators.size(); ++i) {
    const GeneratorSpec& g = scenario_.generators[i];
    if (!g.serving.enabled()) continue;
    serving_generators_[g.name] = static_cast<int>(i);
    const double s = g.serving.autoscaler.sync_seconds;
    sync = sync == 0 ? s : std::min(sync, s);
  }
  const TidalSpec& tidal = scenario_.tidal;
  if (tidal.enabled) {
    // The borrowing team under fifo-quota: training gained = what it holds beyond its quota.
    tidal_borrower_team_ = scenario_.FindTeam(tidal.lend_to);
    if (tidal_borrower_team_ >= 0)
      tidal_borrower_quota_ = scenario_.teams[tidal_borrower_team_].quota_gpus;
  }
  if (serving_generators_.empty()) return Status::Ok();
  SetUpSharing();
  // One sync for all services, at the shortest period any of them asks for.
  serve_period_ = SecondsF(sync);
  if (kSimStart + serve_period_ <= horizon_)
    events_queue_.Push(kSimStart + serve_period_, EventKind::kServe);
  return Status::Ok();
}

bool Twin::AdmitsPerReplica(model::WorkloadId id) const {
  if (!scenario_.policies.serving_per_replica || !serving_of_.count(id)) return false;
  const model::Workload& w = runs_[id].spec;
  return w.pod_sets.size() == 1 && w.pod_sets[0].gpus_per_pod > 0;
}

bool Twin::AcceptService(WorkloadRun& run) {
  auto label = run.spec.labels.find(std::string(kGeneratorLabel));
  if (label == run.spec.labels.end()) return false;
  auto it = serving_generators_.find(label->second);
  if (it == serving_generators_.end()) return false;
  const GeneratorSpec& g = scenario_.generators[it->second];
  const uint64_t seed = MixSeed(scenario_.seed, kTrafficSalt ^ ServingNameHash(run.spec.name));
  serving_of_[run.spec.id] = serving_.size();
  serving_.push_back({run.spec.id, ServiceModel(g.serving, run.spec.min_replicas,
                                                run.spec.max_replicas, seed, now_)});
  run.desired_replicas = serving_.back().model.initial_replicas();
  return true;
}

void Twin::Rescale(WorkloadRun& run, int desired) {
  if (desired != run.desired_replicas) Log(LifecycleKind::kScale, run, desired);
  run.desired_replicas = desired;
  if (static_cast<int>(run.pods.size()) > desired) {
    // The newest replicas go first (a ReplicaSet prefers to delete pods not yet ready, then
    // the youngest).
    ReleasePods(run, desired);
    RequestSchedule();
  } else if (static_cast<int>(run.pods.size()) < desired) {
    // A service admitted per replica that waits already keeps its place and the reason its
    // last attempt gave (Kueue's pending pod Workloads keep theirs); its queue retries it
    // when quota frees.
    if (run.queued && AdmitsPerReplica(run.spec.id))
      RequestSchedule();
    else
      MakePending(run.spec.id);
  }
}

void Twin::OnServe() {
  for (Service& s : serving_) {
    WorkloadRun& run = runs_[s.id];
    if (run.state == RunState::kDone) continue;
    int ready = 0;
    for (const PodAllocation& p : run.pods) ready += p.running ? 1 : 0;
    // With GPU sharing, the replicas' interference as they stand at this sync.
    Rescale(run, sharing_ ? s.model.Step(now_, ready, SharingOf(run, s.model))
                          : s.model.Step(now_, ready));
  }
  if (sharing_) AccountSharedNeighbours();
  if (tidal_borrower_team_ >= 0) {
    const int over = admitter_->used_gpus(tidal_borrower_team_) - tidal_borrower_quota_;
    if (over > 0) training_gained_gpu_hours_ += over * serve_period_.ToHours();
  }
  if (now_ + serve_period_ <= horizon_) events_queue_.Push(now_ + serve_period_, EventKind::kServe);
}

std::vector<ServingLoad> Twin::ServingLoads() const {
  std::vector<ServingLoad> out;
  for (const Service& s : serving_) {
    const WorkloadRun& run = runs_[s.id];
    if (run.state == RunState::kDone) continue;
    const ServingSpec& spec = s.model.spec();
    ServingLoad l;
    l.id = s.id;
    l.name = run.spec.namespace_name + "/" + run.spec.name;
    l.rps = s.model.current_rps();
    l.capacity_per_replica = spec.capacity_per_replica;
    l.target_utilization = spec.autoscaler.target_utilization;
    l.desired_replicas = run.desired_replicas;
    for (const PodAllocation& p : run.pods) l.ready_replicas += p.running ? 1 : 0;
    l.min_replicas = run.spec.min_replicas;
    l.max_replicas = run.spec.max_replicas;
    l.gpus_per_replica = run.spec.pod_sets[0].gpus_per_pod;
    l.scale_up_pods = spec.autoscaler.scale_up_pods;
    l.scale_up_percent = spec.autoscaler.scale_up_percent;
    out.push_back(std::move(l));
  }
  return out;
}

void Twin::FillServingReport(Report& r) const {
  TidalReport& t = r.tidal;
  t.enabled = true;
  for (const Service& s : serving_) {
    const WorkloadRun& run = runs_[s.id];
    // The interval since the last sync is charged as the last sync saw it.
    ServiceModel closed = s.model;
    closed.Close(now_);
    const ServiceStats st = closed.Stats();
    ServiceReport sr;
    sr.name = run.spec.namespace_name + "/" + run.spec.name;
    sr.slo_p99_ms = st.slo_p99_ms;
    sr.p99_latency_ms = st.p99_latency_ms;
    sr.slo_minutes_violated = st.slo_minutes_violated;
    sr.requests = st.requests;
    sr.replica_hours = st.replica_hours;
    sr.peak_rps = st.peak_rps;
    sr.sharing = st.sharing;
    sr.shared_replica_hours = st.shared_replica_hours;
    sr.slowed_replica_hours = st.slowed_replica_hours;
    t.slo_minutes_violated += sr.slo_minutes_violated;
    t.services.push_back(std::move(sr));
  }
  t.training_gpu_hours_gained = training_gained_gpu_hours_;
  auto k = r.allocated_gpu_hours_by_kind.find("training");
  t.training_gpu_hours = k == r.allocated_gpu_hours_by_kind.end() ? 0 : k->second;
  t.training_jct_seconds = training_jct_.Compute();
  if (sharing_) FillSharingReport(r);
}

}  // namespace steward::twin

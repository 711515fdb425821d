// Faults in the simulated world and the operations controllers use (twin/controller.h).
//
// What an XID does follows the XID catalog's recommended action (model/xid_catalog.h):
//   none              logged (last XID, error counters); nothing stops.
//   restart-workload  the workload on the GPU stops and restarts from its last checkpoint (a
//                     service replica is re-placed); the GPU stays usable.
//   reset-gpu, reboot, drain-and-rma
//                     the GPU is unusable (the device plugin marks it unhealthy: allocatable
//                     drops by one) until a controller repairs the node; its workload stops.
// Every XID is signalled to the controllers, which decide what to do about the node.
// A bad driver rollout either raises its batch's XID rates (FaultInjector) or makes the device
// plugin advertise no GPUs: the node leaves placement and its pods stop.
// Accounting: capacity lost integrates unavailable GPUs (ClusterState) between events; a node's
// fault episode runs from its first disabling fault to the moment it is healthy and
// schedulable again (MTTR).
#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "model/xid_catalog.h"
#include "twin/pod_names.h"
#include "twin/twin.h"

namespace steward::twin {
namespace {

constexpr const char* kSourceNames[] = {"random", "rack", "driver", "scheduled", "injected"};

// What a fault does to the DCGM error counters (an illustration at the scale real counters
// move; docs/telemetry.md): ECC XIDs count single- or double-bit errors, NVLink XIDs count
// CRC, replay and recovery errors on the GPU's links.
void CountErrors(int xid, GpuFaultState& g) {
  switch (xid) {
    case 92:  // Excessive single-bit error interrupts.
      g.ecc_sbe_volatile += 256;
      g.ecc_sbe_aggregate += 256;
      return;
    case 63:  // A row remapped after correctable errors.
      g.ecc_sbe_volatile += 1;
      g.ecc_sbe_aggregate += 1;
      return;
    default:
      break;
  }
  const std::string_view family = model::XidFamily(xid);
  if (family == "ecc") {
    g.ecc_dbe_volatile += 1;
    g.ecc_dbe_aggregate += 1;
  } else if (family == "nvlink") {
    g.nvlink_crc_flit += 100;
    g.nvlink_crc_data += 10;
    g.nvlink_replay += 10;
    g.nvlink_recovery += 1;
  }
}

}  // namespace

Status Twin::SetUpFaults() {
  const FaultSpec& spec = scenario_.faults;
  gpu_faults_.assign(cluster_.gpus().size(), GpuFaultState{});
  nodes_.assign(cluster_.nodes().size(), NodeFaults{});
  for (const model::Node& node : cluster_.nodes())
    for (const model::Taint& t : node.taints)
      if (std::find(tolerated_taints_.begin(), tolerated_taints_.end(), t.key) ==
          tolerated_taints_.end())
        tolerated_taints_.push_back(t.key);
  rack_nodes_.assign(cluster_.num_racks(), {});
  for (model::NodeId n = 0; n < static_cast<model::NodeId>(cluster_.nodes().size()); ++n)
    rack_nodes_[cluster_.node(n).rack].push_back(n);
  fault_stats_.enabled = spec.enabled;
  unavailable_since_ = now_;
  training_startup_since_ = now_;
  injector_ = std::make_unique<FaultInjector>(spec, cluster_, scenario_.seed);
  for (size_t i = 0; i < spec.driver_rollouts.size(); ++i) {
    const DriverRolloutSpec& ro = spec.driver_rollouts[i];
    const int pool = cluster_.FindPool(ro.pool);
    std::vector<model::NodeId> members;
    for (model::NodeId n = 0; n < static_cast<model::NodeId>(cluster_.nodes().size()); ++n)
      if (cluster_.node(n).pool == pool) members.push_back(n);
    const int count = ro.nodes < 0 ? static_cast<int>(members.size()) - ro.first_node : ro.nodes;
    if (pool < 0 || ro.first_node + count > static_cast<int>(members.size()) || count < 1)
      return MakeInputError(
          scenario_.source, ro.line, 0, fmt::format("faults.driver_rollouts[{}]", i),
          fmt::format("pool '{}' has {} nodes; the batch is nodes [{}, {})", ro.pool,
                      members.size(), ro.first_node, ro.first_node + count));
    // Nodes of a pool are contiguous (BuildCluster), so the batch is a node range.
    injector_->SetBatch(static_cast<int>(i), members[ro.first_node], count);
    if (ro.at_hours * 3600 <= (horizon_ - kSimStart).ToSeconds())
      events_queue_.Push(kSimStart + SecondsF(ro.at_hours * 3600), EventKind::kRollout,
                         static_cast<int32_t>(i));
  }
  for (size_t i = 0; i < spec.scheduled.size(); ++i) {
    const ScheduledFaultSpec& sf = spec.scheduled[i];
    PlannedFault f;
    f.xid = sf.xid;
    f.gpu = sf.gpu;
    const std::string field = fmt::format("faults.scheduled[{}]", i);
    if (!sf.node.empty()) {
      f.node = cluster_.FindNode(sf.node);
      if (f.node == model::kNoNode)
        return MakeInputError(scenario_.source, sf.line, 0, field + ".node",
                              fmt::format("no node named '{}'", sf.node));
      if (sf.gpu >= cluster_.node(f.node).gpu_capacity)
        return MakeInputError(
            scenario_.source, sf.line, 0, field + ".gpu",
            fmt::format("node '{}' has {} GPUs", sf.node, cluster_.node(f.node).gpu_capacity));
    } else {
      f.rack = sf.rack;
      if (f.rack >= cluster_.num_racks())
        return MakeInputError(scenario_.source, sf.line, 0, field + ".rack",
                              fmt::format("the cluster has racks 0..{}", cluster_.num_racks() - 1));
    }
    planned_.push_back(f);
    // Scheduled faults happen even with random faults off: they are the scenario's script.
    const SimTime at = kSimStart + SecondsF(sf.at_hours * 3600);
    if (at <= horizon_)
      events_queue_.Push(at, EventKind::kXid, static_cast<int32_t>(planned_.size() - 1));
  }
  for (size_t v = 0; v < spec.versions.size(); ++v) {
    const int p = injector_->VersionProcess(static_cast<int>(v));
    const SimTime next = injector_->Next(p, now_);
    if (next <= horizon_) events_queue_.Push(next, EventKind::kFault, p);
  }
  for (int p : {FaultInjector::kGpuXids, FaultInjector::kRackEvents}) {
    const SimTime next = injector_->Next(p, now_);
    if (next <= horizon_) events_queue_.Push(next, EventKind::kFault, p);
  }
  return Status::Ok();
}

// ---- Event handlers --------------------------------------------------------------------

void Twin::OnFault(const Event& e) {
  const int p = e.target;
  if (p == FaultInjector::kRackEvents) {
    ApplyRackEvent(injector_->DrawRack(), scenario_.faults.rack_events.xid, FaultSource::kRack);
  } else {
    const int xid = injector_->DrawXid(p);
    const model::GpuId g = injector_->DrawGpu(p);
    const model::NodeId n = cluster_.gpu(g).node;
    const int rollout = p - FaultInjector::kFirstRollout;
    const int version = injector_->VersionOf(p);
    // A rollout's extra faults only hit nodes still on its driver, a version's only nodes
    // running it (thinning: exact for a Poisson process whose rate drops when nodes leave).
    if (version >= 0) {
      if (RunsVersion(n, version)) ApplyXid(n, cluster_.gpu(g).index, xid, FaultSource::kDriver);
    } else if (rollout < 0 || nodes_[n].rollout == rollout)
      ApplyXid(n, cluster_.gpu(g).index, xid,
               rollout < 0 ? FaultSource::kRandom : FaultSource::kDriver);
  }
  const SimTime next = injector_->Next(p, now_);
  if (next <= horizon_) events_queue_.Push(next, EventKind::kFault, p);
}

void Twin::OnPlannedFault(const Event& e) {
  const PlannedFault& f = planned_[e.target];
  if (f.rack >= 0)
    ApplyRackEvent(f.rack, f.xid, f.source);
  else
    ApplyXid(f.node, f.gpu, f.xid, f.source);
}

void Twin::OnRollout(const Event& e) {
  const int i = e.target;
  const DriverRolloutSpec& ro = scenario_.faults.driver_rollouts[i];
  ++fault_stats_.driver_rollouts;
  const model::NodeId first = injector_->batch_first(i);
  // A gated rollout's nodes switch when the rollout engine sets their version label
  // (ApplyVersionLabels); from now on the version's extra XIDs hit those that run it.
  for (int k = 0; k < injector_->batch_nodes(i) && !ro.gated.enabled; ++k) {
    const model::NodeId n = first + k;
    model::Node& node = cluster_.mutable_node(n);
    node.driver_version = ro.driver_version;
    node.labels["nvidia.com/cuda.driver-version.full"] = ro.driver_version;
    nodes_[n].rollout = i;
    if (!ro.advertises_gpus) SetGpusMissing(n, true);
  }
  const int p = FaultInjector::kFirstRollout + i;
  const SimTime next = injector_->Next(p, now_);
  if (next <= horizon_) events_queue_.Push(next, EventKind::kFault, p);
}

bool Twin::RunsVersion(model::NodeId n, int version) const {
  for (const auto& [label, v] : nodes_[n].versions)
    if (v == version) return true;
  return false;
}

void Twin::ApplyVersionLabels(model::NodeId n, const std::map<std::string, std::string>& before) {
  // The labels a rollout sets (rollout/plan.h VersionLabel): the version selects the node's
  // NVIDIADriver CR (or toolkit, device plugin, dcgm-exporter), or the MIG manager's layout.
  static constexpr const char* kVersionLabels[] = {
      "steward.io/gpu-driver-version", "steward.io/container-toolkit-version",
      "steward.io/device-plugin-version", "steward.io/dcgm-exporter-version",
      "nvidia.com/mig.config"};
  model::Node& node = cluster_.mutable_node(n);
  bool changed = false;
  for (const char* key : kVersionLabels) {
    auto now_it = node.labels.find(key);
    auto was_it = before.find(key);
    const std::string now_value = now_it == node.labels.end() ? "" : now_it->second;
    const std::string was_value = was_it == before.end() ? "" : was_it->second;
    if (now_value == was_value) continue;
    changed = true;
    nodes_[n].versions.erase(key);
    const auto& versions = scenario_.faults.versions;
    int index = -1;
    for (size_t v = 0; v < versions.size(); ++v)
      if (versions[v].version == now_value) index = static_cast<int>(v);
    if (index >= 0) nodes_[n].versions[key] = index;
    const std::string_view k(key);
    if (k == "steward.io/gpu-driver-version" && !now_value.empty()) {
      node.driver_version = now_value;
      node.labels["nvidia.com/cuda.driver-version.full"] = now_value;
      SetGatedRollout(n, now_value);
    } else if (k == "steward.io/container-toolkit-version") {
      node.toolkit_version = now_value;
    } else if (k == "steward.io/device-plugin-version") {
      node.device_plugin_version = now_value;
    } else if (k == "nvidia.com/mig.config") {
      // The MIG manager answers a new layout (mig-parted: pending, then success or failed;
      // docs/rollout.md): at once in the twin, or stuck pending for a listed bad layout.
      node.labels["nvidia.com/mig.config.state"] =
          index >= 0 ? versions[index].mig_state : std::string("success");
    }
  }
  if (!changed) return;
  bool advertises = true;
  for (const auto& [label, v] : nodes_[n].versions)
    advertises = advertises && scenario_.faults.versions[v].advertises_gpus;
  const int rollout = nodes_[n].rollout;
  const bool gated = rollout >= 0 && scenario_.faults.driver_rollouts[rollout].gated.enabled;
  if (gated) advertises = advertises && scenario_.faults.driver_rollouts[rollout].advertises_gpus;
  // A scripted bad rollout of faults.driver_rollouts keeps its own missing GPUs until a repair.
  if (rollout < 0 || gated || advertises == false) SetGpusMissing(n, !advertises);
}

void Twin::SetGatedRollout(model::NodeId n, const std::string& driver) {
  const auto& rollouts = scenario_.faults.driver_rollouts;
  int on = -1;
  for (size_t i = 0; i < rollouts.size(); ++i) {
    const model::NodeId first = injector_->batch_first(static_cast<int>(i));
    if (rollouts[i].gated.enabled && rollouts[i].driver_version == driver && n >= first &&
        n < first + injector_->batch_nodes(static_cast<int>(i)))
      on = static_cast<int>(i);
  }
  // A node of a scripted rollout stays on it until a repair re-images it.
  const int was = nodes_[n].rollout;
  if (was >= 0 && !rollouts[was].gated.enabled) return;
  nodes_[n].rollout = on;
}

// ---- Applying faults ---------------------------------------------------------------------

Status Twin::InjectXid(model::NodeId n, int gpu, int xid) {
  if (n < 0 || n >= static_cast<model::NodeId>(cluster_.nodes().size()))
    return Status::NotFound(fmt::format("no node with id {}", n));
  if (model::XidCatalog::Builtin().Find(xid) == nullptr)
    return Status::InvalidArgument(fmt::format("XID {} is not in the catalog", xid));
  if (gpu < -1 || gpu >= cluster_.node(n).gpu_capacity)
    return Status::InvalidArgument(fmt::format("node {} has GPUs 0..{}", cluster_.node(n).name,
                                               cluster_.node(n).gpu_capacity - 1));
  AccumulateUnavailable(now_);
  ApplyXid(n, gpu, xid, FaultSource::kInjected);
  return Status::Ok();
}

Status Twin::InjectRackEvent(int rack, int xid) {
  if (rack < 0 || rack >= cluster_.num_racks())
    return Status::NotFound(
        fmt::format("no rack {} (racks 0..{})", rack, cluster_.num_racks() - 1));
  if (model::XidCatalog::Builtin().Find(xid) == nullptr)
    return Status::InvalidArgument(fmt::format("XID {} is not in the catalog", xid));
  AccumulateUnavailable(now_);
  ApplyRackEvent(rack, xid, FaultSource::kInjected);
  return Status::Ok();
}

void Twin::ApplyRackEvent(int rack, int xid, FaultSource source) {
  ++fault_stats_.rack_events;
  for (model::NodeId n : rack_nodes_[rack]) ApplyXid(n, -1, xid, source);
}

void Twin::ApplyXid(model::NodeId n, int gpu, int xid, FaultSource source) {
  const model::XidEntry* entry = model::XidCatalog::Builtin().Find(xid);
  const model::XidAction action = entry ? entry->action : model::XidAction::kNone;
  const model::Node& node = cluster_.node(n);
  const int first = gpu < 0 ? 0 : gpu;
  const int last = gpu < 0 ? node.gpu_capacity - 1 : gpu;
  for (int i = first; i <= last; ++i) {
    const model::GpuId g = node.first_gpu + i;
    // A GPU already out reports nothing new (a Poisson fault on it is thinned away).
    if (cluster_.gpu(g).health == model::GpuHealth::kFailed) continue;
    ++fault_stats_.xid_events;
    ++fault_stats_.by_xid[std::to_string(xid)];
    ++fault_stats_.by_source[kSourceNames[static_cast<int>(source)]];
    gpu_faults_[g].last_xid = xid;
    CountErrors(xid, gpu_faults_[g]);
    if (model::DisablesGpu(action)) {
      ++fault_stats_.gpus_failed;
      SetGpuBroken(g, true);
    }
    if (action != model::XidAction::kNone) StopOnGpu(n, g);
  }
  TwinSignal s;
  s.kind = TwinSignal::Kind::kXid;
  s.node = n;
  s.gpu = gpu;
  s.xid = xid;
  s.at = now_;
  Signal(s);
}

void Twin::SetGpuBroken(model::GpuId g, bool broken) {
  const model::Gpu& gpu = cluster_.gpu(g);
  cluster_.mutable_gpu(g).health = broken ? model::GpuHealth::kFailed : model::GpuHealth::kHealthy;
  state_->SetGpuBroken(gpu.node, gpu.index, broken);
  RefreshNode(gpu.node);
}

void Twin::SetGpusMissing(model::NodeId n, bool missing) {
  if (nodes_[n].gpus_missing == missing) return;
  nodes_[n].gpus_missing = missing;
  RefreshNode(n);
  if (missing) {
    // The GPUs vanished under the pods: everything on the node stops.
    const model::Node& node = cluster_.node(n);
    for (int i = 0; i < node.gpu_capacity; ++i) StopOnGpu(n, node.first_gpu + i);
  }
  TwinSignal s;
  s.kind = missing ? TwinSignal::Kind::kGpusMissing : TwinSignal::Kind::kGpusBack;
  s.node = n;
  s.at = now_;
  Signal(s);
}

void Twin::RefreshNode(model::NodeId n) {
  model::Node& node = cluster_.mutable_node(n);
  const int broken = std::popcount(state_->broken_mask(n));
  const int allocatable_before = node.gpu_allocatable;
  node.gpu_allocatable = nodes_[n].gpus_missing ? 0 : node.gpu_capacity - broken;
  // Same rule as ClusterState's constructor: schedulable = not cordoned, not tainted against
  // the workloads, and the device plugin advertises GPUs.
  const bool schedulable = !node.cordoned && !nodes_[n].tainted && node.gpu_allocatable > 0;
  // Capacity changed: admitters retry the workloads they parked.
  if (schedulable != state_->schedulable(n) || node.gpu_allocatable != allocatable_before)
    admitter_->Requeue();
  state_->SetSchedulable(n, schedulable);
  const bool impaired = broken > 0 || nodes_[n].gpus_missing;
  SimTime& since = nodes_[n].out_since;
  if (impaired && since.is_never()) {
    since = now_;
  } else if (!since.is_never() && !impaired && !node.cordoned) {
    ++fault_stats_.repairs;
    mttr_total_hours_ += (now_ - since).ToHours();
    since = SimTime::Never();
  }
}

void Twin::StopOnGpu(model::NodeId n, model::GpuId g) {
  // Every workload with a pod on the GPU (several when it is shared or carved into MIG).
  const uint64_t bit = 1ULL << cluster_.gpu(g).index;
  std::vector<model::WorkloadId> owners;
  for (model::WorkloadId w : state_->residents(n)) {
    if (std::find(owners.begin(), owners.end(), w) != owners.end()) continue;
    for (const PodAllocation& p : runs_[w].pods)
      if (p.node == n && (p.gpus & bit)) {
        owners.push_back(w);
        break;
      }
  }
  for (model::WorkloadId owner : owners) {
    WorkloadRun& run = runs_[owner];
    run.fault_interrupted = true;
    ++interruptions_;
    if (run.spec.kind == model::WorkloadKind::kInference) {
      for (size_t i = 0; i < run.pods.size(); ++i)
        if (run.pods[i].node == n && (run.pods[i].gpus & bit)) {
          ++run.interruptions;
          DropReplica(run, i);
          break;
        }
      continue;
    }
    Interrupt(run, LossCause::kFailure);
  }
}

void Twin::DropReplica(WorkloadRun& run, size_t index) {
  std::swap(run.pods[index], run.pods.back());
  ReleasePods(run, run.pods.size() - 1);
  if (run.state != RunState::kDone) MakePending(run.spec.id);
}

void Twin::AccumulateUnavailable(SimTime t) {
  if (t <= unavailable_since_) return;
  capacity_lost_ += state_->unavailable_gpus() * (t - unavailable_since_).ToHours();
  unavailable_since_ = t;
}

// ---- Controllers -------------------------------------------------------------------------

Result<TwinController*> Twin::AddController(std::unique_ptr<TwinController> controller) {
  STEWARD_RETURN_IF_ERROR(controller->Attach(*this));
  if (controller->ObservesWorkloads()) observers_.push_back(controllers_.size());
  controllers_.push_back(std::move(controller));
  wake_at_.push_back(SimTime::Never());
  wake_epoch_.push_back(0);
  ScheduleWake(controllers_.size() - 1);
  return controllers_.back().get();
}

void Twin::Signal(const TwinSignal& signal) {
  for (size_t c = 0; c < controllers_.size(); ++c) {
    controllers_[c]->OnSignal(signal);
    ScheduleWake(c);
  }
}

void Twin::SignalObservers(TwinSignal::Kind kind, model::WorkloadId w, model::NodeId n,
                           uint64_t gpus) {
  if (observers_.empty()) return;
  TwinSignal s;
  s.kind = kind;
  s.workload = w;
  s.node = n;
  s.gpus = gpus;
  s.at = now_;
  for (size_t c : observers_) {
    controllers_[c]->OnSignal(s);
    ScheduleWake(c);
  }
}

void Twin::Rewake(const TwinController* controller) {
  for (size_t c = 0; c < controllers_.size(); ++c)
    if (controllers_[c].get() == controller) ScheduleWake(c);
}

void Twin::ScheduleWake(size_t c) {
  const SimTime d = controllers_[c]->NextDeadline();
  if (d.is_never() || d > horizon_) return;
  // Keep the pending wake if it comes first (an early wake is harmless: the controller finds
  // nothing due and we ask again); otherwise replace it.
  if (wake_at_[c] > now_ && !wake_at_[c].is_never() && wake_at_[c] <= d) return;
  wake_at_[c] = std::max(d, now_);
  events_queue_.Push(wake_at_[c], EventKind::kWake, static_cast<int32_t>(c), ++wake_epoch_[c]);
}

void Twin::OnWake(const Event& e) {
  const size_t c = e.target;
  if (e.epoch != wake_epoch_[c]) return;
  wake_at_[c] = SimTime::Never();
  controllers_[c]->OnWake(now_);
  for (size_t i = 0; i < controllers_.size(); ++i) ScheduleWake(i);
}

// ---- TwinOps ---------------------------------------------------------------------------

std::vector<NodeWorkloadInfo> Twin::WorkloadsOn(model::NodeId n) const {
  std::vector<NodeWorkloadInfo> out;
  for (model::WorkloadId w : state_->residents(n)) {  // One entry per pod on the node.
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& x) { return x.id == w; });
    if (it == out.end()) {
      const model::Workload& spec = runs_[w].spec;
      NodeWorkloadInfo info;
      info.id = w;
      info.name = spec.namespace_name + "/" + spec.name;
      info.tier = spec.tier;
      info.kind = spec.kind;
      info.can_checkpoint = spec.checkpoint_interval.micros() > 0;
      out.push_back(std::move(info));
    }
  }
  // GPUs each holds on the node (a shared GPU counts for every pod on it).
  for (NodeWorkloadInfo& info : out) {
    info.running = runs_[info.id].state == RunState::kRunning;
    const WorkloadRun& run = runs_[info.id];
    std::vector<std::pair<int32_t, int>> pods;  // (pod id, index in run.pods).
    for (int i = 0; i < static_cast<int>(run.pods.size()); ++i)
      if (run.pods[i].node == n) {
        info.gpus += std::popcount(run.pods[i].gpus);
        pods.emplace_back(run.pods[i].pod_id, i);
      }
    std::sort(pods.begin(), pods.end());
    for (const auto& [pod_id, index] : pods) {
      info.pod_ids.push_back(pod_id);
      info.pod_names.push_back(PodName(run, index));
      const int set = run.spec.ElasticPodSet();
      info.min_workers.push_back(
          set >= 0 && run.pods[index].pod_set == set ? run.spec.pod_sets[set].min_count : 0);
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

Status Twin::Evict(model::NodeId n, model::WorkloadId w, SimDuration grace) {
  if (n < 0 || n >= static_cast<model::NodeId>(cluster_.nodes().size()))
    return Status::NotFound(fmt::format("no node with id {}", n));
  if (runs_.Find(w) == nullptr)
    return Status::NotFound(fmt::format("no workload with id {} (or it finished)", w));
  WorkloadRun& run = runs_[w];
  auto on_node = [&] {
    return std::any_of(run.pods.begin(), run.pods.end(),
                       [&](const PodAllocation& p) { return p.node == n; });
  };
  if (!on_node())
    return Status::NotFound(
        fmt::format("workload {} has no pods on node {}", run.spec.name, cluster_.node(n).name));
  const bool saves = grace.micros() > 0 && run.spec.checkpoint_interval.micros() > 0;
  if (grace.micros() > 0) {
    evictions_.push_back({w, n, run.epoch, saves});
    events_queue_.Push(now_ + grace, EventKind::kEvictEnd,
                       static_cast<int32_t>(evictions_.size() - 1));
    return Status::Ok();
  }
  StopOnNode(run, n, saves);
  return Status::Ok();
}

void Twin::OnEvictEnd(const Event& e) {
  const PendingEviction ev = evictions_[e.target];
  WorkloadRun* found = runs_.Find(ev.workload);
  if (found == nullptr) return;  // Finished and released since.
  WorkloadRun& run = *found;
  if (ev.pod_id >= 0) {  // One replica of a service (EvictPod).
    for (size_t i = 0; i < run.pods.size(); ++i)
      if (run.pods[i].pod_id == ev.pod_id) {
        ++run.interruptions;
        DropReplica(run, i);
        break;
      }
    return;
  }
  // A gang restarted since (epoch moved) is no longer the one evicted.
  if (run.spec.kind != model::WorkloadKind::kInference && run.epoch != ev.epoch) return;
  StopOnNode(run, ev.node, ev.saves);
}

void Twin::StopOnNode(WorkloadRun& run, model::NodeId n, bool saves) {
  if (run.spec.kind == model::WorkloadKind::kInference) {
    for (size_t i = run.pods.size(); i-- > 0;)
      if (run.pods[i].node == n) {
        ++run.interruptions;
        DropReplica(run, i);
      }
    return;
  }
  if (std::none_of(run.pods.begin(), run.pods.end(),
                   [&](const PodAllocation& p) { return p.node == n; }))
    return;
  // A checkpointing job told to stop with a grace saves before it exits (twin/controller.h).
  if (saves && run.state == RunState::kRunning && now_ >= run.started + run.segment_restore) {
    run.last_checkpoint = now_;
    run.checkpoint_in_segment = run.has_checkpoint = true;
  }
  run.fault_interrupted = true;
  ++interruptions_;
  Interrupt(run, LossCause::kDrain);
}

Status Twin::Repair(model::NodeId n) {
  if (n < 0 || n >= static_cast<model::NodeId>(cluster_.nodes().size()))
    return Status::NotFound(fmt::format("no node with id {}", n));
  AccumulateUnavailable(now_);
  model::Node& node = cluster_.mutable_node(n);
  // Re-imaged to the pool's driver: the node leaves any scripted rollout batch (a gated
  // rollout's version is the node's label, which the repair keeps).
  if (nodes_[n].rollout >= 0 &&
      !scenario_.faults.driver_rollouts[nodes_[n].rollout].gated.enabled) {
    nodes_[n].rollout = -1;
    const std::string& base =
        scenario_.pools.empty() || node.pool >= static_cast<int>(scenario_.pools.size())
            ? node.driver_version
            : scenario_.pools[node.pool].driver_version;
    node.driver_version = base;
    node.labels["nvidia.com/cuda.driver-version.full"] = base;
  }
  for (int i = 0; i < node.gpu_capacity; ++i) {
    const model::GpuId g = node.first_gpu + i;
    GpuFaultState& f = gpu_faults_[g];
    f.last_xid = 0;
    f.ecc_sbe_volatile = f.ecc_dbe_volatile = 0;
    if (cluster_.gpu(g).health != model::GpuHealth::kHealthy) SetGpuBroken(g, false);
  }
  SetGpusMissing(n, false);
  RefreshNode(n);
  RequestSchedule();
  return Status::Ok();
}

Result<WorkloadView> Twin::View(model::WorkloadId w) const {
  if (runs_.Find(w) == nullptr)
    return Status::NotFound(fmt::format("no workload with id {} (or it finished)", w));
  const WorkloadRun& run = runs_[w];
  WorkloadView v;
  v.spec = &run.spec;
  v.team = scenario_.teams[run.spec.team].name;
  v.running = run.state == RunState::kRunning;
  v.gpus = run.rate.allocated;
  v.busy = run.rate.busy;
  v.sm_active = run.rate.sm_active;
  if (run.state == RunState::kDone)
    v.natural_end = now_;
  else if (run.spec.kind == model::WorkloadKind::kInference)
    v.natural_end = horizon_;  // Services live to the horizon.
  else if (run.state == RunState::kRunning)
    v.natural_end = run.started + run.remaining;  // Its kFinish.
  else if (run.state == RunState::kStarting)
    v.natural_end = now_ + startup_ + run.remaining;  // At most startup_ late.
  else
    v.natural_end = SimTime::Never();
  v.natural_end = std::min(v.natural_end, horizon_);
  return v;
}

Status Twin::Stop(model::WorkloadId w) {
  if (runs_.Find(w) == nullptr)
    return Status::NotFound(fmt::format("no workload with id {} (or it finished)", w));
  WorkloadRun& run = runs_[w];
  if (run.pods.empty() || run.state == RunState::kDone)
    return Status::FailedPrecondition(
        fmt::format("workload {} holds no GPUs", run.spec.namespace_name + "/" + run.spec.name));
  // A service with a replica placed counts as running (TryPlace); a starting job does not yet.
  if (run.state == RunState::kRunning) --running_;
  ++stopped_;
  if (on_lifecycle_) Log(LifecycleKind::kStop, run, run.GpusHeld());
  run.state = RunState::kDone;
  run.desired_replicas = 0;  // A service asks for no more replicas.
  ++run.epoch;               // Its start, phase, checkpoint and finish events are void.
  run.idle = false;
  ReleasePods(run, 0);
  run.pods.shrink_to_fit();
  MaybeRetire(run);
  return Status::Ok();
}

bool Twin::Healthy(model::NodeId n) const {
  const model::Node& node = cluster_.node(n);
  if (nodes_[n].gpus_missing) return false;
  for (int i = 0; i < node.gpu_capacity; ++i)
    if (cluster_.gpu(node.first_gpu + i).health != model::GpuHealth::kHealthy) return false;
  return true;
}

// ---- Report ------------------------------------------------------------------------------

void Twin::FillFaultReport(Report& r) const {
  FaultReport& f = r.faults;
  f = fault_stats_;
  f.capacity_lost_gpu_hours =
      capacity_lost_ + state_->unavailable_gpus() * (now_ - unavailable_since_).ToHours();
  f.mttr_hours = f.repairs > 0 ? mttr_total_hours_ / f.repairs : 0;
  for (const NodeFaults& n : nodes_) f.nodes_out_at_end += !n.out_since.is_never();
  for (const model::Gpu& g : cluster_.gpus())
    f.gpus_faulty_at_end += g.health == model::GpuHealth::kFailed;
  f.workloads_interrupted = released_fault_interrupted_;
  for (const WorkloadRun& run : runs_) f.workloads_interrupted += run.fault_interrupted;
  f.interruptions = interruptions_;
  for (const char* cause : {"failure", "drain", "preemption"}) f.lost_gpu_hours_by_cause[cause] = 0;
  for (const auto& [cause, h] : lost_by_cause_) f.lost_gpu_hours_by_cause[cause] = h;
  // Goodput: allocated training GPU-hours minus startup and lost work, over allocated.
  const int training = static_cast<int>(model::WorkloadKind::kTraining);
  double allocated = 0;
  for (size_t t = 0; t < scenario_.teams.size(); ++t)
    allocated += meter_.Group(now_, static_cast<int>(t) * model::kNumWorkloadKinds + training)
                     .allocated_gpu_hours;
  const double startup =
      training_startup_hours_ + training_startup_rate_ * (now_ - training_startup_since_).ToHours();
  f.training_goodput = allocated > 0 ? (allocated - startup - lost_training_) / allocated : 0;
  for (const auto& c : controllers_) c->Contribute(r);
}

}  // namespace steward::twin

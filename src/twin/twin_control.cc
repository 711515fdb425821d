// Live controls of the twin (steward serve): submit a workload, cordon a node, change a quota.
// Kept apart from twin.cc because they are entry points from outside the event loop, not
// event handlers; each one changes state at now() and then lets the loop react.
#include <fmt/format.h>

#include <algorithm>

#include "place/mig.h"
#include "twin/twin.h"

namespace steward::twin {

Result<model::WorkloadId> Twin::Submit(model::Workload w) {
  if (w.team < 0 || w.team >= static_cast<int>(scenario_.teams.size()))
    return Status::InvalidArgument(fmt::format("unknown team index {}", w.team));
  if (w.pod_sets.empty()) return Status::InvalidArgument("workload has no pod sets");
  if (w.gpu_model >= static_cast<int>(cluster_.gpu_models().size()))
    return Status::InvalidArgument(fmt::format("unknown GPU model index {}", w.gpu_model));
  for (const model::PodSet& ps : w.pod_sets) {
    if (ps.count < 1) return Status::InvalidArgument("pod set " + ps.name + ": count < 1");
    if (ps.min_count < 0 || ps.min_count > ps.count)
      return Status::InvalidArgument(fmt::format("pod set {}: min_count {} outside 0..{} (count)",
                                                 ps.name, ps.min_count, ps.count));
    if (ps.gpus_per_pod < 1 || ps.gpus_per_pod > state_->max_gpus_per_node())
      return Status::InvalidArgument(
          fmt::format("pod set {}: gpus_per_pod {} outside 1..{} (the largest node)", ps.name,
                      ps.gpus_per_pod, state_->max_gpus_per_node()));
    if (ps.gpu_milli < 1 || ps.gpu_milli > place::kMilliPerGpu)
      return Status::InvalidArgument(
          fmt::format("pod set {}: gpu_milli {} outside 1..1000", ps.name, ps.gpu_milli));
    if (!ps.mig_profile.empty() && place::ParseMigProfile(ps.mig_profile) == place::kNoMig)
      return Status::InvalidArgument(fmt::format("pod set {}: unknown MIG profile '{}' ({})",
                                                 ps.name, ps.mig_profile,
                                                 place::MigProfileNames()));
    if (ps.SharesGpu() && ps.gpus_per_pod != 1)
      return Status::InvalidArgument(
          fmt::format("pod set {}: a pod that shares a GPU takes one GPU", ps.name));
  }
  if (w.duration.micros() <= 0) return Status::InvalidArgument("duration must be positive");
  if (w.kind == model::WorkloadKind::kInference) {
    // Services scale one pod set between min and max replicas (twin.cc's OnScale).
    if (w.pod_sets.size() != 1) return Status::InvalidArgument("a service has one pod set");
    if (w.min_replicas < 1) w.min_replicas = w.pod_sets[0].count;
    if (w.max_replicas < w.min_replicas) w.max_replicas = w.min_replicas;
  }
  if (w.name.empty()) w.name = fmt::format("submitted-{}", runs_.size());
  if (w.namespace_name.empty()) w.namespace_name = scenario_.teams[w.team].namespace_name;
  w.id = static_cast<model::WorkloadId>(runs_.size());
  w.submit_time = now_;
  const model::WorkloadId id = w.id;
  Accept(std::move(w));
  return id;
}

Status Twin::SetNodeCordoned(model::NodeId n, bool cordoned) {
  if (n < 0 || n >= static_cast<model::NodeId>(cluster_.nodes().size()))
    return Status::NotFound(fmt::format("no node with id {}", n));
  AccumulateUnavailable(now_);
  cluster_.mutable_node(n).cordoned = cordoned;
  RefreshNode(n);  // Schedulability, and the end of a fault episode on uncordon.
  RequestSchedule();
  return Status::Ok();
}

Status Twin::SetNodeLabels(model::NodeId n, std::map<std::string, std::string> labels) {
  if (n < 0 || n >= static_cast<model::NodeId>(cluster_.nodes().size()))
    return Status::NotFound(fmt::format("no node with id {}", n));
  std::map<std::string, std::string> before = std::move(cluster_.mutable_node(n).labels);
  cluster_.mutable_node(n).labels = std::move(labels);
  ApplyVersionLabels(n, before);
  return Status::Ok();
}

Status Twin::SetNodeTaints(model::NodeId n, std::vector<model::Taint> taints) {
  if (n < 0 || n >= static_cast<model::NodeId>(cluster_.nodes().size()))
    return Status::NotFound(fmt::format("no node with id {}", n));
  bool tainted = false;
  for (const model::Taint& t : taints) {
    if (t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" && t.effect != "NoExecute")
      return Status::InvalidArgument(
          fmt::format("taint {}: effect '{}' is not NoSchedule, PreferNoSchedule or NoExecute",
                      t.key, t.effect));
    const bool tolerated = std::find(tolerated_taints_.begin(), tolerated_taints_.end(), t.key) !=
                           tolerated_taints_.end();
    tainted |= !tolerated && t.effect != "PreferNoSchedule";
  }
  AccumulateUnavailable(now_);
  cluster_.mutable_node(n).taints = std::move(taints);
  nodes_[n].tainted = tainted;
  RefreshNode(n);
  RequestSchedule();
  return Status::Ok();
}

Status Twin::EvictPod(model::WorkloadId w, int32_t pod_id, SimDuration grace) {
  if (runs_.Find(w) == nullptr)
    return Status::NotFound(fmt::format("no workload with id {} (or it finished)", w));
  WorkloadRun& run = runs_[w];
  auto pod = std::find_if(run.pods.begin(), run.pods.end(),
                          [&](const PodAllocation& p) { return p.pod_id == pod_id; });
  if (pod == run.pods.end())
    return Status::NotFound(fmt::format("workload {} has no pod {}", run.spec.name, pod_id));
  if (run.spec.kind != model::WorkloadKind::kInference) return Evict(pod->node, w, grace);
  if (grace.micros() <= 0) {
    ++run.interruptions;
    DropReplica(run, static_cast<size_t>(pod - run.pods.begin()));
    return Status::Ok();
  }
  evictions_.push_back({w, pod->node, run.epoch, false, pod_id});
  events_queue_.Push(now_ + grace, EventKind::kEvictEnd,
                     static_cast<int32_t>(evictions_.size() - 1));
  return Status::Ok();
}

Status Twin::SetTeamQuota(int team, int gpus) {
  if (team < 0 || team >= static_cast<int>(scenario_.teams.size()))
    return Status::NotFound(fmt::format("no team with index {}", team));
  if (gpus < 0) return Status::InvalidArgument(fmt::format("quota {} < 0", gpus));
  const TeamSpec& spec = scenario_.teams[team];
  const std::string cq = admitter_->ClusterQueueFor(spec.namespace_name, spec.name);
  if (!cq.empty()) return SetClusterQueueQuota(cq, "", gpus);
  STEWARD_RETURN_IF_ERROR(admitter_->SetQuota(team, gpus));
  scenario_.teams[team].quota_gpus = gpus;
  ++quota_generation_;
  RequestSchedule();
  return Status::Ok();
}

}  // namespace steward::twin

namespace steward::twin {

Status Twin::SetClusterQueueQuota(std::string_view cluster_queue, std::string_view flavor,
                                  int gpus) {
  if (gpus < 0) return Status::InvalidArgument(fmt::format("quota {} < 0", gpus));
  STEWARD_RETURN_IF_ERROR(admitter_->SetClusterQueueQuota(cluster_queue, flavor, gpus));
  ++quota_generation_;
  RequestSchedule();
  return Status::Ok();
}

Status Twin::SetQueueGpuQuota(std::string_view queue, std::string_view flavor, int gpus) {
  if (admitter_->policy() != nullptr) return SetClusterQueueQuota(queue, flavor, gpus);
  const int team = scenario_.FindTeam(queue);
  if (team < 0) return Status::NotFound(fmt::format("no ClusterQueue '{}'", queue));
  return SetTeamQuota(team, gpus);
}

Status Twin::SetClusterQueueLendingLimit(std::string_view queue, std::string_view flavor,
                                         std::optional<int> gpus) {
  if (gpus && *gpus < 0) return Status::InvalidArgument(fmt::format("lendingLimit {} < 0", *gpus));
  STEWARD_RETURN_IF_ERROR(admitter_->SetClusterQueueLendingLimit(queue, flavor, gpus));
  ++quota_generation_;
  RequestSchedule();
  return Status::Ok();
}

SchedulerReport Twin::Scheduler() const {
  SchedulerReport r = admitter_->Scheduler();
  for (const TeamSpec& t : scenario_.teams)
    r.team_cluster_queues.push_back(admitter_->ClusterQueueFor(t.namespace_name, t.name));
  return r;
}

}  // namespace steward::twin

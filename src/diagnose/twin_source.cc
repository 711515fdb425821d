#include "diagnose/twin_source.h"

#include <fmt/format.h>

#include <bit>
#include <map>

#include "govern/pending_reason.h"
#include "telemetry/twin_exporter.h"
#include "twin/pending_reason.h"
#include "twin/pod_names.h"
#include "twin/twin.h"

namespace steward::diagnose {

bool IsNoFitReason(std::string_view r) {
  return r == twin::PendingReasonName(twin::PendingReason::kFragmentation) ||
         r == twin::PendingReasonName(twin::PendingReason::kInsufficientCapacity) ||
         r == govern::PendingReasonName(govern::PendingReason::kNoNodeFits) ||
         r == govern::PendingReasonName(govern::PendingReason::kUnhealthyCapacity);
}

namespace {

// The pods of every workload, as kubectl would list them, kept across steps: a pod's object is
// built once and only its node, phase and wait change.
class TwinPods {
 public:
  TwinPods(const twin::Twin& twin) : twin_(twin) {}

  // The pods at twin.now(): running and starting pods where they are placed; a pending
  // workload's pods unbound, waiting on the fit or on quota.
  std::span<const PodObject* const> Collect() {
    out_.clear();
    const auto& runs = twin_.runs();
    const model::Cluster& cluster = twin_.cluster();
    // Released runs (twin/run_table.h) take their cached pods with them.
    std::erase_if(cache_, [&](const auto& kv) { return runs.Find(kv.first) == nullptr; });
    for (const twin::WorkloadRun& run : runs) {
      if (run.state == twin::RunState::kDone) {
        cache_.erase(run.spec.id);
        continue;
      }
      std::vector<CachedPod>& pods = cache_[run.spec.id];
      // Size the run's cache before taking pointers into it.
      const model::Workload& spec = run.spec;
      const size_t wanted = !run.pods.empty() ? run.pods.size()
                            : spec.kind == model::WorkloadKind::kInference
                                ? static_cast<size_t>(std::max(1, run.desired_replicas))
                                : static_cast<size_t>(spec.TotalPods());
      if (pods.size() < wanted) pods.resize(wanted);
      if (!run.pods.empty()) {
        for (size_t p = 0; p < run.pods.size(); ++p) {
          const twin::PodAllocation& a = run.pods[p];
          PodObject& o = Pod(pods, run, static_cast<int>(p), std::popcount(a.gpus));
          o.node = a.node == model::kNoNode ? "" : cluster.node(a.node).name;
          o.phase = a.running ? PodPhase::kRunning : PodPhase::kPending;
          o.wait = PodWait::kNone;
          o.wait_message.clear();
          out_.push_back(&o);
        }
      } else if (run.state == twin::RunState::kPending) {
        const PodWait wait = IsNoFitReason(run.reason) ? PodWait::kNoFit : PodWait::kQueued;
        const model::Workload& w = run.spec;
        int index = 0;
        auto add = [&](int gpus) {
          PodObject& o = Pod(pods, run, index++, gpus);
          o.node.clear();
          o.phase = PodPhase::kPending;
          o.wait = wait;
          if (o.wait_message.empty()) {
            o.wait_message = run.reason_detail.empty()
                                 ? std::string(run.reason)
                                 : fmt::format("{}: {}", run.reason, run.reason_detail);
          }
          out_.push_back(&o);
        };
        if (w.kind == model::WorkloadKind::kInference) {
          const int replicas = std::max(1, run.desired_replicas);
          for (int i = 0; i < replicas && !w.pod_sets.empty(); ++i) add(w.pod_sets[0].gpus_per_pod);
        } else {
          for (const model::PodSet& ps : w.pod_sets)
            for (int i = 0; i < ps.count; ++i) add(ps.gpus_per_pod);
        }
      }
    }
    return out_;
  }

 private:
  // A pod's object and the pod id its name was made for.
  struct CachedPod {
    PodObject object;
    int32_t named_for = kUnplaced;
  };
  static constexpr int32_t kUnplaced = -1;

  // REQUIRES: index < pods.size() (Collect() sizes the cache first: pointers stay valid).
  PodObject& Pod(std::vector<CachedPod>& pods, const twin::WorkloadRun& run, int index, int gpus) {
    CachedPod& cached = pods[index];
    PodObject& o = cached.object;
    const model::Workload& w = run.spec;
    if (o.name.empty()) {
      const twin::Scenario& s = twin_.scenario();
      o.namespace_name = w.namespace_name;
      o.name = twin::PodName(w, twin::SlotOf(w, index), index);  // Until placed.
      o.labels = w.labels;  // Its generator's app.kubernetes.io/name among them.
      o.labels["team"] = s.teams[w.team].name;
      o.labels["steward.io/workload"] = w.name;
      // Owners as the Kubernetes front shows them (twin/pod_names.h): a service's ReplicaSet,
      // a notebook's StatefulSet, any other workload's Job.
      if (w.kind == model::WorkloadKind::kInference) {
        o.owner_kind = "ReplicaSet";
        o.owner_name = twin::ReplicaSetName(w);
      } else {
        o.owner_kind = w.kind == model::WorkloadKind::kNotebook ? "StatefulSet" : "Job";
        o.owner_name = w.name;
      }
      o.container = std::string(telemetry::ContainerOf(w, index));
      if (w.gpu_model >= 0) o.gpu_product = twin_.cluster().gpu_models()[w.gpu_model].product_label;
    }
    // A placed pod is named as the Kubernetes front names it, after its pod id: a restarted pod
    // is a new pod.
    if (index < static_cast<int>(run.pods.size()) && cached.named_for != run.pods[index].pod_id) {
      o.name = twin::PodName(run, index);
      cached.named_for = run.pods[index].pod_id;
    }
    o.gpus = gpus;
    return o;
  }

  const twin::Twin& twin_;
  std::map<model::WorkloadId, std::vector<CachedPod>> cache_;  // Unfinished runs, by id.
  std::vector<const PodObject*> out_;
};

}  // namespace

Status RunTwinSource(twin::Twin& twin, const TwinSourceOptions& options, FrameBuilder& builder) {
  if (options.step_ms <= 0) return Status::InvalidArgument("step must be > 0");
  if (twin.now() != kSimStart) return Status::FailedPrecondition("the twin has already run");
  twin::Twin* t = &twin;
  const model::Cluster& cluster = t->cluster();
  telemetry::TwinExporter exporter(cluster);
  TwinPods pods(*t);
  std::vector<health::NodeInfo> nodes;
  for (const model::Node& n : cluster.nodes()) {
    health::NodeInfo info;
    info.name = n.name;
    info.labels = n.labels;
    info.gpu_capacity = n.gpu_capacity;
    info.gpu_allocatable = n.gpu_allocatable;
    nodes.push_back(std::move(info));
  }
  const SimDuration step = SimDuration::Micros(options.step_ms * 1000);
  for (SimTime now = kSimStart; now < t->horizon(); now = now + step) {
    t->RunUntil(now);
    exporter.Update(*t);
    // Faults, repairs and cordons change what a node offers.
    for (size_t n = 0; n < nodes.size(); ++n) {
      const model::Node& node = cluster.node(static_cast<model::NodeId>(n));
      nodes[n].gpu_allocatable = node.gpu_allocatable;
      nodes[n].unschedulable =
          node.cordoned || !t->state().schedulable(static_cast<model::NodeId>(n));
    }
    Snapshot snap;
    snap.time_ms = options.epoch_ms + now.micros() / 1000;
    snap.gpus = exporter.records();
    snap.same_gpus_as_before = true;  // One record per cluster GPU, in GPU id order.
    snap.pods = pods.Collect();
    snap.nodes = nodes;
    STEWARD_RETURN_IF_ERROR(builder.Add(snap));
  }
  return builder.Finish();
}

}  // namespace steward::diagnose

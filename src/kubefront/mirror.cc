#include "kubefront/mirror.h"

#include <fmt/format.h>

#include <algorithm>

#include "health/remediation/twin_remediation.h"
#include "kube/lease.h"
#include "kube/meta.h"
#include "model/xid_catalog.h"

namespace steward::kubefront {
namespace {

using nlohmann::json;
using Change = kube::ObjectStore::Change;

std::string MetaField(const json& o, const char* key) {
  auto m = o.find("metadata");
  if (m == o.end()) return {};
  auto it = m->find(key);
  return it != m->end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

bool TwinMirror::NodeFingerprint::operator==(const NodeFingerprint& o) const {
  return cordoned == o.cordoned && missing == o.missing && allocatable == o.allocatable &&
         driver == o.driver && toolkit == o.toolkit && plugin == o.plugin &&
         remediation == o.remediation && xids == o.xids && overlay == o.overlay &&
         labels == o.labels && taints.size() == o.taints.size() &&
         std::equal(taints.begin(), taints.end(), o.taints.begin(),
                    [](const model::Taint& a, const model::Taint& b) {
                      return a.key == b.key && a.value == b.value && a.effect == b.effect;
                    });
}

TwinMirror::TwinMirror(kube::ObjectStore* store, StoreIds ids, ObjectClock clock,
                       const health::TwinRemediation* remediation, MirrorOptions options)
    : store_(store), ids_(ids), clock_(clock), remediation_(remediation), options_(options) {}

void TwinMirror::Put(std::vector<Change>& out, int resource, json object) {
  std::string ns = MetaField(object, "namespace");
  std::string name = MetaField(object, "name");
  // Objects are rebuilt whenever their workload or node may have changed; only a real change
  // becomes a new version (and a watch event). Compare with what the store holds.
  if (kube::ObjectPtr current = store_->Get(resource, ns, name)) {
    json before = current->Parse();
    before["metadata"].erase("resourceVersion");
    if (before == object) return;
  }
  out.push_back({resource, std::move(ns), std::move(name), std::move(object)});
}

void TwinMirror::Delete(std::vector<Change>& out, int resource, const std::string& ns,
                        const std::string& name) {
  out.push_back({resource, ns, name, std::nullopt});
}

kube::Event TwinMirror::MakeEvent(const std::string& api_version, const std::string& kind,
                                  const std::string& ns, const std::string& name,
                                  const std::string& uid, std::string type, std::string reason,
                                  std::string message, std::string component, SimTime at) const {
  kube::Event e;
  e.involved_object.api_version = api_version;
  e.involved_object.kind = kind;
  e.involved_object.namespace_name = ns;
  e.involved_object.name = name;
  e.involved_object.uid = uid;
  e.type = std::move(type);
  e.reason = std::move(reason);
  e.message = std::move(message);
  e.source_component = component;
  e.reporting_component = std::move(component);
  e.first_timestamp = e.last_timestamp = clock_.At(at);
  return e;
}

void TwinMirror::AddEvent(kube::Event event) { pending_events_.push_back(std::move(event)); }

void TwinMirror::FlushEvents(std::vector<Change>& out) {
  for (kube::Event& e : pending_events_) {
    const std::string ns =
        e.involved_object.namespace_name.empty() ? "default" : e.involved_object.namespace_name;
    e.metadata.namespace_name = ns;
    e.metadata.name = fmt::format("{}.{:016x}", e.involved_object.name,
                                  static_cast<uint64_t>(clock_.At(now_)) * 1000 + ++event_counter_);
    e.metadata.uid = kube::UidFor(fmt::format("event/{}/{}", ns, e.metadata.name));
    e.metadata.creation_timestamp = e.first_timestamp;
    event_log_.emplace_back(ns, e.metadata.name);
    out.push_back({ids_.events, ns, e.metadata.name, kube::ToJson(e)});
  }
  pending_events_.clear();
  while (event_log_.size() - event_log_start_ > options_.max_events) {
    const auto& [ns, name] = event_log_[event_log_start_++];
    Delete(out, ids_.events, ns, name);
  }
  if (event_log_start_ > 4096 && event_log_start_ * 2 > event_log_.size()) {
    event_log_.erase(event_log_.begin(), event_log_.begin() + event_log_start_);
    event_log_start_ = 0;
  }
}

void TwinMirror::InitialObjects(const twin::Twin& twin, std::vector<Change>& out) {
  const int64_t created = clock_.At(kSimStart);
  for (const kube::Namespace& ns : NamespaceObjects(twin, created))
    Put(out, ids_.namespaces, kube::ToJson(ns));
  for (json& ds : OperatorDaemonSets(twin, created)) Put(out, ids_.daemonsets, std::move(ds));
  const int nodes = static_cast<int>(twin.cluster().nodes().size());
  for (model::NodeId n = 0; n < nodes; ++n) {
    for (const kube::Pod& p : OperatorPods(twin, n, created)) {
      operator_pods_.insert(p.metadata.namespace_name + "/" + p.metadata.name);
      Put(out, ids_.pods, kube::ToJson(p));
    }
  }
  nodes_.assign(nodes, {});
  node_annotations_.assign(nodes, {});
  node_overlay_.assign(nodes, 0);
  xid_since_.assign(nodes, created);
  missing_since_.assign(nodes, created);
}

void TwinMirror::SyncNodes(const twin::Twin& twin, std::vector<Change>& out) {
  const model::Cluster& cluster = twin.cluster();
  for (model::NodeId n = 0; n < static_cast<model::NodeId>(cluster.nodes().size()); ++n) {
    const model::Node& node = cluster.node(n);
    NodeFingerprint fp;
    fp.cordoned = node.cordoned;
    fp.missing = twin.gpus_missing(n);
    fp.allocatable = node.gpu_allocatable;
    fp.driver = node.driver_version;
    fp.toolkit = node.toolkit_version;
    fp.plugin = node.device_plugin_version;
    if (remediation_) {
      const health::NodeState st = remediation_->controller().state(node.name);
      if (st != health::NodeState::kHealthy) fp.remediation = health::NodeStateName(st);
    }
    fp.xids.resize(node.gpu_capacity);
    for (int i = 0; i < node.gpu_capacity; ++i)
      fp.xids[i] = twin.gpu_faults()[node.first_gpu + i].last_xid;
    fp.labels = node.labels;
    fp.taints = node.taints;
    fp.overlay = node_overlay_[n];
    NodeFingerprint& last = nodes_[n];
    const bool first = syncs_ == 1;
    if (!first && fp == last) continue;
    const std::string uid = kube::UidFor("node/" + node.name);
    if (!first && fp.cordoned != last.cordoned) {
      const char* state = fp.cordoned ? "NodeNotSchedulable" : "NodeSchedulable";
      AddEvent(MakeEvent("v1", "Node", "", node.name, uid, "Normal", state,
                         fmt::format("Node {} status is now: {}", node.name, state), "kubelet",
                         now_));
    }
    for (int i = 0; i < node.gpu_capacity; ++i) {
      if (fp.xids[i] == 0 ||
          (!first && i < static_cast<int>(last.xids.size()) && last.xids[i] == fp.xids[i]))
        continue;
      const model::XidEntry* e = model::XidCatalog::Builtin().Find(fp.xids[i]);
      AddEvent(MakeEvent(
          "v1", "Node", "", node.name, uid, "Warning", "GPUXidError",
          fmt::format("GPU {} ({}) reported XID {}{}", i, cluster.gpu(node.first_gpu + i).uuid,
                      fp.xids[i], e ? fmt::format(" ({}): {}", e->mnemonic, e->meaning) : ""),
          "node-problem-detector", now_));
    }
    const bool had_xid = std::any_of(last.xids.begin(), last.xids.end(), [](int x) { return x; });
    const bool has_xid = std::any_of(fp.xids.begin(), fp.xids.end(), [](int x) { return x; });
    if (has_xid && (!had_xid || first)) xid_since_[n] = clock_.At(now_);
    if (fp.missing && (!last.missing || first)) missing_since_[n] = clock_.At(now_);
    NodeExtras extras;
    extras.annotations = node_annotations_[n];
    extras.remediation_state = fp.remediation;
    extras.xid_since = xid_since_[n];
    extras.missing_since = missing_since_[n];
    Put(out, ids_.nodes, kube::ToJson(NodeObject(twin, n, clock_, extras)));
    last = std::move(fp);
  }
}

void TwinMirror::SyncWorkload(const twin::Twin& twin, const twin::WorkloadRun& run,
                              WorkloadState& ws, std::vector<Change>& out) {
  const model::Workload& w = run.spec;
  bool changed = !ws.seen || dirty_.count(w.id) || ws.state != run.state ||
                 ws.desired != run.desired_replicas || ws.pods.size() != run.pods.size() ||
                 ws.reason != run.reason || ws.detail != run.reason_detail;
  for (size_t i = 0; !changed && i < run.pods.size(); ++i) {
    const twin::PodAllocation& a = run.pods[i];
    changed = ws.pods[i] != std::make_tuple(a.pod_id, a.node, a.running);
  }
  if (!changed) return;
  if (!ws.seen) {
    ws.namespace_name = w.namespace_name;
    ws.name = w.name;
    ws.workload_name = WorkloadName(w);
    ws.inference = w.kind == model::WorkloadKind::kInference;
    ws.pod_group = !w.pod_group.empty();
  }
  const twin::RunState before = ws.state;
  const bool was_seen = ws.seen;
  ws.state = run.state;
  ws.desired = run.desired_replicas;
  ws.reason = run.reason;
  ws.detail = run.reason_detail;
  ws.pods.clear();
  for (const twin::PodAllocation& a : run.pods) ws.pods.emplace_back(a.pod_id, a.node, a.running);

  WorkloadTimes& times = ws.times;
  const std::string wl_name = WorkloadName(w);
  const std::string wl_uid = kube::UidFor("Workload/" + w.namespace_name + "/" + wl_name);
  if (!was_seen) times.created = clock_.At(w.submit_time);
  const bool pending = run.state == twin::RunState::kPending;
  if (pending && (!was_seen || before != twin::RunState::kPending))
    times.pending = clock_.At(run.pending_since);
  if (!pending && (!was_seen || before == twin::RunState::kPending)) {
    times.admitted = clock_.At(now_);
    times.preempted = 0;
    const std::string cq = [&] {
      const twin::Admitter::Admission a = twin.AdmissionOf(w.id);
      return a.cluster_queue.empty() ? LocalQueueOf(twin, w) : a.cluster_queue;
    }();
    AddEvent(MakeEvent("kueue.x-k8s.io/v1beta1", "Workload", w.namespace_name, wl_name, wl_uid,
                       "Normal", "QuotaReserved",
                       fmt::format("Quota reserved in ClusterQueue {}, wait time since queued "
                                   "was {:.0f}s",
                                   cq, (now_ - run.pending_since).ToSeconds()),
                       "kueue-admission", now_));
    AddEvent(MakeEvent("kueue.x-k8s.io/v1beta1", "Workload", w.namespace_name, wl_name, wl_uid,
                       "Normal", "Admitted",
                       fmt::format("Admitted by ClusterQueue {}, wait time since reservation "
                                   "was 0s",
                                   cq),
                       "kueue-admission", now_));
  }

  // Pods: one object per placed pod; the mirror remembers when each appeared and started.
  // Pods gone since the last sync are deleted first: a pod placed again under the same name (a
  // StatefulSet's <name>-0 after an eviction) is a new object, which the deletion of its
  // predecessor must not take with it.
  const std::vector<PodRef> placed = PodsOf(run);
  for (auto it = ws.published_pods.begin(); it != ws.published_pods.end();) {
    const int32_t pod_id = it->first;
    if (std::any_of(placed.begin(), placed.end(),
                    [&](const PodRef& ref) { return ref.allocation->pod_id == pod_id; })) {
      ++it;
      continue;
    }
    Delete(out, ids_.pods, w.namespace_name, it->second.name);
    pods_by_name_.erase(w.namespace_name + "/" + it->second.name);
    pod_overlays_.erase(pod_id);
    it = ws.published_pods.erase(it);
  }
  std::map<int32_t, PodState> next;
  int running = 0;
  int healthy = 0;  // Running and not being deleted (what a budget counts).
  for (const PodRef& ref : placed) {
    const twin::PodAllocation& a = *ref.allocation;
    auto it = ws.published_pods.find(a.pod_id);
    PodState st;
    const bool fresh = it == ws.published_pods.end();
    if (!fresh) st = it->second;
    if (fresh) {
      st.pod_id = a.pod_id;
      st.extras.created_micros = clock_.At(now_);
      st.name = PodName(w, ref);
    }
    if (a.running && !st.running) st.extras.running_since_micros = clock_.At(now_);
    st.running = a.running;
    st.node = a.node;
    running += a.running;
    if (auto ov = pod_overlays_.find(a.pod_id); ov != pod_overlays_.end()) {
      st.extras.labels = ov->second.labels;
      st.extras.annotations = ov->second.annotations;
      st.extras.deletion_micros = ov->second.deletion_micros;
      st.extras.grace_seconds = ov->second.grace_seconds;
    }
    healthy += a.running && !st.extras.deletion_micros;
    kube::Pod pod = PodObject(twin, run, ref, st.extras);
    if (fresh) {
      pods_by_name_[w.namespace_name + "/" + st.name] = {w.id, a.pod_id};
      AddEvent(MakeEvent("v1", "Pod", w.namespace_name, st.name, pod.metadata.uid, "Normal",
                         "Scheduled",
                         fmt::format("Successfully assigned {}/{} to {}", w.namespace_name, st.name,
                                     pod.node_name),
                         pod.scheduler_name, now_));
    }
    Put(out, ids_.pods, kube::ToJson(pod));
    next[a.pod_id] = std::move(st);
  }
  ws.published_pods = std::move(next);

  // Owners, the Kueue Workload, a service's budget, a Volcano PodGroup.
  std::vector<std::pair<int, std::string>> owners;
  for (json& o : OwnerObjects(twin, run, times.created, running)) {
    const std::string kind = o.value("kind", "");
    const int id = kind == "Deployment"    ? ids_.deployments
                   : kind == "ReplicaSet"  ? ids_.replicasets
                   : kind == "StatefulSet" ? ids_.statefulsets
                                           : ids_.jobs;
    owners.emplace_back(id, MetaField(o, "name"));
    Put(out, id, std::move(o));
  }
  ws.owners = std::move(owners);
  Put(out, ids_.workloads, WorkloadObject(twin, run, times));
  if (w.kind == model::WorkloadKind::kInference)
    Put(out, ids_.pdbs,
        kube::ToJson(
            ServiceBudget(w, times.created, static_cast<int64_t>(run.pods.size()), healthy)));
  if (!w.pod_group.empty() && ids_.pod_groups >= 0)
    Put(out, ids_.pod_groups, PodGroupObject(twin, run, times.created));
  ws.seen = true;
}

void TwinMirror::RemoveWorkload(WorkloadState& ws, std::vector<Change>& out) {
  if (!ws.seen) return;  // Nothing published yet.
  const std::string& ns = ws.namespace_name;
  for (auto& [pod_id, st] : ws.published_pods) {
    Delete(out, ids_.pods, ns, st.name);
    pods_by_name_.erase(ns + "/" + st.name);
    pod_overlays_.erase(pod_id);
  }
  for (const auto& [id, name] : ws.owners) Delete(out, id, ns, name);
  Delete(out, ids_.workloads, ns, ws.workload_name);
  if (ws.inference) Delete(out, ids_.pdbs, ns, ws.name);
  if (ws.pod_group && ids_.pod_groups >= 0) Delete(out, ids_.pod_groups, ns, ws.name);
}

void TwinMirror::SyncQueues(const twin::Twin& twin, std::vector<Change>& out) {
  KueueObjects k = BuildKueueObjects(twin, twin.Scheduler(), counts_, clock_.At(kSimStart));
  auto put_all = [&](int id, std::vector<json>& objects) {
    if (id < 0) return;
    for (json& o : objects) Put(out, id, std::move(o));
  };
  put_all(ids_.resource_flavors, k.resource_flavors);
  put_all(ids_.cohorts, k.cohorts);
  put_all(ids_.cluster_queues, k.cluster_queues);
  put_all(ids_.local_queues, k.local_queues);
  put_all(ids_.priority_classes, k.priority_classes);
  put_all(ids_.volcano_queues, k.volcano_queues);
  put_all(ids_.config_maps, k.config_maps);
}

void TwinMirror::Sync(const twin::Twin& twin) {
  now_ = twin.now();
  ++syncs_;
  std::vector<Change> out;
  if (!initialized_) {
    InitialObjects(twin, out);
    initialized_ = true;
  }
  SyncNodes(twin, out);
  const twin::RunTable& runs = twin.runs();
  for (size_t i = scanned_runs_; i < runs.size(); ++i) {
    const twin::WorkloadRun* run = runs.Find(static_cast<model::WorkloadId>(i));
    if (run != nullptr && run->state != twin::RunState::kDone) live_[run->spec.id];
  }
  scanned_runs_ = runs.size();
  const std::vector<twin::PreemptionRecord>& preemptions = twin.preemption_records();
  for (; preemptions_seen_ < preemptions.size(); ++preemptions_seen_) {
    const twin::PreemptionRecord& p = preemptions[preemptions_seen_];
    const twin::WorkloadRun* victim = twin.FindRun(p.victim);
    if (!victim) continue;
    auto it = live_.find(victim->spec.id);
    if (it == live_.end()) continue;
    it->second.times.preempted = clock_.At(p.at);
    it->second.times.preempted_by = p.preemptor;
    dirty_.insert(victim->spec.id);
    const model::Workload& w = victim->spec;
    const std::string name = WorkloadName(w);
    AddEvent(MakeEvent("kueue.x-k8s.io/v1beta1", "Workload", w.namespace_name, name,
                       kube::UidFor("Workload/" + w.namespace_name + "/" + name), "Normal",
                       "Preempted",
                       fmt::format("Preempted to accommodate a workload ({}); {:.1f} GPU-hours "
                                   "of work lost",
                                   p.preemptor, p.lost_gpu_hours),
                       "kueue-admission", p.at));
  }
  counts_.by_local_queue.clear();
  for (auto it = live_.begin(); it != live_.end();) {
    const twin::WorkloadRun* found = runs.Find(it->first);
    if (found == nullptr || found->state == twin::RunState::kDone) {
      RemoveWorkload(it->second, out);
      it = live_.erase(it);
      continue;
    }
    const twin::WorkloadRun& run = *found;
    SyncWorkload(twin, run, it->second, out);
    const std::string lq = LocalQueueOf(twin, run.spec);
    auto& [pending, admitted] = counts_.by_local_queue[run.spec.namespace_name + "/" + lq];
    (run.state == twin::RunState::kPending ? pending : admitted)++;
    ++it;
  }
  dirty_.clear();
  SyncQueues(twin, out);
  FlushEvents(out);
  if (!out.empty()) store_->Commit(std::move(out));
}

void TwinMirror::OnLifecycle(const twin::LifecycleRecord& r) {
  const bool drain = r.kind == twin::LifecycleKind::kDrain;
  if ((!drain && r.kind != twin::LifecycleKind::kFail) || !r.spec) return;
  const model::Workload& w = *r.spec;
  const std::string name = WorkloadName(w);
  AddEvent(MakeEvent(
      "kueue.x-k8s.io/v1beta1", "Workload", w.namespace_name, name,
      kube::UidFor("Workload/" + w.namespace_name + "/" + name), "Warning",
      drain ? "Evicted" : "Failed",
      fmt::format("{}; {:.2f} GPU-hours of work lost (work up to the last checkpoint is kept); "
                  "requeued",
                  drain ? "Pods evicted (node drained)" : "Pods failed", r.lost_gpu_hours),
      "steward-twin", r.at));
}

std::optional<TwinMirror::PodKey> TwinMirror::FindPod(const std::string& ns,
                                                      const std::string& name) const {
  auto it = pods_by_name_.find(ns + "/" + name);
  if (it == pods_by_name_.end()) return std::nullopt;
  return it->second;
}

bool TwinMirror::IsOperatorPod(const std::string& ns, const std::string& name) const {
  return operator_pods_.count(ns + "/" + name) > 0;
}

const std::map<std::string, std::string>& TwinMirror::NodeAnnotations(model::NodeId n) const {
  return node_annotations_[n];
}

void TwinMirror::SetNodeAnnotations(model::NodeId n, std::map<std::string, std::string> a) {
  node_annotations_[n] = std::move(a);
  ++node_overlay_[n];
}

const PodExtras* TwinMirror::FindPodExtras(int32_t pod_id) const {
  auto it = pod_overlays_.find(pod_id);
  return it == pod_overlays_.end() ? nullptr : &it->second;
}

void TwinMirror::SetPodMetadata(model::WorkloadId w, int32_t pod_id,
                                std::map<std::string, std::string> labels,
                                std::map<std::string, std::string> annotations) {
  PodExtras& e = pod_overlays_[pod_id];
  e.labels = std::move(labels);
  e.annotations = std::move(annotations);
  dirty_.insert(w);
}

void TwinMirror::MarkTerminating(model::WorkloadId w, int32_t pod_id, int64_t deletion_micros,
                                 int64_t grace_seconds) {
  PodExtras& e = pod_overlays_[pod_id];
  if (!e.deletion_micros) {
    e.deletion_micros = deletion_micros;
    e.grace_seconds = grace_seconds;
  }
  dirty_.insert(w);
}

}  // namespace steward::kubefront

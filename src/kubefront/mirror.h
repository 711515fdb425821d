// TwinMirror keeps the API front's object store equal to the twin: after every step (and after
// every write through the API) it finds what changed and commits exactly those objects, each
// with a new resourceVersion and one watch event, in the order they happened.
//
//   TwinMirror mirror(&store, ids, clock, remediation);
//   live.AddObserver([&](const twin::Twin& t) { mirror.Sync(t); });   // simulation thread
//
// Change detection is by cheap fingerprints, not by re-encoding: per node (cordon, allocatable,
// GPU XIDs, labels, taints, remediation state), per unfinished workload (state, pods and where
// they run, pending reason) and per queue. A step costs O(nodes + unfinished workloads) of
// comparisons plus the encoding of what changed. Finished workloads leave the store (their
// Workload, owner objects, pods and budget are deleted) and the mirror forgets them.
//
// Events (core/v1) are emitted for what an SRE would see in `kubectl get events`: a pod
// scheduled, a workload admitted, preempted, evicted by a drain or failed, a node cordoned or
// uncordoned, a GPU XID; the last `max_events` are kept (Kubernetes keeps an hour; the twin may run
// an hour in seconds).
//
// Thread-safety: everything runs on the twin's thread (Sync from LiveTwin's observer, the
// overlay setters from writes applied through LiveTwin::Control). Not thread-safe otherwise.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "kube/core_v1.h"
#include "kube/object_store.h"
#include "kubefront/kueue_objects.h"
#include "kubefront/twin_objects.h"
#include "twin/twin.h"

namespace steward::health {
class TwinRemediation;
}

namespace steward::kubefront {

// The store ids of the resources the mirror writes (kube::ApiServer::AddResource's ids).
struct StoreIds {
  int nodes = -1, pods = -1, namespaces = -1, events = -1, pdbs = -1;
  int deployments = -1, replicasets = -1, statefulsets = -1, jobs = -1, daemonsets = -1;
  int resource_flavors = -1, cohorts = -1, cluster_queues = -1, local_queues = -1,
      priority_classes = -1, workloads = -1;
  int volcano_queues = -1, pod_groups = -1;  // -1 when Volcano objects are not served.
  int config_maps = -1;
};

struct MirrorOptions {
  size_t max_events = 5000;
};

class TwinMirror {
 public:
  TwinMirror(kube::ObjectStore* store, StoreIds ids, ObjectClock clock,
             const health::TwinRemediation* remediation, MirrorOptions options = {});

  // Brings the store up to the twin's state now.
  void Sync(const twin::Twin& twin);
  // Turns the twin's drains and failures into Warning events on the workload, with the work
  // they threw away (the checkpoint a drain saved is kept). For Twin::AddLifecycleListener.
  void OnLifecycle(const twin::LifecycleRecord& record);

  // A placed pod of the twin, by its object's namespace and name.
  struct PodKey {
    model::WorkloadId workload = 0;
    int32_t pod_id = 0;
  };
  std::optional<PodKey> FindPod(const std::string& namespace_name, const std::string& name) const;
  bool IsOperatorPod(const std::string& namespace_name, const std::string& name) const;

  // State written through the API that the twin does not hold; each takes effect at the next
  // Sync.
  const std::map<std::string, std::string>& NodeAnnotations(model::NodeId n) const;
  void SetNodeAnnotations(model::NodeId n, std::map<std::string, std::string> annotations);
  const PodExtras* FindPodExtras(int32_t pod_id) const;
  void SetPodMetadata(model::WorkloadId w, int32_t pod_id,
                      std::map<std::string, std::string> labels,
                      std::map<std::string, std::string> annotations);
  // The pod is being deleted (an eviction or a DELETE with a grace): deletionTimestamp set
  // until the twin stops it.
  void MarkTerminating(model::WorkloadId w, int32_t pod_id, int64_t deletion_micros,
                       int64_t grace_seconds);
  // An event to publish at the next Sync (its name, uid and timestamps are filled in).
  void AddEvent(kube::Event event);
  // An event about `involved` (kind, namespace, name, uid) at simulated time `at`.
  kube::Event MakeEvent(const std::string& api_version, const std::string& kind,
                        const std::string& ns, const std::string& name, const std::string& uid,
                        std::string type, std::string reason, std::string message,
                        std::string component, SimTime at) const;

  const ObjectClock& clock() const { return clock_; }
  int64_t syncs() const { return syncs_; }

 private:
  struct NodeFingerprint {
    bool cordoned = false, missing = false;
    int allocatable = 0;
    std::string driver, toolkit, plugin, remediation;
    std::vector<int> xids;
    std::map<std::string, std::string> labels;
    std::vector<model::Taint> taints;
    uint64_t overlay = 0;
    bool operator==(const NodeFingerprint& o) const;
  };
  struct PodState {
    int32_t pod_id = 0;
    model::NodeId node = model::kNoNode;
    bool running = false;
    PodExtras extras;
    std::string name;
    uint64_t overlay = 0;
  };
  struct WorkloadState {
    // Fingerprint.
    twin::RunState state = twin::RunState::kPending;
    std::vector<std::tuple<int32_t, model::NodeId, bool>> pods;
    std::string reason, detail;
    int desired = 0;
    uint64_t overlay = 0;
    // What was published.
    std::map<int32_t, PodState> published_pods;
    std::vector<std::pair<int, std::string>> owners;  // (store id, name).
    WorkloadTimes times;
    bool seen = false;
    // Who it is, for deleting its objects after the twin released the run (run_table.h).
    std::string namespace_name, name, workload_name;
    bool inference = false, pod_group = false;
  };

  void SyncNodes(const twin::Twin& twin, std::vector<kube::ObjectStore::Change>& out);
  void SyncWorkload(const twin::Twin& twin, const twin::WorkloadRun& run, WorkloadState& ws,
                    std::vector<kube::ObjectStore::Change>& out);
  void RemoveWorkload(WorkloadState& ws, std::vector<kube::ObjectStore::Change>& out);
  void SyncQueues(const twin::Twin& twin, std::vector<kube::ObjectStore::Change>& out);
  void InitialObjects(const twin::Twin& twin, std::vector<kube::ObjectStore::Change>& out);
  void FlushEvents(std::vector<kube::ObjectStore::Change>& out);
  void Put(std::vector<kube::ObjectStore::Change>& out, int resource, nlohmann::json object);
  void Delete(std::vector<kube::ObjectStore::Change>& out, int resource, const std::string& ns,
              const std::string& name);

  kube::ObjectStore* store_;
  const StoreIds ids_;
  const ObjectClock clock_;
  const health::TwinRemediation* remediation_;
  const MirrorOptions options_;
  bool initialized_ = false;
  int64_t syncs_ = 0;
  SimTime now_;

  std::vector<NodeFingerprint> nodes_;
  std::vector<std::map<std::string, std::string>> node_annotations_;
  std::vector<uint64_t> node_overlay_;
  std::vector<int64_t> xid_since_, missing_since_;
  size_t scanned_runs_ = 0;
  std::map<model::WorkloadId, WorkloadState> live_;       // Unfinished workloads, by id.
  std::set<model::WorkloadId> dirty_;                     // Overlays changed since the last Sync.
  std::unordered_map<std::string, PodKey> pods_by_name_;  // "ns/name".
  std::set<std::string> operator_pods_;                   // "ns/name".
  std::unordered_map<int32_t, PodExtras> pod_overlays_;   // Written through the API.
  size_t preemptions_seen_ = 0;
  std::map<std::pair<int, std::string>, nlohmann::json> queue_objects_;  // (store, key) -> last.
  QueueCounts counts_;
  std::vector<kube::Event> pending_events_;
  std::vector<std::pair<std::string, std::string>>
      event_log_;  // Published (ns, name), oldest first.
  size_t event_log_start_ = 0;
  uint64_t event_counter_ = 0;
};

}  // namespace steward::kubefront

// LiveClusterControl: control::ClusterControl on a real cluster. Reads come from the shared
// informer cache (live/cluster_cache.h), never from the API server per call; writes go through
// the client (live/kube_client.h) as kubectl would send them:
//
//   cordon      PATCH node, strategic merge {"spec":{"unschedulable":true}} (uncordon: null)
//   label       PATCH node, merge {"metadata":{"labels":{key: value|null}}}
//   taint       PATCH node, strategic merge of the whole taint list with the resourceVersion
//               read, so a concurrent change is a 409 (Aborted), not a lost update
//   annotate    PATCH node or pod, merge {"metadata":{"annotations":{key: value|null}}}
//   evict       POST pods/NAME/eviction (policy/v1 Eviction with gracePeriodSeconds); a
//               PodDisruptionBudget's 429 is Unavailable at once (no client retry: the caller
//               paces itself), and there is no fallback to DELETE
//   event       POST a core/v1 Event (a cluster-scoped object's events go to "default")
//   resize      PATCH batch/v1 Job, merge {"spec":{"parallelism":N}} (an elastic Job under
//               Kueue's ElasticJobsViaWorkloadSlices; its pods carry steward.io/min-workers)
//
// With `server_dry_run` every write carries dryRun=All: the API server validates and admits it
// and stores nothing.
//
//   LiveClusterControl control(client, cache, {.server_dry_run = false});
//   control.Cordon("gpu-017", true, "XID 79");
//
// Pods: GPU pods on the node that are not DaemonSet pods and not finished. Their workload is
// their controlling owner ("namespace/owner"; the pod itself without one); the tier comes from
// the steward.io/tier label, else the Kueue priority class label when it names a tier, else dev;
// checkpointing from the steward.io/checkpointing label or annotation ("true"); the kind from
// steward.io/kind, else the owner's kind (ReplicaSet/StatefulSet: inference, Job: training).
// Cost: reads copy from the cache (PodsOnNode uses its node index); one request per write.
// Thread-safety: like the cache and the client, safe from any thread.
#pragma once

#include <string>

#include "control/cluster_control.h"
#include "live/clock.h"
#include "live/cluster_cache.h"
#include "live/kube_client.h"

namespace steward::live {

struct LiveControlOptions {
  bool server_dry_run = false;
  std::string field_manager = "steward";
  std::string event_component = "steward";
  Clock* clock = nullptr;  // Unset: RealClock().
};

// The PodInfo a controller sees for `pod` (exposed for tests and for `operate`'s plan lines).
control::PodInfo DescribePod(const kube::Pod& pod);
control::NodeInfo DescribeNode(const kube::Node& node);

class LiveClusterControl final : public control::ClusterControl {
 public:
  // `client` and `cache` must outlive the control.
  LiveClusterControl(KubeClient* client, const ClusterCache* cache, LiveControlOptions options);

  // Unix time: SimTime's microseconds since the epoch.
  SimTime Now() const override;
  std::optional<control::NodeInfo> Node(std::string_view name) const override;
  std::vector<control::NodeInfo> Nodes() const override;
  std::vector<control::PodInfo> PodsOnNode(std::string_view node) const override;
  // kueue.x-k8s.io ClusterQueues from the cache (empty when discovery found no Kueue).
  std::vector<control::QueueInfo> ClusterQueues() const override;

  Status Cordon(std::string_view node, bool cordoned, std::string_view reason) override;
  Status LabelNode(std::string_view node, std::string_view key, std::optional<std::string> value,
                   std::string_view reason) override;
  Status TaintNode(std::string_view node, const model::Taint& taint, bool remove,
                   std::string_view reason) override;
  Status Annotate(const control::ObjectRef& object, std::string_view key,
                  std::optional<std::string> value, std::string_view reason) override;
  Status Evict(const control::PodRef& pod, SimDuration grace, std::string_view reason) override;
  Status EmitEvent(const control::ObjectRef& object, std::string_view type,
                   std::string_view event_reason, std::string_view message) override;
  // A JSON merge patch of spec.resourceGroups (the whole list: merge patches replace lists)
  // computed from the cached object at `resource_version`, carrying that version, so the API
  // server answers 409 (Aborted) when the queue changed since.
  Status PatchQueueQuota(std::string_view queue, std::string_view resource_version,
                         const control::QueueQuota& quota, std::string_view reason) override;
  // `workload` is "namespace/job"; `workers` is the Job's new spec.parallelism.
  Status ResizeWorkload(std::string_view workload, int workers, std::string_view reason) override;

 private:
  CallOptions Write(int max_retries = -1) const;

  KubeClient* client_;
  const ClusterCache* cache_;
  LiveControlOptions options_;
};

}  // namespace steward::live

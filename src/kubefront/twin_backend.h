// TwinBackend applies writes made through the Kubernetes API front to the running twin, so a
// cordon is a cordon: every write runs on the simulation thread (LiveTwin::Control) between
// two steps, against the object as it is at that moment, and the answer is the object as the
// mirror then publishes it (its new resourceVersion included). Nothing is lost or reordered:
// writes are applied in the order the simulation thread takes them.
//
//   nodes          PATCH / PUT: spec.unschedulable (cordon), metadata.labels, annotations and
//                  spec.taints; anything else is refused (422) naming the field.
//   pods           PATCH / PUT of labels and annotations; DELETE (graceful, no budget check);
//                  POST pods/NAME/eviction with PodDisruptionBudget semantics (429 with the
//                  budget's numbers when it allows no disruption).
//   clusterqueues  merge or JSON patch of nominalQuota of nvidia.com/gpu (the twin's quota).
// With dryRun=All each is validated and answered, and nothing is applied.
//
// Thread-safety: Write and Subresource may be called from any HTTP thread; they block until
// the simulation thread has applied the change (or a timeout).
#pragma once

#include "kube/api_server.h"
#include "kubefront/mirror.h"
#include "server/live_twin.h"

namespace steward::kubefront {

class TwinBackend : public kube::ResourceBackend {
 public:
  TwinBackend(server::LiveTwin* live, TwinMirror* mirror, kube::ObjectStore* store, StoreIds ids);

  std::variant<kube::ApiAnswer, kube::ApiError> Write(const kube::WriteRequest& request) override;
  std::variant<kube::ApiAnswer, kube::ApiError> Subresource(
      const kube::SubresourceRequest& request) override;

 private:
  using Outcome = std::variant<kube::ApiAnswer, kube::ApiError>;
  // Runs `apply` on the simulation thread; a timeout is a 504.
  Outcome OnTwin(const std::function<Outcome(twin::Twin&)>& apply);
  Outcome WriteNode(twin::Twin& t, const kube::WriteRequest& w);
  Outcome WritePod(twin::Twin& t, const kube::WriteRequest& w);
  Outcome WriteClusterQueue(twin::Twin& t, const kube::WriteRequest& w);
  Outcome Evict(twin::Twin& t, const kube::SubresourceRequest& s);
  // Starts stopping pod `key` `grace_seconds` from now (simulated), marked as terminating.
  Status StopPod(twin::Twin& t, const TwinMirror::PodKey& key, const std::string& ns,
                 const std::string& name, int64_t grace_seconds);

  server::LiveTwin* live_;
  TwinMirror* mirror_;
  kube::ObjectStore* store_;
  const StoreIds ids_;
};

}  // namespace steward::kubefront

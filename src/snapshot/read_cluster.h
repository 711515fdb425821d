// Reads what a snapshot needs from a live cluster, once: Nodes, GPU Pods, Namespaces and, when
// discovery shows them, Kueue and Volcano objects (through live::ClusterCache, whose informers
// list each resource; they are stopped as soon as every first list is in).
//
//   Result<std::unique_ptr<live::KubeClient>> c = live::KubeClient::Create(config);
//   Result<ClusterObjects> objects = ReadCluster(c->get(), std::chrono::seconds(60));
//
// Cost: one paged list per resource. Blocking; call from one thread.
#pragma once

#include <chrono>

#include "live/kube_client.h"
#include "model/status.h"
#include "snapshot/snapshot.h"

namespace steward::snapshot {

// DeadlineExceeded-like error (naming the resources not yet listed) when the lists do not all
// arrive within `timeout`.
Result<ClusterObjects> ReadCluster(live::KubeClient* client, std::chrono::milliseconds timeout);

}  // namespace steward::snapshot

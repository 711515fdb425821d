// The definitions of the resources Steward's API front serves: discovery (group, versions,
// plural, kind, verbs, short names), the printer columns kubectl shows (as the API server and
// the CRDs' additionalPrinterColumns define them) and the field selectors each supports.
// Backends and verbs for writes are the server's choice (it edits the returned spec).
//
//   ApiResourceSpec nodes = NodesResource();
//   nodes.verbs.push_back("patch");
//   nodes.backend = &twin_backend;
//   api.AddResource(std::move(nodes));
//
// Pure functions: thread-safe.
#pragma once

#include <string_view>

#include "kube/api_server.h"

namespace steward::kube {

// core/v1
ApiResourceSpec NodesResource();
ApiResourceSpec PodsResource();
ApiResourceSpec NamespacesResource();
ApiResourceSpec EventsResource();
ApiResourceSpec ConfigMapsResource();
// policy/v1, coordination.k8s.io/v1
ApiResourceSpec PodDisruptionBudgetsResource();
ApiResourceSpec LeasesResource();
// apps/v1, batch/v1 (owners of pods: what `kubectl drain` and owner lookups read)
ApiResourceSpec DeploymentsResource();
ApiResourceSpec ReplicaSetsResource();
ApiResourceSpec DaemonSetsResource();
ApiResourceSpec StatefulSetsResource();
ApiResourceSpec JobsResource();
// kueue.x-k8s.io v1beta1 (and v1beta2): resourceflavors, clusterqueues, localqueues, cohorts,
// workloadpriorityclasses, workloads.
ApiResourceSpec KueueResource(std::string_view plural);
// scheduling.volcano.sh/v1beta1: queues, podgroups.
ApiResourceSpec VolcanoResource(std::string_view plural);

// Value at a dotted path of plain object keys ("spec.nodeName"), "" when absent or not a
// scalar; numbers and booleans as JSON text.
std::string PathString(const nlohmann::json& object, std::string_view path);

}  // namespace steward::kube

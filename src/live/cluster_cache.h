// ClusterCache: one in-memory view of the cluster objects Steward governs, kept current by
// informers (live/informer.h): Nodes, Pods (those requesting GPUs, or all), Namespaces,
// PodDisruptionBudgets, Events and Leases, and, when discovery (/apis) shows their groups, Kueue
// (ClusterQueue, LocalQueue, Workload, ResourceFlavor, Cohort) and Volcano (Queue, PodGroup).
// Built-in kinds are stored decoded as kube/'s codec types; Kueue and Volcano objects as JSON.
// Pods are indexed by node, by namespace and by owner.
//
//   Result<std::unique_ptr<ClusterCache>> cache = ClusterCache::Start(client.get(), {});
//   if (!(*cache)->WaitForSync(std::chrono::seconds(60))) ...;   // every first list is in
//   for (const kube::Pod& p : (*cache)->PodsOnNode("gpu-node-7")) ...
//   std::vector<nlohmann::json> cqs = (*cache)->Custom("clusterqueues");
//   (*cache)->Stop();
//
// Reads return copies taken under a shared lock, consistent per call (not across calls). An
// optional on_change callback hears every change after it is applied, on an informer thread.
//
// Cost: one informer thread and watch connection per resource (up to 13); memory is about two
// copies of each object (the informer's JSON and the decoded value). Events and Leases in
// kube-node-lease change often on big clusters; restrict them with the options below.
// Thread-safety: reads from any thread; Start/Stop from one.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "kube/core_v1.h"
#include "kube/lease.h"
#include "kube/policy_v1.h"
#include "live/informer.h"
#include "live/kube_client.h"

namespace steward::live {

struct CacheChange {
  std::string resource;  // The plural: "nodes", "pods", "clusterqueues", ...
  std::string type;      // ADDED | MODIFIED | DELETED
  std::string namespace_name, name;
};

struct ClusterCacheOptions {
  // false: only pods that request GPUs (nvidia.com/gpu or MIG slices); true: every pod.
  bool all_pods = false;
  bool events = true;
  std::string events_namespace{};  // "" = all namespaces.
  std::string leases_namespace{};  // "" = all (kube-node-lease holds one per node).
  // Tuning for every informer (resource and filter are set by the cache).
  InformerOptions informer{};
  std::function<void(const CacheChange&)> on_change{};
};

class ClusterCache {
 public:
  // Discovers the Kueue and Volcano resources the server serves (a failed discovery is an
  // error: the caller retries) and starts the informers.
  static Result<std::unique_ptr<ClusterCache>> Start(KubeClient* client,
                                                     ClusterCacheOptions options = {});
  ~ClusterCache();  // Stops.
  ClusterCache(const ClusterCache&) = delete;
  ClusterCache& operator=(const ClusterCache&) = delete;

  // True once every informer has applied its first list (waits up to `timeout`).
  bool WaitForSync(std::chrono::milliseconds timeout);
  void Stop();

  // The custom resources discovery found, e.g. clusterqueues.kueue.x-k8s.io.
  std::vector<ResourceRef> custom_resources() const;
  bool Serves(std::string_view plural) const;

  std::vector<kube::Node> Nodes() const;
  std::optional<kube::Node> GetNode(std::string_view name) const;
  std::vector<kube::Pod> Pods() const;
  std::optional<kube::Pod> GetPod(std::string_view namespace_name, std::string_view name) const;
  std::vector<kube::Pod> PodsOnNode(std::string_view node) const;
  std::vector<kube::Pod> PodsInNamespace(std::string_view namespace_name) const;
  // Pods with an ownerReference to (kind, name) in `namespace_name`, e.g. ("Job", "train").
  std::vector<kube::Pod> PodsOwnedBy(std::string_view namespace_name, std::string_view kind,
                                     std::string_view name) const;
  std::vector<kube::Namespace> Namespaces() const;
  std::vector<kube::PodDisruptionBudget> Pdbs(std::string_view namespace_name = {}) const;
  std::vector<kube::Event> Events(std::string_view namespace_name = {}) const;
  std::vector<kube::Lease> Leases(std::string_view namespace_name = {}) const;
  // Kueue and Volcano objects by plural ("clusterqueues", "podgroups"); empty when not served.
  std::vector<nlohmann::json> Custom(std::string_view plural) const;
  std::optional<nlohmann::json> GetCustom(std::string_view plural, std::string_view namespace_name,
                                          std::string_view name) const;

  // Per-resource informer statistics (lists, re-lists after 410, watches, last error).
  std::map<std::string, Informer::Stats> stats() const;
  // Objects that decoded with errors (kept with what did decode), by resource.
  int64_t decode_errors() const;

 private:
  struct Impl;
  explicit ClusterCache(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace steward::live

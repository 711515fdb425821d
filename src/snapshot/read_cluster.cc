#include "snapshot/read_cluster.h"

#include <fmt/format.h>

#include "live/cluster_cache.h"

namespace steward::snapshot {
namespace {

// The kind of each Kueue/Volcano plural the cache may serve (list items carry no kind).
const char* KindOf(const std::string& plural) {
  static const std::map<std::string, const char*> kKinds = {
      {"resourceflavors", "ResourceFlavor"},
      {"cohorts", "Cohort"},
      {"clusterqueues", "ClusterQueue"},
      {"localqueues", "LocalQueue"},
      {"workloadpriorityclasses", "WorkloadPriorityClass"},
      {"workloads", "Workload"},
      {"queues", "Queue"},
      {"podgroups", "PodGroup"}};
  auto it = kKinds.find(plural);
  return it == kKinds.end() ? "" : it->second;
}

}  // namespace

Result<ClusterObjects> ReadCluster(live::KubeClient* client, std::chrono::milliseconds timeout) {
  live::ClusterCacheOptions options;
  options.all_pods = false;  // GPU pods only.
  options.events = false;
  STEWARD_ASSIGN_OR_RETURN(std::unique_ptr<live::ClusterCache> cache,
                           live::ClusterCache::Start(client, options));
  if (!cache->WaitForSync(timeout)) {
    std::string missing;
    for (const auto& [resource, stats] : cache->stats())
      if (stats.lists == 0)
        missing += fmt::format("{}{}{}", missing.empty() ? "" : ", ", resource,
                               stats.last_error.empty() ? "" : " (" + stats.last_error + ")");
    cache->Stop();
    return Status::Unavailable(fmt::format("the cluster's lists did not arrive within {} s: {}",
                                           timeout.count() / 1000, missing));
  }
  ClusterObjects out;
  out.read_at = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  out.nodes = cache->Nodes();
  out.pods = cache->Pods();
  out.namespaces = cache->Namespaces();
  for (const live::ResourceRef& r : cache->custom_resources()) {
    std::vector<nlohmann::json> objects = cache->Custom(r.plural);
    for (nlohmann::json& o : objects) {
      if (!o.is_object()) continue;
      if (!o.contains("apiVersion")) o["apiVersion"] = r.group + "/" + r.version;
      if (!o.contains("kind") && *KindOf(r.plural)) o["kind"] = KindOf(r.plural);
    }
    out.custom[r.plural] = std::move(objects);
  }
  cache->Stop();
  return out;
}

}  // namespace steward::snapshot

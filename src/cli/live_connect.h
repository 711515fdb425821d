// The live-cluster set-up `operate` and `rollout run --kubeconfig` share: kubeconfig (or
// in-cluster) configuration, the REST client, the informer cache synced, and the one-line form
// of an audit row the gate prints for every planned or applied action.
//
//   Result<LiveConnection> c = ConnectLive({.kubeconfig = path}, "steward operate");
//   live::LiveClusterControl control(c->client.get(), c->cache.get(), {});
//
// Errors are printed to stderr by the caller; `exit_code` says which (2: configuration,
// 1: the cluster). Thread-safety: set up on the command's thread.
#pragma once

#include <memory>
#include <string>

#include "live/cluster_cache.h"
#include "live/kube_client.h"
#include "live/kubeconfig.h"
#include "store/audit_log.h"

namespace steward::cli {

struct LiveConnectOptions {
  std::string kubeconfig, context;
  double sync_timeout = 60;  // Seconds for the cache's first lists.
  bool events = false;       // Also cache Events (the busiest resource).
};

struct LiveConnection {
  live::RestConfig config;
  std::unique_ptr<live::KubeClient> client;
  std::unique_ptr<live::ClusterCache> cache;
  ~LiveConnection() {
    if (cache) cache->Stop();
  }
  LiveConnection() = default;
  LiveConnection(LiveConnection&&) = default;
  LiveConnection& operator=(LiveConnection&&) = default;
};

// Resolves the configuration, creates the client and starts and syncs the cache. On failure
// returns the Status and sets *exit_code (2: configuration or client, 1: cache).
Result<LiveConnection> ConnectLive(const LiveConnectOptions& options, int* exit_code);

// "2026-12-04T15:40:00Z" (UTC) for Unix microseconds.
std::string IsoTime(int64_t micros);

// "2026-12-04T15:40:00Z planned cordon node/gpu-7: schedulable -> unschedulable (reason)".
std::string AuditLine(const store::AuditRow& row);

}  // namespace steward::cli

// HealthEndpoint: `steward operate --health-port N`: what a Deployment's probes and Prometheus
// read of a running operator, over HTTP (http/server.h):
//   /healthz  200 while the pass loop is alive: before the first pass (the cache is syncing),
//             or with a pass finished within `stall_after`; 503 once passes stop finishing
//             (a wedged loop: the kubelet restarts the container);
//   /readyz   200 once the cluster cache has synced (SetReady), 503 before;
//   /metrics  Prometheus text: passes, failed passes, errors, XIDs, actions recorded by mode
//             (planned, server-dry-run, applied, failed), readiness and leadership, and the
//             GPU stack findings of the latest pass.
//
//   HealthEndpoint health({.listen = "0.0.0.0", .port = 8080});
//   Result<int> port = health.Start();
//   ... cache->WaitForSync(...);  health.SetReady();
//   gate.on_record = health.Counting(std::move(gate.on_record));
//   health.SetLeaderCheck(gate.is_leader);
//   Status s = op->RunPass();  health.RecordPass(op->stats(), s.ok());
//
// Read-only (writes get 403) and unauthenticated, like controller-runtime's metrics and probe
// ports: bind it to loopback (the default) unless the pod network is where it is scraped.
// Cost: a few atomics per pass and per recorded action; one small server thread pool.
// Thread-safety: every method may be called from any thread; requests are served concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "health/stack_health.h"
#include "http/message.h"
#include "http/server.h"
#include "model/status.h"
#include "operate/operator.h"
#include "store/audit_log.h"

namespace steward::operate {

struct HealthEndpointOptions {
  std::string listen = "127.0.0.1";
  int port = 0;  // 0 = any free port (Start returns it).
  // /healthz turns 503 when no pass has finished for this long after the last one (or after
  // SetReady, for the first). Zero: never. Set it well above the pass interval plus the
  // longest pass (Prometheus and API timeouts), or a slow pass restarts the container.
  std::chrono::milliseconds stall_after{0};
  // The clock of stall_after; unset = std::chrono::steady_clock (tests inject one).
  std::function<std::chrono::steady_clock::time_point()> now;
};

class HealthEndpoint {
 public:
  explicit HealthEndpoint(HealthEndpointOptions options);
  ~HealthEndpoint();  // Stops.
  HealthEndpoint(const HealthEndpoint&) = delete;
  HealthEndpoint& operator=(const HealthEndpoint&) = delete;

  // Listens (on a background thread); returns the bound port.
  Result<int> Start();
  void Stop();

  // The cluster cache has synced: /readyz answers 200 from now on.
  void SetReady();
  // Whether this replica holds the leader Lease (unset: always; no leader election).
  void SetLeaderCheck(std::function<bool()> is_leader);
  // Wraps an audit-row callback so every recorded action is counted by mode, then forwarded.
  std::function<void(const store::AuditRow&)> Counting(
      std::function<void(const store::AuditRow&)> next);
  void RecordAction(const store::AuditRow& row);
  // A pass has finished (`ok`: RunPass returned OK); `stats` are the operator's totals.
  void RecordPass(const Operator::Stats& stats, bool ok);
  // The GPU stack findings of the latest pass (Operator::current_stack_findings), served as
  // steward_stack_findings / steward_stack_finding (health/stack_health_metrics.h); absent
  // from /metrics until the first call.
  void SetStackFindings(std::vector<health::StackFinding> findings);

  // Serves one request (what the server calls; tests call it directly).
  http::Reply Handle(const http::Request& request) const;

 private:
  std::chrono::steady_clock::time_point Now() const;
  bool Live() const;
  std::string Metrics() const;

  const HealthEndpointOptions options_;
  std::unique_ptr<http::Server> server_;
  std::atomic<bool> ready_{false};
  std::atomic<int64_t> progress_at_{0};  // steady_clock ticks of SetReady or the last pass.
  std::atomic<int64_t> passes_{0}, failed_passes_{0}, errors_{0}, xids_{0};
  std::atomic<bool> tidal_{false};
  std::atomic<int64_t> tidal_steps_{0}, tidal_holds_{0}, tidal_lent_gpus_{-1};
  std::atomic<int64_t> planned_{0}, server_dry_run_{0}, applied_{0}, failed_{0};
  mutable std::mutex stack_mu_;
  std::optional<std::vector<health::StackFinding>> stack_findings_;  // Guarded by stack_mu_.
  mutable std::mutex leader_mu_;
  std::function<bool()> is_leader_;  // Guarded by leader_mu_.
};

}  // namespace steward::operate

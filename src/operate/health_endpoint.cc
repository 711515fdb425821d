#include "operate/health_endpoint.h"

#include <fmt/format.h>

#include "health/stack_health_metrics.h"

namespace steward::operate {

HealthEndpoint::HealthEndpoint(HealthEndpointOptions options) : options_(std::move(options)) {}

HealthEndpoint::~HealthEndpoint() { Stop(); }

Result<int> HealthEndpoint::Start() {
  http::ServerOptions o;
  o.host = options_.listen;
  o.port = options_.port;
  o.threads = 4;  // Probes and one scraper.
  o.access.read_only = true;
  server_ = std::make_unique<http::Server>(o, [this](const http::Request& r) { return Handle(r); });
  return server_->Start();
}

void HealthEndpoint::Stop() {
  if (server_) server_->Stop();
  server_.reset();
}

std::chrono::steady_clock::time_point HealthEndpoint::Now() const {
  return options_.now ? options_.now() : std::chrono::steady_clock::now();
}

void HealthEndpoint::SetReady() {
  progress_at_ = Now().time_since_epoch().count();
  ready_ = true;
}

void HealthEndpoint::SetLeaderCheck(std::function<bool()> is_leader) {
  std::lock_guard lock(leader_mu_);
  is_leader_ = std::move(is_leader);
}

std::function<void(const store::AuditRow&)> HealthEndpoint::Counting(
    std::function<void(const store::AuditRow&)> next) {
  return [this, next = std::move(next)](const store::AuditRow& row) {
    RecordAction(row);
    if (next) next(row);
  };
}

void HealthEndpoint::RecordAction(const store::AuditRow& row) {
  if (row.mode == "planned")
    ++planned_;
  else if (row.mode == "server-dry-run")
    ++server_dry_run_;
  else if (row.mode == "applied")
    ++applied_;
  else
    ++failed_;
}

void HealthEndpoint::SetStackFindings(std::vector<health::StackFinding> findings) {
  std::lock_guard lock(stack_mu_);
  stack_findings_ = std::move(findings);
}

void HealthEndpoint::RecordPass(const Operator::Stats& stats, bool ok) {
  passes_ = stats.passes;
  errors_ = stats.errors;
  xids_ = stats.xids;
  tidal_ = stats.tidal;
  tidal_steps_ = stats.tidal_steps;
  tidal_holds_ = stats.tidal_holds;
  tidal_lent_gpus_ = stats.tidal_lent_gpus;
  if (!ok) ++failed_passes_;
  progress_at_ = Now().time_since_epoch().count();
}

bool HealthEndpoint::Live() const {
  if (!ready_ || options_.stall_after.count() <= 0) return true;
  const auto since =
      Now().time_since_epoch() - std::chrono::steady_clock::duration(progress_at_.load());
  return since <= options_.stall_after;
}

std::string HealthEndpoint::Metrics() const {
  bool leader = true;
  {
    std::lock_guard lock(leader_mu_);
    if (is_leader_) leader = is_leader_();
  }
  std::string out;
  auto metric = [&out](const char* name, const char* type, const char* help) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  };
  metric("steward_operate_passes_total", "counter", "Passes of the remediation loop run.");
  out += fmt::format("steward_operate_passes_total {}\n", passes_.load());
  metric("steward_operate_pass_failures_total", "counter",
         "Passes that failed as a whole (e.g. Prometheus unreachable).");
  out += fmt::format("steward_operate_pass_failures_total {}\n", failed_passes_.load());
  metric("steward_operate_errors_total", "counter",
         "Errors of single signals or actions within passes.");
  out += fmt::format("steward_operate_errors_total {}\n", errors_.load());
  metric("steward_operate_xids_total", "counter", "New XIDs seen in the DCGM series.");
  out += fmt::format("steward_operate_xids_total {}\n", xids_.load());
  metric("steward_operate_actions_total", "counter",
         "Actions recorded by the gate (audit rows), by mode.");
  for (const auto& [mode, n] : {std::pair{"planned", &planned_},
                                {"server-dry-run", &server_dry_run_},
                                {"applied", &applied_},
                                {"failed", &failed_}})
    out += fmt::format("steward_operate_actions_total{{mode=\"{}\"}} {}\n", mode, n->load());
  if (tidal_) {  // Tidal lending configured (operate --tidal).
    metric("steward_operate_tidal_steps_total", "counter", "Tidal lending's control steps.");
    out += fmt::format("steward_operate_tidal_steps_total {}\n", tidal_steps_.load());
    metric("steward_operate_tidal_holds_total", "counter",
           "Tidal periods held for want of a usable request-rate reading.");
    out += fmt::format("steward_operate_tidal_holds_total {}\n", tidal_holds_.load());
  }
  if (tidal_lent_gpus_ >= 0) {  // Known from the first step on.
    metric("steward_operate_tidal_lent_gpus", "gauge",
           "GPUs of the serving queue's quota lent at the last tidal step.");
    out += fmt::format("steward_operate_tidal_lent_gpus {}\n", tidal_lent_gpus_.load());
  }
  metric("steward_operate_ready", "gauge", "1 once the cluster cache has synced.");
  out += fmt::format("steward_operate_ready {}\n", ready_ ? 1 : 0);
  metric("steward_operate_is_leader", "gauge",
         "1 while this replica may write (holds the leader Lease, or runs without election).");
  out += fmt::format("steward_operate_is_leader {}\n", leader ? 1 : 0);
  {
    std::lock_guard lock(stack_mu_);
    if (stack_findings_) out += health::StackFindingsExposition(*stack_findings_);
  }
  return out;
}

http::Reply HealthEndpoint::Handle(const http::Request& r) const {
  if (r.method != "GET" && r.method != "HEAD")
    return http::Reply::Text(405, "GET only\n").WithHeader("Allow", "GET");
  if (r.path == "/healthz" || r.path == "/livez")
    return Live() ? http::Reply::Text(200, "ok\n")
                  : http::Reply::Text(503, "no pass has finished within the stall limit\n");
  if (r.path == "/readyz")
    return ready_ ? http::Reply::Text(200, "ok\n")
                  : http::Reply::Text(503, "the cluster cache has not synced yet\n");
  if (r.path == "/metrics") {
    http::Reply reply = http::Reply::Text(200, Metrics());
    reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
    return reply;
  }
  return http::Reply::Text(404, "not found: /healthz, /readyz, /metrics\n");
}

}  // namespace steward::operate

#include "cli/rollout_live.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include "cli/live_connect.h"
#include "cli/prometheus_flags.h"
#include "cli/prometheus_xids.h"
#include "control/gated_control.h"
#include "live/live_control.h"
#include "rollout/engine.h"

namespace steward::cli {
namespace {

std::atomic<bool> g_stop_rollout{false};

}  // namespace

int RunRolloutLive(const LiveRolloutFlags& f, const rollout::RolloutPlan& plan,
                   const std::string& commit, rollout::RolloutStore* store) {
  int code = 0;
  LiveConnectOptions lo;
  lo.kubeconfig = f.kubeconfig;
  lo.context = f.context;
  lo.sync_timeout = f.sync_timeout;
  Result<LiveConnection> conn = ConnectLive(lo, &code);
  if (!conn.ok()) {
    fmt::print(stderr, "steward rollout run: {}\n", conn.status().ToString());
    return code;
  }
  live::LiveClusterControl cluster(conn->client.get(), conn->cache.get(), {});
  control::GateOptions go;
  go.mode = f.apply ? control::GateOptions::Mode::kApply : control::GateOptions::Mode::kPlan;
  go.max_evictions_per_minute = f.max_evictions_per_minute;
  go.on_record = [](const store::AuditRow& r) {
    fmt::print("{}\n", AuditLine(r));
    std::fflush(stdout);
  };
  control::GatedControl gate(cluster, nullptr, go);
  // XIDs from Prometheus when given; otherwise XID and job-failure gates measure Errors.
  rollout::NoMetrics no_metrics;
  std::optional<telemetry::PrometheusClient> prometheus;
  std::unique_ptr<PrometheusXids> xids;
  if (!f.prometheus.empty()) {
    Result<telemetry::PrometheusClientOptions> po =
        LoadPrometheusClientOptions(f.prometheus_config, f.prometheus_timeout);
    Result<telemetry::PrometheusClient> pc =
        po.ok() ? telemetry::PrometheusClient::Create(f.prometheus, *po)
                : Result<telemetry::PrometheusClient>(po.status());
    if (!pc.ok()) {
      fmt::print(stderr, "steward rollout run: {}\n", pc.status().ToString());
      return 2;
    }
    prometheus = std::move(*pc);
    xids = std::make_unique<PrometheusXids>(*prometheus, cluster);
  }
  rollout::MetricSource& metrics = xids ? static_cast<rollout::MetricSource&>(*xids) : no_metrics;
  // Polled before every step; a failed query makes the XID gates measure Errors meanwhile.
  auto poll = [&] {
    if (!xids) return;
    if (Status p = xids->Poll(cluster.Now()); !p.ok())
      fmt::print(stderr, "steward rollout run: Prometheus: {}\n", p.ToString());
  };
  poll();
  // A dry run writes nothing, the state file included: the engine believes its planned
  // actions happened, which only holds for the plan it prints.
  rollout::RolloutEngine engine(plan, commit, gate, metrics, f.apply ? store : nullptr);
  fmt::print(stderr, "steward rollout run: {} against {} ({} nodes)\n",
             f.apply ? "APPLYING changes" : "dry run (plan only; --apply acts)",
             conn->config.server, conn->cache->Nodes().size());
  Status s = engine.Begin(rollout::RolloutEngine::Start::kResume);
  if (!s.ok()) {
    fmt::print(stderr, "steward rollout run: {}\n", s.ToString());
    return 1;
  }
  if (f.answer && f.apply && engine.run().state == rollout::RolloutState::kPaused)
    s = engine.AnswerPause(*f.answer, f.why);
  if (!s.ok()) {
    fmt::print(stderr, "steward rollout run: {}\n", s.ToString());
    return 1;
  }
  std::signal(SIGINT, [](int) { g_stop_rollout = true; });
  std::signal(SIGTERM, [](int) { g_stop_rollout = true; });
  if (!f.apply) {
    // Plan the steps that follow at once (until the engine waits on the cluster or a timer).
    for (int i = 0; i < 50 && engine.Active(); ++i) {
      const size_t before = engine.decisions().size();
      poll();
      s = engine.Step();
      if (!s.ok() || engine.decisions().size() == before) break;
    }
  } else {
    const double interval = f.interval > 0 ? f.interval : plan.tick.ToSeconds();
    while (!g_stop_rollout && engine.Active() && s.ok()) {
      poll();
      s = engine.Step();
      if (f.once) break;
      for (double waited = 0; waited < interval && !g_stop_rollout; waited += 0.05)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  if (!s.ok()) {
    fmt::print(stderr, "steward rollout run: {}\n", s.ToString());
    return 1;
  }
  for (const rollout::Decision& d : engine.decisions())
    fmt::print(stderr, "decision #{} {} {}: {} -> {} ({})\n", d.seq, d.kind, d.object,
               d.from.empty() ? "\"\"" : d.from, d.to, d.reason);
  const rollout::RolloutRun& run = engine.run();
  fmt::print(stderr, "steward rollout run: {}{}; {} action(s) {}\n",
             rollout::RolloutStateName(run.state),
             run.reason.empty() ? "" : fmt::format(" ({})", run.reason), gate.recorded(),
             f.apply ? "applied" : "planned");
  return run.state == rollout::RolloutState::kFailed ? 1 : 0;
}

}  // namespace steward::cli

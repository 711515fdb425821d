// `steward operate`: Steward's controllers on a live cluster (operate/operator.h), dry-run
// unless --apply; `steward operate log`: the audit log of what it planned and did.
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/live_connect.h"
#include "cli/prometheus_flags.h"
#include "live/cluster_cache.h"
#include "live/kube_client.h"
#include "live/kubeconfig.h"
#include "live/leader_election.h"
#include "operate/health_endpoint.h"
#include "operate/operator.h"
#include "store/audit_log.h"

namespace steward::cli {
namespace {

std::atomic<bool> g_stop{false};

struct OperateFlags {
  std::string kubeconfig, context, prometheus, prometheus_config, audit, state, tidal;
  bool apply = false, server_dry_run = false, once = false;
  double interval = 30, prometheus_timeout = 10, sync_timeout = 60;
  int max_evictions_per_minute = 20;
  double max_out_fraction = 0.10;
  double tier_step = 60, checkpoint_grace = 300, eviction_grace = 30;
  double alert_tenant_share = 0.5;
  bool no_stack_health = false;
  bool no_idle_reclaim = false;
  double reclaim_notify_after = 30, reclaim_after = 60, reclaim_idle_below = 0.05;
  std::vector<std::string> reclaim_kinds = {"notebook"};
  std::vector<std::string> reclaim_exempt = {"steward.io/reclaim-exempt=true"};
  std::string pause_configmap = "steward-system/steward";
  bool leader_elect = false;
  std::string lease = "steward-system/steward-operate", identity;
  double lease_duration = 15, renew_deadline = 10, retry_period = 2;
  double ticket_hold = 600;
  int health_port = 0;  // 0 = no health endpoint.
  std::string health_listen = "127.0.0.1";
};

// Leader election (--leader-elect) on its own client with short timeouts, so a slow API
// server costs at most a renewal, never a stale IsLeader().
Result<std::unique_ptr<live::LeaderElector>> StartElection(const live::RestConfig& config,
                                                           const OperateFlags& f,
                                                           std::unique_ptr<live::KubeClient>* own) {
  live::KubeClientOptions co;
  co.read_timeout = std::chrono::milliseconds(static_cast<int64_t>(f.renew_deadline * 500));
  co.connect_timeout = co.read_timeout;
  co.max_retries = 0;
  STEWARD_ASSIGN_OR_RETURN(*own, live::KubeClient::Create(config, co));
  const size_t slash = f.lease.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == f.lease.size())
    return Status::InvalidArgument(fmt::format("--lease '{}': expected NAMESPACE/NAME", f.lease));
  live::LeaderElectionOptions o;
  o.identity = f.identity;
  o.lease_namespace = f.lease.substr(0, slash);
  o.lease_name = f.lease.substr(slash + 1);
  o.lease_duration = std::chrono::seconds(static_cast<int64_t>(f.lease_duration));
  o.renew_deadline = std::chrono::milliseconds(static_cast<int64_t>(f.renew_deadline * 1000));
  o.retry_period = std::chrono::milliseconds(static_cast<int64_t>(f.retry_period * 1000));
  o.on_started_leading = [] { fmt::print(stderr, "steward operate: became the leader\n"); };
  o.on_stopped_leading = [] { fmt::print(stderr, "steward operate: lost the leadership\n"); };
  STEWARD_ASSIGN_OR_RETURN(std::unique_ptr<live::LeaderElector> e,
                           live::LeaderElector::Create(own->get(), o));
  return e;
}

// /healthz, /readyz and /metrics on --health-port (null, with the reason printed, when the
// port cannot be bound or none was asked for).
std::unique_ptr<operate::HealthEndpoint> StartHealth(const OperateFlags& f) {
  if (f.health_port <= 0) return nullptr;
  operate::HealthEndpointOptions ho;
  ho.listen = f.health_listen;
  ho.port = f.health_port;
  // A pass takes at most about the Prometheus timeout plus API retries: ten intervals and
  // five minutes without one finishing means the loop is wedged.
  ho.stall_after = std::chrono::milliseconds(static_cast<int64_t>((10 * f.interval + 300) * 1000));
  auto health = std::make_unique<operate::HealthEndpoint>(ho);
  Result<int> port = health->Start();
  if (!port.ok()) {
    fmt::print(stderr, "steward operate: --health-port: {}\n", port.status().ToString());
    return nullptr;
  }
  fmt::print(stderr, "steward operate: /healthz, /readyz and /metrics on http://{}:{}/\n",
             f.health_listen, *port);
  return health;
}

int RunOperate(const OperateFlags& f) {
  std::optional<telemetry::PrometheusClient> prometheus;
  if (!f.prometheus.empty()) {
    Result<telemetry::PrometheusClientOptions> po =
        LoadPrometheusClientOptions(f.prometheus_config, f.prometheus_timeout);
    if (!po.ok()) {
      fmt::print(stderr, "steward operate: {}\n", po.status().ToString());
      return 2;
    }
    Result<telemetry::PrometheusClient> pc = telemetry::PrometheusClient::Create(f.prometheus, *po);
    if (!pc.ok()) {
      fmt::print(stderr, "steward operate: {}\n", pc.status().ToString());
      return 2;
    }
    prometheus = std::move(*pc);
  }
  std::optional<operate::LiveTidalConfig> tidal;
  if (!f.tidal.empty()) {
    Result<operate::LiveTidalConfig> t = operate::LoadTidalConfig(f.tidal);
    if (!t.ok()) {
      fmt::print(stderr, "steward operate: {}\n", t.status().ToString());
      return 2;
    }
    if (t->enabled && !prometheus) {
      fmt::print(stderr,
                 "steward operate: --tidal needs --prometheus (the services' request rates)\n");
      return 2;
    }
    tidal = std::move(*t);
  }
  std::unique_ptr<store::AuditLog> audit;
  if (!f.audit.empty()) {
    Result<std::unique_ptr<store::AuditLog>> a = store::AuditLog::Open(f.audit);
    if (!a.ok()) {
      fmt::print(stderr, "steward operate: {}\n", a.status().ToString());
      return 2;
    }
    audit = std::move(*a);
  }
  std::unique_ptr<operate::HealthEndpoint> health = StartHealth(f);  // --health-port
  if (f.health_port > 0 && !health) return 2;
  int connect_code = 0;
  LiveConnectOptions lo;
  lo.kubeconfig = f.kubeconfig;
  lo.context = f.context;
  lo.sync_timeout = f.sync_timeout;
  Result<LiveConnection> conn = ConnectLive(lo, &connect_code);
  if (!conn.ok()) {
    fmt::print(stderr, "steward operate: {}\n", conn.status().ToString());
    return connect_code;
  }
  const live::RestConfig& config = conn->config;
  live::KubeClient* client = conn->client.get();
  live::ClusterCache* cache = conn->cache.get();
  if (health) health->SetReady();

  std::unique_ptr<live::KubeClient> election_client;
  std::unique_ptr<live::LeaderElector> elector;
  if (f.leader_elect) {
    Result<std::unique_ptr<live::LeaderElector>> e = StartElection(config, f, &election_client);
    if (!e.ok()) {
      fmt::print(stderr, "steward operate: leader election: {}\n", e.status().ToString());
      return 2;
    }
    elector = std::move(*e);
    if (f.once)
      (void)elector->Step();  // One attempt; a follower's writes are refused.
    else
      elector->Start();
  }

  operate::OperatorOptions o;
  if (elector) o.gate.is_leader = [e = elector.get()] { return e->IsLeader(); };
  o.gate.mode = f.apply            ? control::GateOptions::Mode::kApply
                : f.server_dry_run ? control::GateOptions::Mode::kServerDryRun
                                   : control::GateOptions::Mode::kPlan;
  o.server_dry_run = f.server_dry_run && !f.apply;
  o.gate.max_evictions_per_minute = f.max_evictions_per_minute;
  o.gate.on_record = [](const store::AuditRow& r) {
    fmt::print("{}\n", AuditLine(r));
    std::fflush(stdout);
  };
  o.state_db = f.state;
  o.remediation.max_out_fraction = f.max_out_fraction;
  o.remediation.tier_step = SecondsF(f.tier_step);
  o.remediation.checkpoint_grace = SecondsF(f.checkpoint_grace);
  o.remediation.eviction_grace = SecondsF(f.eviction_grace);
  o.remediation.ticket_hold = SecondsF(f.ticket_hold);
  o.pause_configmap = f.pause_configmap;
  o.alert_tenant_share = f.alert_tenant_share;
  o.stack_health = !f.no_stack_health;
  o.idle_reclaim = !f.no_idle_reclaim;
  o.reclaim.spec.notify_after_minutes = f.reclaim_notify_after;
  o.reclaim.spec.reclaim_after_minutes = f.reclaim_after;
  o.reclaim.spec.idle_sm_active_below = f.reclaim_idle_below;
  o.reclaim.spec.kinds.clear();
  for (const std::string& k : f.reclaim_kinds) {
    model::WorkloadKind kind;
    if (!model::ParseKind(k, &kind)) {
      fmt::print(stderr, "steward operate: --reclaim-kinds: unknown kind '{}'\n", k);
      return 2;
    }
    o.reclaim.spec.kinds.push_back(kind);
  }
  o.reclaim.spec.exempt_labels.clear();
  for (const std::string& l : f.reclaim_exempt) {
    const size_t eq = l.find('=');
    if (eq == 0 || eq == std::string::npos || eq + 1 == l.size()) {
      fmt::print(stderr, "steward operate: --reclaim-exempt-label '{}': expected KEY=VALUE\n", l);
      return 2;
    }
    o.reclaim.spec.exempt_labels[l.substr(0, eq)] = l.substr(eq + 1);
  }
  o.tidal = std::move(tidal);
  o.reclaim.grace = SecondsF(f.eviction_grace);
  o.reclaim.checkpoint_grace = SecondsF(f.checkpoint_grace);
  if (health) {
    o.gate.on_record = health->Counting(std::move(o.gate.on_record));
    health->SetLeaderCheck(o.gate.is_leader);
  }
  Result<std::unique_ptr<operate::Operator>> op =
      operate::Operator::Create(client, cache, prometheus ? &*prometheus : nullptr, audit.get(), o);
  if (!op.ok()) {
    fmt::print(stderr, "steward operate: {}\n", op.status().ToString());
    return 1;
  }
  if (const tidal::TidalController* t = (*op)->tidal())
    fmt::print(stderr,
               "steward operate: tidal lending from ClusterQueue {} to {} (static split {} + "
               "{} GPUs), every {} s, {} service(s)\n",
               t->options().lend_from, t->options().lend_to, *t->options().serving_quota,
               *t->options().borrower_quota, t->options().period.ToSeconds(),
               o.tidal->services.size());
  fmt::print(stderr, "steward operate: {} against {} ({} nodes){}\n",
             f.apply            ? "APPLYING changes"
             : f.server_dry_run ? "server-side dry run"
                                : "dry run (plan only; --apply acts)",
             config.server, cache->Nodes().size(),
             prometheus ? fmt::format(", DCGM from {}", prometheus->url())
                        : ", no Prometheus (no XID signals)");
  std::signal(SIGINT, [](int) { g_stop = true; });
  std::signal(SIGTERM, [](int) { g_stop = true; });
  int exit_code = 0;
  while (!g_stop) {
    Status s = (*op)->RunPass();
    if (!s.ok()) {
      fmt::print(stderr, "steward operate: pass failed: {}\n", s.ToString());
      exit_code = 1;
    }
    if (health) health->RecordPass((*op)->stats(), s.ok());
    if (health && (*op)->stack_checked()) health->SetStackFindings((*op)->current_stack_findings());
    if (f.once) break;
    for (double waited = 0; waited < f.interval && !g_stop; waited += 0.1)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const operate::Operator::Stats& st = (*op)->stats();
  const std::string failsafe =
      st.tidal_failsafe_reclaims > 0
          ? fmt::format("; the hold's fail-safe took the loan back ({} period(s))",
                        st.tidal_failsafe_reclaims)
          : std::string();
  if (const tidal::TidalController* t = (*op)->tidal(); t && st.tidal_steps == 0)
    fmt::print(stderr, "steward operate: tidal: 0 steps, {} hold(s); {}{}\n", st.tidal_holds,
               failsafe.empty() ? "nothing lent or taken back" : "nothing lent", failsafe);
  else if (t)
    fmt::print(stderr,
               "steward operate: tidal: {} step(s), {} hold(s); {} GPUs of {} lent to {} "
               "(serving needs {}){}\n",
               st.tidal_steps, st.tidal_holds, t->stats().lent_gpus, t->options().lend_from,
               t->options().lend_to,
               t->last_need() ? fmt::format("{} GPUs", *t->last_need())
                              : std::string("unknown: no forecast yet"),
               failsafe);
  fmt::print(stderr,
             "steward operate: {} pass(es), {} XID(s), {} condition change(s), {} action(s) "
             "recorded, {} error(s){}\n",
             st.passes, st.xids, st.conditions, (*op)->gate().recorded(), st.errors,
             (*op)->first_error().ok() ? "" : "; first: " + (*op)->first_error().ToString());
  if (!(*op)->gate().log_status().ok())
    fmt::print(stderr, "steward operate: audit log: {}\n", (*op)->gate().log_status().ToString());
  if (elector) elector->Stop();  // Releases the Lease: another replica takes over at once.
  return exit_code;              // The connection stops its cache.
}

int RunLog(const std::string& path, bool json) {
  Result<std::unique_ptr<store::AuditLog>> log = store::AuditLog::OpenExisting(path);
  if (!log.ok()) {
    fmt::print(stderr, "steward operate log: {}\n", log.status().ToString());
    return 2;
  }
  Result<std::vector<store::AuditRow>> rows = (*log)->Read();
  if (!rows.ok()) {
    fmt::print(stderr, "steward operate log: {}\n", rows.status().ToString());
    return 1;
  }
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const store::AuditRow& r : *rows)
      out.push_back({{"id", r.id},
                     {"time", IsoTime(r.at_micros)},
                     {"mode", r.mode},
                     {"action", r.action},
                     {"object", r.object},
                     {"reason", r.reason},
                     {"before", r.before},
                     {"after", r.after},
                     {"error", r.error}});
    fmt::print("{}\n", out.dump(2));
  } else {
    for (const store::AuditRow& r : *rows) fmt::print("{}\n", AuditLine(r));
  }
  return 0;
}

}  // namespace

void RegisterOperateCommands(CLI::App& app) {
  auto flags = std::make_shared<OperateFlags>();
  CLI::App* op = app.add_subcommand(
      "operate",
      "Run Steward's controllers (GPU fault remediation) against a live cluster; dry run "
      "unless --apply");
  op->add_option("--kubeconfig", flags->kubeconfig,
                 "Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)");
  op->add_option("--context", flags->context, "Kubeconfig context (default: current-context)");
  op->add_option("--prometheus", flags->prometheus,
                 "Prometheus URL with dcgm-exporter series (XIDs); without it, only node "
                 "conditions are signals");
  AddPrometheusConfigFlag(op, &flags->prometheus_config);
  op->add_option("--tidal", flags->tidal,
                 "Tidal lending (docs/tidal.md): a YAML file with the scenario's tidal: section, "
                 "the static split and each service's request-rate query (needs --prometheus)");
  op->add_flag("--apply", flags->apply,
               "Act: cordon, evict, annotate, emit events (default: plan only)");
  op->add_flag("--server-dry-run", flags->server_dry_run,
               "Send each action with dryRun=All so the API server's admission judges it; nothing "
               "is stored");
  op->add_flag("--once", flags->once, "One pass, then exit");
  op->add_option("--audit", flags->audit, "SQLite audit log of every plan line and write");
  op->add_option("--state", flags->state,
                 "SQLite file for the remediation state with --apply (default: in memory)");
  op->add_option("--interval", flags->interval, "Seconds between passes")->check(Positive());
  op->add_option("--max-evictions-per-minute", flags->max_evictions_per_minute,
                 "Cap on evictions per minute")
      ->check(Positive());
  op->add_option("--max-out-fraction", flags->max_out_fraction,
                 "Remediation budget: most of a pool out of service at once")
      ->check(Between(0.0, 1.0));
  op->add_option("--tier-step", flags->tier_step,
                 "Seconds between draining one tier and the next (dev, training, production)")
      ->check(NonNegative());
  op->add_option("--checkpoint-grace", flags->checkpoint_grace,
                 "Seconds a checkpointing workload gets to save when evicted")
      ->check(NonNegative());
  op->add_option("--eviction-grace", flags->eviction_grace, "Seconds any other pod gets to exit")
      ->check(NonNegative());
  op->add_option("--alert-tenant-share", flags->alert_tenant_share,
                 "Warn (an Event on its namespace) when one tenant holds more than this share "
                 "of the cluster's GPUs; 0 = off")
      ->check(Between(0.0, 1.0));
  op->add_flag("--no-stack-health", flags->no_stack_health,
               "Skip the GPU stack checks (device plugin, driver/toolkit drift, GFD labels)");
  op->add_flag("--no-idle-reclaim", flags->no_idle_reclaim,
               "Skip idle reclaim (notice, then eviction of workloads whose GPUs sit idle)");
  op->add_option("--reclaim-notify-after", flags->reclaim_notify_after,
                 "Minutes of idle GPUs before the notice (annotation + Event)")
      ->check(Positive());
  op->add_option("--reclaim-after", flags->reclaim_after,
                 "Minutes of idle GPUs before the eviction (after the notice)")
      ->check(Positive());
  op->add_option("--reclaim-idle-below", flags->reclaim_idle_below,
                 "Idle: SM-active averaged over the workload's GPUs below this fraction")
      ->check(Between(0.0, 1.0));
  op->add_option("--reclaim-kinds", flags->reclaim_kinds,
                 "Workload kinds reclaimed, in reclaim order (notebook, batch, training, "
                 "inference; the steward.io/kind pod label, else the owner)")
      ->delimiter(',');
  op->add_option("--reclaim-exempt-label", flags->reclaim_exempt,
                 "KEY=VALUE (VALUE * = any) of a pod label that spares its workload (repeatable)");
  op->add_option(
      "--pause-configmap", flags->pause_configmap,
      "NAMESPACE/NAME of a ConfigMap whose annotation steward.io/paused=true stops every write");
  op->add_flag("--leader-elect", flags->leader_elect,
               "Act only while holding the Lease (run several replicas; one writes)");
  op->add_option("--lease", flags->lease, "NAMESPACE/NAME of the leader-election Lease");
  op->add_option("--identity", flags->identity,
                 "This replica's holderIdentity (default: hostname + random suffix)");
  op->add_option("--lease-duration", flags->lease_duration, "Seconds a Lease stays valid")
      ->check(Positive());
  op->add_option("--renew-deadline", flags->renew_deadline,
                 "Seconds a leader may fail to renew before it stops acting (< lease duration)")
      ->check(Positive());
  op->add_option("--retry-period", flags->retry_period, "Seconds between election attempts")
      ->check(Positive());
  op->add_option("--sync-timeout", flags->sync_timeout,
                 "Seconds to wait for the first list of every resource");
  op->add_option("--ticket-hold", flags->ticket_hold,
                 "Seconds a single node's fault waits before its repair ticket (a rack-wide "
                 "incident may yet join it)")
      ->check(NonNegative());
  op->add_option("--health-port", flags->health_port,
                 "Serve /healthz, /readyz (cache synced) and /metrics (Prometheus text) on this "
                 "port (0 = off)")
      ->check(Between(0, 65535));
  op->add_option("--health-listen", flags->health_listen,
                 "Address of --health-port (0.0.0.0 in a pod, for probes and scraping)");
  auto log_path = std::make_shared<std::string>();
  auto log_json = std::make_shared<bool>(false);
  CLI::App* log = op->add_subcommand("log", "Print the audit log of `steward operate --audit DB`");
  log->add_option("--audit", *log_path, "The audit log (SQLite)")->required();
  log->add_flag("--json", *log_json, "JSON array of rows");
  log->callback([log_path, log_json] {
    const int code = RunLog(*log_path, *log_json);
    if (code != 0) Fail(code);
  });
  op->callback([op, flags] {
    if (op->got_subcommand("log")) return;
    const int code = RunOperate(*flags);
    if (code != 0) Fail(code);
  });
}

}  // namespace steward::cli

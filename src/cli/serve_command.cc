// `steward serve [SCENARIO]`: the twin, live, with the JSON API, /metrics and the dashboard.
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/twin_setup.h"
#include "cost/cost_model.h"
#include "http/server.h"
#include "kubefront/kube_front.h"
#include "server/http_server.h"
#include "server/live_twin.h"
#include "twin/memory_estimate.h"
#include "twin/scenario.h"
#include "twin/twin.h"

namespace steward::cli {
namespace {

struct ServeArgs {
  std::string scenario;
  int port = 8080;
  double speed = 60;
  std::string listen = "127.0.0.1";
  double days = 0;
  int64_t seed = -1;
  std::vector<std::string> policy;
  std::string cost_model;
  std::string remediation_db = ":memory:";
  double dcgm_interval = 30;
  // Simulated days run at full speed before serving; < 0 = the default (kDefaultWarmupDays,
  // at most half the horizon).
  double warmup_days = -1;
  std::string memory_limit;  // --memory-limit: "" = the default (half of the machine).
  // The Kubernetes API front (docs/kube-api.md); -1 = off.
  int kube_port = -1;
  std::string kubeconfig_out;
  std::string kube_request_log;
  std::string token_file;
  std::string tls_cert, tls_key;
  // How long the Kubernetes API keeps watch history and continue tokens (seconds of real time;
  // etcd's default is 5 minutes). Tests shorten it to provoke 410 Expired without waiting.
  double kube_watch_window = 300;
  bool read_only = false;
};

// Two simulated days: the default scenario's queues, quotas and first faults have settled by
// then (its workloads arrive from t = 0 and its longest jobs run for a day or more).
constexpr double kDefaultWarmupDays = 2;

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "steward: " << message << "\n";
  Fail();
}

// A bearer token from a file (surrounding whitespace ignored), as Kubernetes token files are.
Result<std::string> ReadTokenFile(const std::string& path) {
  std::ifstream f(path);
  if (!f) return Status::IoError(fmt::format("--token-file {}: cannot read it", path));
  std::stringstream text;
  text << f.rdbuf();
  std::string t = text.str();
  const size_t b = t.find_first_not_of(" \t\r\n");
  const size_t e = t.find_last_not_of(" \t\r\n");
  if (b == std::string::npos)
    return Status::InvalidArgument(fmt::format("--token-file {}: empty", path));
  t = t.substr(b, e - b + 1);
  for (char c : t)
    if (c < 0x21 || c > 0x7e)
      return Status::InvalidArgument(
          fmt::format("--token-file {}: a token is one line of printable characters", path));
  return t;
}

void Serve(const ServeArgs& a) {
  if (!(a.speed > 0)) Die(fmt::format("--speed {}: must be > 0", a.speed));
  if (!(a.kube_watch_window > 0))
    Die(fmt::format("--kube-watch-window {}: must be > 0 seconds", a.kube_watch_window));
  Result<twin::Scenario> scenario = a.scenario.empty()
                                        ? Result<twin::Scenario>(twin::DefaultScenario())
                                        : twin::LoadScenario(a.scenario);
  if (!scenario.ok()) Die(scenario.status().message());
  cost::CostModel prices = cost::CostModel::Default();
  if (!a.cost_model.empty()) {
    Result<cost::CostModel> loaded = cost::LoadCostModel(a.cost_model);
    if (!loaded.ok()) Die(loaded.status().message());
    prices = std::move(loaded).value();
  }
  twin::TwinOptions options;
  options.days = a.days;
  options.seed = a.seed;
  if (!a.memory_limit.empty()) {
    Result<int64_t> limit = twin::ParseMemoryLimit(a.memory_limit);
    if (!limit.ok()) Die(limit.status().message());
    options.memory_limit_bytes = *limit;
  }
  {
    // Served live, every GPU also costs its snapshots and dcgm page: checked here, before the
    // twin (which checks the run alone) is built.
    twin::Scenario sized = *scenario;
    if (a.days > 0) sized.horizon_days = a.days;
    const int64_t limit =
        options.memory_limit_bytes == 0 ? twin::DefaultMemoryLimit() : options.memory_limit_bytes;
    if (Status s = twin::CheckMemory(sized, twin::EstimateMemory(sized, /*served=*/true), limit);
        !s.ok())
      Die(s.message());
  }
  options.policy_files = a.policy;
  auto setup = CreateTwin(std::move(scenario).value(), options, a.remediation_db);
  if (!setup.ok()) Die(setup.status().message());
  const std::string name = setup->twin->scenario().name;

  server::LiveTwinOptions live_options;
  live_options.remediation = setup->remediation;
  if (!setup->rollouts.empty()) {
    live_options.rollouts = rollout::StatusFeed({setup->rollouts.begin(), setup->rollouts.end()});
    live_options.answer_rollout = rollout::PauseAnswerer(setup->rollouts);
  }
  live_options.speed = a.speed;
  live_options.dcgm_interval_seconds = a.dcgm_interval;
  live_options.currency = prices.currency();
  live_options.price_per_gpu_hour = [prices](const std::string& model) {
    return prices.UsdPerGpuHour(model);
  };
  // SIGINT and SIGTERM are taken by sigwait below, never delivered to a thread: blocked here,
  // before any thread starts, so every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // Beyond loopback a token is required: the one in --token-file, else a generated one
  // (printed, and written into --kubeconfig-out).
  std::string token;
  if (!a.token_file.empty()) {
    Result<std::string> t = ReadTokenFile(a.token_file);
    if (!t.ok()) Die(t.status().message());
    token = std::move(t).value();
  }
  const bool exposed = !http::IsLoopbackHost(a.listen);
  const bool generated = token.empty() && exposed;
  if (generated) token = http::GenerateToken();

  const double horizon_days = (setup->twin->horizon() - kSimStart).ToHours() / 24;
  double warmup_days = a.warmup_days;
  if (warmup_days < 0) {
    warmup_days = std::min(kDefaultWarmupDays, horizon_days / 2);
  } else if (warmup_days > 0 && warmup_days >= horizon_days) {
    Die(
        fmt::format("--warmup {}: must be shorter than the horizon ({} days), so that part of the "
                    "run is live",
                    warmup_days, horizon_days));
  }

  server::LiveTwin live(std::move(setup->twin), live_options);
  // Warm up before listening: the first page already shows a cluster that has been running.
  if (warmup_days > 0) {
    const auto wall = std::chrono::steady_clock::now();
    const SimDuration ran = live.Warmup(SecondsF(warmup_days * 86400));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    std::printf("steward: warmed up %.3g simulated days in %.1f s\n", ran.ToHours() / 24, seconds);
  }
  http::AccessOptions access;
  access.token = token;
  access.read_only = a.read_only;
  // Reads stay open (the dashboard and /metrics for scrapers); controls need the token
  // whenever one is set, and always beyond loopback.
  access.require = token.empty() ? http::AccessOptions::Require::kNothing
                                 : http::AccessOptions::Require::kWrites;
  server::HttpServer http(&live, access);
  std::unique_ptr<kubefront::KubeFront> kube;
  if (a.kube_port >= 0) {
    kubefront::KubeFrontOptions k;
    k.listen = a.listen;
    k.port = a.kube_port;
    k.token = token;
    k.tls_cert_file = a.tls_cert;
    k.tls_key_file = a.tls_key;
    k.remediation = setup->remediation;
    k.request_log = a.kube_request_log;
    k.store.history_window =
        std::chrono::milliseconds(static_cast<int64_t>(a.kube_watch_window * 1000));
    k.epoch_micros = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count() *
                     1000000;
    kube = std::make_unique<kubefront::KubeFront>(&live, k);
    Result<int> kport = kube->Start();
    if (!kport.ok()) Die(kport.status().message());
    if (!a.kubeconfig_out.empty())
      if (Status s = kube->WriteKubeconfig(a.kubeconfig_out); !s.ok()) Die(s.message());
  } else if (!a.kubeconfig_out.empty() || !a.tls_cert.empty() || !a.tls_key.empty() ||
             !a.kube_request_log.empty()) {
    Die("--kubeconfig-out, --kube-request-log, --tls-cert and --tls-key need --kube-port");
  }
  Result<int> port = http.Start(a.listen, a.port);
  if (!port.ok()) Die(port.status().message());
  live.Start();
  std::printf(
      "steward: serving scenario %s at http://%s:%d/ (API under /api/, e.g. /api/overview; "
      "speed %g simulated s per s)\n",
      name.c_str(), a.listen.c_str(), *port, a.speed);
  if (kube)
    std::printf(
        "steward: Kubernetes API at %s://%s:%d/ (kubeconfig: %s)\n",
        a.tls_cert.empty() ? "http" : "https", a.listen.c_str(), kube->port(),
        a.kubeconfig_out.empty() ? "not written; --kubeconfig-out FILE" : a.kubeconfig_out.c_str());
  if (generated)
    std::printf("steward: listening beyond loopback; bearer token for writes: %s\n", token.c_str());
  std::fflush(stdout);
  int sig = 0;
  sigwait(&signals, &sig);
  std::printf("steward: %s received, shutting down\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  std::fflush(stdout);
  if (kube) kube->Stop();
  http.Stop();
  live.Stop();
}

}  // namespace

void RegisterServeCommands(CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  auto* serve = app.add_subcommand(
      "serve", "Run the twin live and serve its dashboard, JSON API (/api/) and /metrics");
  serve->add_option("scenario", a->scenario,
                    "Scenario YAML (default: the built-in 10,240-GPU one)");
  serve->add_option("--port", a->port, "TCP port (0 = any free port)")
      ->capture_default_str()
      ->check(Between(0, 65535));
  serve
      ->add_option("--speed", a->speed,
                   "Simulated seconds per real second (60 = one simulated hour per minute)")
      ->capture_default_str();
  serve->add_option("--listen", a->listen, "Address to listen on (loopback unless set)")
      ->capture_default_str();
  serve->add_option("--days", a->days, "Override the scenario's horizon (days)");
  serve
      ->add_option("--warmup", a->warmup_days,
                   "Simulated days to run at full speed before serving, so the dashboard starts "
                   "from a running cluster (default: 2, at most half the horizon; 0 = start "
                   "empty)")
      ->check(Between(0, 3650));
  serve->add_option("--memory-limit", a->memory_limit,
                    "Refuse a scenario whose estimated memory exceeds SIZE (16G, 800M, ...; "
                    "none = no limit; default: half of this machine's memory)");
  serve->add_option("--seed", a->seed, "Override the scenario's seed");
  serve->add_option("--policy", a->policy, "Kueue/Volcano policy YAML files (kueue admission)");
  serve->add_option("--cost-model", a->cost_model,
                    "GPU cost model YAML (default: built-in prices)");
  serve
      ->add_option("--dcgm-interval", a->dcgm_interval,
                   "Simulated seconds between refreshes of the twin's dcgm-exporter series at "
                   "/metrics/dcgm (0 = off)")
      ->capture_default_str();
  serve
      ->add_option("--kube-port", a->kube_port,
                   "Serve the twin as a Kubernetes API on this port (0 = any free port, "
                   "printed; docs/kube-api.md)")
      ->check(Between(0, 65535));
  serve->add_option("--kubeconfig-out", a->kubeconfig_out,
                    "Write a kubeconfig for the Kubernetes API here (KUBECONFIG=FILE kubectl ...)");
  serve->add_option("--kube-request-log", a->kube_request_log,
                    "Append one JSON line per Kubernetes API request (an audit.k8s.io/v1 Event: "
                    "verb, requestURI, objectRef, response code) to this file");
  serve->add_option("--token-file", a->token_file,
                    "Bearer token clients must present (required beyond loopback; generated "
                    "when absent)");
  serve
      ->add_option("--kube-watch-window", a->kube_watch_window,
                   "Seconds of real time the Kubernetes API keeps watch history and list "
                   "continue tokens; older resourceVersions get 410 Expired (etcd keeps 5 "
                   "minutes; tests shorten it)")
      ->capture_default_str();
  serve->add_option("--tls-cert", a->tls_cert,
                    "PEM certificate: serve the Kubernetes API over "
                    "HTTPS (with --tls-key)");
  serve->add_option("--tls-key", a->tls_key, "PEM private key of --tls-cert");
  serve->add_flag("--read-only", a->read_only,
                  "Refuse every write (controls of the dashboard API) with 403");
  serve->add_option("--remediation-db", a->remediation_db,
                    "SQLite file for the remediation loop's state (default: in memory)");
  serve->callback([a] { Serve(*a); });
}

}  // namespace steward::cli

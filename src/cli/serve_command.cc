// `steward serve [SCENARIO]`: the twin, live, with the JSON API, /metrics and the dashboard.
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/twin_setup.h"
#include "cost/cost_model.h"
#include "server/http_server.h"
#include "server/live_twin.h"
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
};

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "steward: " << message << "\n";
  Fail();
}

void Serve(const ServeArgs& a) {
  if (!(a.speed > 0)) Die(fmt::format("--speed {}: must be > 0", a.speed));
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
  options.policy_files = a.policy;
  auto setup = CreateTwin(std::move(scenario).value(), options, a.remediation_db);
  if (!setup.ok()) Die(setup.status().message());
  const std::string name = setup->twin->scenario().name;

  server::LiveTwinOptions live_options;
  live_options.remediation = setup->remediation;
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

  server::LiveTwin live(std::move(setup->twin), live_options);
  server::HttpServer http(&live);
  Result<int> port = http.Start(a.listen, a.port);
  if (!port.ok()) Die(port.status().message());
  live.Start();
  std::printf(
      "steward: serving scenario %s at http://%s:%d/ (API under /api/, e.g. /api/overview; "
      "speed %g simulated s per s)\n",
      name.c_str(), a.listen.c_str(), *port, a.speed);
  std::fflush(stdout);
  int sig = 0;
  sigwait(&signals, &sig);
  std::printf("steward: %s received, shutting down\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  std::fflush(stdout);
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
      ->check(CLI::Range(0, 65535));
  serve
      ->add_option("--speed", a->speed,
                   "Simulated seconds per real second (60 = one simulated hour per minute)")
      ->capture_default_str();
  serve->add_option("--listen", a->listen, "Address to listen on (loopback unless set)")
      ->capture_default_str();
  serve->add_option("--days", a->days, "Override the scenario's horizon (days)");
  serve->add_option("--seed", a->seed, "Override the scenario's seed");
  serve->add_option("--policy", a->policy, "Kueue/Volcano policy YAML files (kueue admission)");
  serve->add_option("--cost-model", a->cost_model,
                    "GPU cost model YAML (default: built-in prices)");
  serve
      ->add_option("--dcgm-interval", a->dcgm_interval,
                   "Simulated seconds between refreshes of the twin's dcgm-exporter series at "
                   "/metrics/dcgm (0 = off)")
      ->capture_default_str();
  serve->add_option("--remediation-db", a->remediation_db,
                    "SQLite file for the remediation loop's state (default: in memory)");
  serve->callback([a] { Serve(*a); });
}

}  // namespace steward::cli

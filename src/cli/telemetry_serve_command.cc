// `steward metrics serve`: the twin as a dcgm-exporter on loopback, and `steward metrics query`:
// PromQL through Prometheus' HTTP API. Both hang under the `metrics` command that
// metrics_command.cc registers (RegisterMetricsServeCommands must run after it).
#include <fmt/format.h>
#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/prometheus_flags.h"
#include "cli/twin_setup.h"
#include "telemetry/prometheus_client.h"
#include "telemetry/twin_exporter.h"
#include "twin/scenario.h"
#include "twin/twin.h"

namespace steward::cli {
namespace {

struct TelemetryServeArgs {
  std::string scenario;
  std::string host = "127.0.0.1";
  int port = 9400;
  double speed = 60;
  double days = 0;
  double at_hours = -1;
  int64_t seed = -1;
  std::string truth_file;
  std::string port_file;
  bool no_pod_labels = false;
  std::vector<std::string> policy;
};

nlohmann::json TruthJson(const telemetry::TwinTruth& t) {
  auto group = [](const telemetry::TwinTruth::Group& g) {
    return nlohmann::json{{"gpus", g.gpus},
                          {"gpu_util_sum", g.gpu_util_sum},
                          {"sm_active_sum", g.sm_active_sum},
                          {"fb_used_sum", g.fb_used_sum},
                          {"power_sum", g.power_sum}};
  };
  nlohmann::json j;
  j["sim_hours"] = t.sim_hours;
  j["gpus"] = t.gpus;
  j["allocated_gpus"] = t.allocated_gpus;
  j["driven_gpus"] = t.driven_gpus;
  j["idle_held_gpus"] = t.idle_held_gpus;
  const double n = std::max(1, t.gpus);
  j["mean_gpu_util"] = t.all.gpu_util_sum / n;
  j["mean_sm_active"] = t.all.sm_active_sum / n;
  j["meter_sm_rate"] = t.meter_sm_rate;
  j["meter_busy_rate"] = t.meter_busy_rate;
  j["all"] = group(t.all);
  nlohmann::json ns = nlohmann::json::object();
  for (const auto& [name, g] : t.by_namespace) ns[name] = group(g);
  j["by_namespace"] = ns;
  return j;
}

void WriteFileOrFail(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) {
      std::cerr << "steward: cannot write " << path << "\n";
      Fail();
    }
  }
  // Rename so a reader polling for the file never sees it half-written.
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::cerr << "steward: cannot write " << path << "\n";
    Fail();
  }
}

// The live (or frozen) twin behind the HTTP handlers. httplib serves from a thread pool; the
// twin is single-threaded, so every access holds mu.
class TwinEndpoint {
 public:
  TwinEndpoint(std::unique_ptr<twin::Twin> t, telemetry::TwinExporterOptions options, double speed,
               bool frozen)
      : twin_(std::move(t)),
        exporter_(twin_->cluster(), std::move(options)),
        speed_(speed),
        frozen_(frozen),
        wall_start_(std::chrono::steady_clock::now()),
        sim_start_(twin_->now()) {
    Refresh();
  }

  // Advances the twin to the simulated time matching the wall clock (live mode), then renders.
  void Advance() {
    if (frozen_) return;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
    SimTime target = sim_start_ + SecondsF(wall * speed_);
    target = std::min(target, twin_->horizon());
    if (target <= twin_->now() && !page_.empty()) return;
    twin_->RunUntil(target);
    Refresh();
  }

  std::string Metrics() {
    std::lock_guard<std::mutex> lock(mu_);
    Advance();
    return page_;
  }
  std::string Truth() {
    std::lock_guard<std::mutex> lock(mu_);
    Advance();
    return TruthJson(exporter_.truth()).dump(2) + "\n";
  }
  std::string TruthNow() {
    std::lock_guard<std::mutex> lock(mu_);
    return TruthJson(exporter_.truth()).dump(2) + "\n";
  }
  size_t gpus() const { return exporter_.records().size(); }

 private:
  void Refresh() {
    exporter_.Update(*twin_);
    page_ = exporter_.Render();
  }
  std::mutex mu_;
  std::unique_ptr<twin::Twin> twin_;
  telemetry::TwinExporter exporter_;
  double speed_;
  bool frozen_;
  std::chrono::steady_clock::time_point wall_start_;
  SimTime sim_start_;
  std::string page_;
};

void RunServe(const TelemetryServeArgs& a) {
  Result<twin::Scenario> scenario = a.scenario.empty()
                                        ? Result<twin::Scenario>(twin::DefaultScenario())
                                        : twin::LoadScenario(a.scenario);
  if (!scenario.ok()) {
    std::cerr << "steward: " << scenario.status().message() << "\n";
    Fail();
  }
  twin::TwinOptions options;
  options.days = a.days;
  options.seed = a.seed;
  options.policy_files = a.policy;
  auto created = CreateTwin(std::move(scenario).value(), options);
  if (!created.ok()) {
    std::cerr << "steward: " << created.status().message() << "\n";
    Fail();
  }
  std::unique_ptr<twin::Twin> t = std::move(created->twin);
  const bool frozen = a.at_hours >= 0;
  if (frozen) {
    const double horizon_h = t->horizon().ToHours();
    if (a.at_hours > horizon_h) {
      std::cerr << fmt::format("steward: --at {} is past the horizon ({} h); use --days\n",
                               a.at_hours, horizon_h);
      Fail();
    }
    t->RunUntil(kSimStart + SecondsF(a.at_hours * 3600));
  }
  telemetry::TwinExporterOptions eo;
  eo.pod_labels = !a.no_pod_labels;
  TwinEndpoint endpoint(std::move(t), std::move(eo), a.speed, frozen);

  httplib::Server server;
  server.Get("/metrics", [&](const httplib::Request& req, httplib::Response& res) {
    // Serve identity-encoded. httplib compresses text/* whenever the client accepts it, and
    // prefers brotli at quality 11, which takes ~100 s on the 33 MB page of 10,240 GPUs (gzip
    // ~0.4 s, still more than the copy on loopback). The request object is httplib's own
    // non-const local, so dropping the header here is well-defined.
    const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");
    res.set_content(endpoint.Metrics(), "text/plain; version=0.0.4; charset=utf-8");
  });
  server.Get("/truth", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(endpoint.Truth(), "application/json");
  });
  server.Get("/", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(fmt::format("steward twin dcgm-exporter: {} GPUs, {}\n"
                                "GET /metrics (dcgm-exporter text), GET /truth (ground truth)\n",
                                endpoint.gpus(), frozen ? "frozen snapshot" : "live"),
                    "text/plain");
  });

  // Block SIGINT/SIGTERM before any thread starts, so the server's threads inherit the mask and
  // this thread alone takes them (sigwait) and stops the server cleanly.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);

  int port = a.port;
  if (port == 0) {
    port = server.bind_to_any_port(a.host);
    if (port <= 0) {
      std::cerr << "steward: cannot bind " << a.host << "\n";
      Fail();
    }
  } else if (!server.bind_to_port(a.host, port)) {
    std::cerr << fmt::format("steward: cannot bind {}:{} (in use?)\n", a.host, port);
    Fail();
  }
  if (!a.truth_file.empty()) WriteFileOrFail(a.truth_file, endpoint.TruthNow());
  if (!a.port_file.empty()) WriteFileOrFail(a.port_file, fmt::format("{}\n", port));
  std::cerr << fmt::format("steward: serving {} GPUs ({}) on http://{}:{}/metrics\n",
                           endpoint.gpus(),
                           frozen ? fmt::format("frozen at {} h", a.at_hours)
                                  : fmt::format("live, {}x real time", a.speed),
                           a.host, port);
  const pthread_t main_thread = pthread_self();
  bool listen_failed = false;
  std::thread listener([&] {
    if (!server.listen_after_bind()) {
      listen_failed = true;
      pthread_kill(main_thread, SIGTERM);
    }
  });
  int sig = 0;
  sigwait(&sigs, &sig);
  server.stop();
  listener.join();
  if (listen_failed) {
    std::cerr << "steward: server stopped unexpectedly\n";
    Fail();
  }
}

struct QueryArgs {
  std::string url = "http://127.0.0.1:9090";
  std::string promql;
  double time = NAN;
  double start = NAN, end = NAN, step = NAN;
  double timeout = 10;
  std::string prometheus_config;
  bool json = false;
};

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);  // Shortest round-trip form.
}

nlohmann::json ValueJson(double v) {
  if (std::isfinite(v)) return v;
  return FormatValue(v);  // JSON has no NaN/Inf: spell them as Prometheus does.
}

std::string LabelsText(const telemetry::PromLabels& m) {
  std::string s = "{";
  bool first = true;
  for (const auto& [k, v] : m) {
    if (!first) s += ",";
    first = false;
    s += fmt::format("{}=\"{}\"", k, v);
  }
  return s + "}";
}

void RunQuery(const QueryArgs& a) {
  Result<telemetry::PrometheusClientOptions> po =
      LoadPrometheusClientOptions(a.prometheus_config, a.timeout);
  if (!po.ok()) {
    std::cerr << "steward: " << po.status().message() << "\n";
    Fail();
  }
  auto client = telemetry::PrometheusClient::Create(a.url, *po);
  if (!client.ok()) {
    std::cerr << "steward: " << client.status().message() << "\n";
    Fail();
  }
  const bool range = !std::isnan(a.start) || !std::isnan(a.end) || !std::isnan(a.step);
  if (range && (std::isnan(a.start) || std::isnan(a.end) || std::isnan(a.step))) {
    std::cerr << "steward: a range query needs --start, --end and --step\n";
    Fail();
  }
  Result<telemetry::PromQueryResult> r =
      range ? client->QueryRange(a.promql, a.start, a.end, a.step)
            : client->Query(a.promql,
                            std::isnan(a.time) ? std::nullopt : std::optional<double>(a.time));
  if (!r.ok()) {
    std::cerr << "steward: " << r.status().message() << "\n";
    Fail();
  }
  for (const std::string& w : r->warnings)
    std::cerr << "steward: prometheus warning: " << w << "\n";
  if (a.json) {
    nlohmann::json j;
    j["resultType"] = telemetry::PromResultTypeName(r->type);
    nlohmann::json res = nlohmann::json::array();
    switch (r->type) {
      case telemetry::PromResultType::kVector:
        for (const auto& s : r->vector)
          res.push_back(
              {{"metric", s.metric}, {"value", {s.point.time, ValueJson(s.point.value)}}});
        break;
      case telemetry::PromResultType::kMatrix:
        for (const auto& s : r->matrix) {
          nlohmann::json pts = nlohmann::json::array();
          for (const auto& p : s.points) pts.push_back({p.time, ValueJson(p.value)});
          res.push_back({{"metric", s.metric}, {"values", pts}});
        }
        break;
      case telemetry::PromResultType::kScalar:
        res = {r->scalar.time, ValueJson(r->scalar.value)};
        break;
      case telemetry::PromResultType::kString:
        res = {r->scalar.time, r->string_value};
        break;
    }
    j["result"] = res;
    j["warnings"] = r->warnings;
    std::cout << j.dump(2) << "\n";
    return;
  }
  switch (r->type) {
    case telemetry::PromResultType::kVector:
      for (const auto& s : r->vector)
        std::cout << LabelsText(s.metric) << " " << FormatValue(s.point.value) << "\n";
      break;
    case telemetry::PromResultType::kMatrix:
      for (const auto& s : r->matrix) {
        std::cout << LabelsText(s.metric) << "\n";
        for (const auto& p : s.points)
          std::cout << fmt::format("  {:.3f} {}\n", p.time, FormatValue(p.value));
      }
      break;
    case telemetry::PromResultType::kScalar:
      std::cout << FormatValue(r->scalar.value) << "\n";
      break;
    case telemetry::PromResultType::kString:
      std::cout << r->string_value << "\n";
      break;
  }
}

}  // namespace

void RegisterMetricsServeCommands(CLI::App& app) {
  CLI::App* metrics = app.get_subcommand("metrics");  // Registered by RegisterMetricsCommands.

  auto s = std::make_shared<TelemetryServeArgs>();
  auto* serve = metrics->add_subcommand(
      "serve",
      "Run the twin and serve /metrics in dcgm-exporter format (every simulated GPU) on loopback");
  serve->add_option("scenario", s->scenario, "Scenario YAML file (omit for the built-in default)");
  serve->add_option("--port", s->port, "TCP port (0 = any free port; see --port-file)")
      ->check(Between(0, 65535));
  serve->add_option("--host", s->host, "Address to listen on (default 127.0.0.1)");
  serve
      ->add_option("--speed", s->speed,
                   "Simulated seconds per real second in live mode (default 60)")
      ->check(Positive());
  serve->add_option("--days", s->days, "Simulated days (overrides the scenario's horizon)")
      ->check(Positive());
  serve
      ->add_option("--at", s->at_hours,
                   "Advance to HOURS of simulated time and serve that frozen snapshot")
      ->check(NonNegative());
  serve->add_option("--seed", s->seed, "Random seed (overrides the scenario's)");
  serve->add_option("--policy", s->policy, "Kueue/Volcano YAML file(s) governing admission")
      ->expected(1, -1);
  serve->add_option("--truth", s->truth_file,
                    "Write the snapshot's ground truth (JSON) to FILE before serving");
  serve->add_option("--port-file", s->port_file, "Write the port being served to FILE");
  serve->add_flag("--no-pod-labels", s->no_pod_labels,
                  "Omit pod/namespace/container labels (pod mapping off)");
  serve->callback([s] { RunServe(*s); });

  auto q = std::make_shared<QueryArgs>();
  auto* query = metrics->add_subcommand(
      "query", "Run a PromQL query through Prometheus' HTTP API (/api/v1/query or query_range)");
  query->add_option("promql", q->promql, "PromQL expression")->required();
  query->add_option("--prometheus", q->url,
                    "Prometheus base URL, http[s]:// (default http://127.0.0.1:9090)");
  AddPrometheusConfigFlag(query, &q->prometheus_config);
  query->add_option("--time", q->time, "Evaluation time, Unix seconds (default: now)");
  query->add_option("--start", q->start, "Range query start, Unix seconds");
  query->add_option("--end", q->end, "Range query end, Unix seconds");
  query->add_option("--step", q->step, "Range query step, seconds")->check(Positive());
  query->add_option("--timeout", q->timeout, "HTTP timeout, seconds (default 10)")
      ->check(Positive());
  query->add_flag("--json", q->json, "Print {resultType, result, warnings} as JSON");
  query->callback([q] { RunQuery(*q); });
}

}  // namespace steward::cli

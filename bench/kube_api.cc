// The twin's Kubernetes API front at scale (docs/kube-api.md "Speed"), over loopback HTTP as
// kubectl and informers meet it, at 10,240 GPUs (the built-in scenario) and 102,400 (the same
// scenario with ten times the nodes, quotas and arrivals), each advanced WARM_HOURS first:
//   - list latency, median of REPS: nodes and pods of all namespaces, as JSON (client-go,
//     `-o json`) and as Table (kubectl's human output), and pods in kubectl's 500-item pages;
//   - watch of all pods, live: the twin stepped as fast as it goes (60 simulated s per step, as
//     `serve --speed 600` steps) with a watcher attached; simulated speed reached, pod events
//     produced per second and the share the watcher had received when the stepping ended;
//   - watch replay: the same events streamed again from the version before them (JSON and
//     Table), i.e. how fast the server writes a backlog.
// Prints the figures and the 102,400 / 10,240 ratios of this one run; asserts nothing about
// time.
//   build/kube_api [WARM_HOURS] [REPS] [LIVE_HOURS]    (defaults 12, 5, 2)
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "cli/twin_setup.h"
#include "kubefront/kube_front.h"
#include "server/live_twin.h"
#include "twin/scenario.h"

using namespace steward;

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

constexpr char kTableAccept[] =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "kube_api: %s\n", message.c_str());
  std::exit(1);
}

// The built-in scenario with `factor` times the nodes, team quotas and arrivals.
twin::Scenario Scaled(int factor) {
  twin::Scenario s = twin::DefaultScenario();
  for (twin::PoolSpec& p : s.pools) p.nodes *= factor;
  for (twin::TeamSpec& t : s.teams) t.quota_gpus *= factor;
  for (twin::GeneratorSpec& g : s.generators) {
    if (g.arrival.process == twin::ArrivalSpec::Process::kOnce)
      g.arrival.count *= factor;
    else
      g.arrival.rate_per_hour *= factor;
  }
  s.name += "-x" + std::to_string(factor);
  return s;
}

struct ListFigure {
  double seconds = 0;  // Median.
  size_t bytes = 0, items = 0;
};

// GET `path` (following `continue` when `paged`) REPS times; the median wall time of the
// requests (the client's parsing of the answers, needed for the continue tokens, not counted).
ListFigure TimeList(httplib::Client& cli, const std::string& path, bool table, bool paged,
                    int reps) {
  httplib::Headers headers = {{"Accept", table ? kTableAccept : "application/json"}};
  std::vector<double> times;
  ListFigure f;
  for (int i = 0; i < reps; ++i) {
    f.bytes = f.items = 0;
    double seconds = 0;
    std::string cont;
    do {
      std::string target = path;
      if (paged) target += "?limit=500" + (cont.empty() ? "" : "&continue=" + cont);
      const Clock::time_point start = Clock::now();
      httplib::Result r = cli.Get(target, headers);
      seconds += Since(start);
      if (!r || r->status != 200) Die("GET " + target + " failed");
      f.bytes += r->body.size();
      const nlohmann::json body = nlohmann::json::parse(r->body);
      f.items += body.contains("rows") ? body["rows"].size() : body["items"].size();
      cont = body["metadata"].value("continue", "");
    } while (paged && !cont.empty());
    times.push_back(seconds);
  }
  std::sort(times.begin(), times.end());
  f.seconds = times[times.size() / 2];
  return f;
}

// Streams a watch and counts its event lines; stops after `want` lines (or when told to).
class Watcher {
 public:
  Watcher(int port, std::string target, bool table) : cli_("127.0.0.1", port) {
    cli_.set_read_timeout(600, 0);
    thread_ = std::thread([this, target, table] {
      httplib::Headers headers = {{"Accept", table ? kTableAccept : "application/json"}};
      cli_.Get(target, headers, [this](const char* data, size_t n) {
        lines_.fetch_add(std::count(data, data + n, '\n'));
        last_micros_.store(
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start_).count());
        return !stop_.load();
      });
    });
  }
  ~Watcher() { Finish(); }
  // Waits until `want` lines arrived or `timeout_s` passed.
  void WaitFor(int64_t want, double timeout_s) {
    const Clock::time_point deadline =
        Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
    while (lines_.load() < want && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // Ends the stream (the client closes its socket; the server's write then fails).
  void Finish() {
    stop_ = true;
    cli_.stop();
    if (thread_.joinable()) thread_.join();
  }
  int64_t lines() const { return lines_.load(); }
  // Seconds from the watcher's start to its last line.
  double last_line_s() const { return last_micros_.load() / 1e6; }

 private:
  const Clock::time_point start_ = Clock::now();
  httplib::Client cli_;
  std::atomic<int64_t> lines_{0}, last_micros_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Pod events in the store's history after `from`.
int64_t PodEventsAfter(kubefront::KubeFront& front, int64_t from) {
  const int pods = front.api().StoreId(front.api().FindResource("", "pods"));
  std::vector<kube::StoreEvent> events;
  front.store().WaitForEvents(from, SIZE_MAX, Clock::now(), &events);
  return std::count_if(events.begin(), events.end(),
                       [&](const kube::StoreEvent& e) { return e.resource == pods; });
}

struct Figures {
  int gpus = 0;
  size_t nodes = 0, pods = 0;
  double warm_hours = 0, warm_s = 0;
  ListFigure nodes_json, nodes_table, pods_json, pods_table, pods_paged;
  double live_sim_speed = 0, live_produced_per_s = 0, live_received_share = 0, live_catch_up_s = 0;
  int64_t live_events = 0;
  double replay_json_per_s = 0, replay_table_per_s = 0;
};

Figures Measure(int factor, double warm_hours, int reps, double live_hours) {
  Figures f;
  twin::Scenario scenario = Scaled(factor);
  for (const twin::PoolSpec& p : scenario.pools) f.gpus += p.nodes * p.gpus_per_node;
  auto setup = cli::CreateTwin(std::move(scenario), {}, ":memory:");
  if (!setup.ok()) Die(setup.status().message());
  server::LiveTwinOptions live_options;
  live_options.speed = 600;
  live_options.dcgm_interval_seconds = 0;
  live_options.remediation = setup->remediation;
  server::LiveTwin live(std::move(setup->twin), live_options);
  kubefront::KubeFrontOptions options;
  options.remediation = setup->remediation;
  options.epoch_micros = 1'780'000'000'000'000;
  // The live phase's events are replayed afterwards: keep them (the default window is 5 real
  // minutes and 200,000 events).
  options.store.history_window = std::chrono::hours(1);
  options.store.max_history_events = 4'000'000;
  kubefront::KubeFront front(&live, options);
  Result<int> port = front.Start();
  if (!port.ok()) Die(port.status().message());

  constexpr SimDuration kStep = Seconds(60);  // --speed 600 x the LiveTwin's 100 ms step.
  Clock::time_point start = Clock::now();
  for (double h = 0; h < warm_hours; h += kStep.ToHours()) live.Step(kStep);
  f.warm_s = Since(start);
  f.warm_hours = warm_hours;

  httplib::Client cli("127.0.0.1", *port);
  cli.set_read_timeout(120, 0);
  f.nodes_json = TimeList(cli, "/api/v1/nodes", false, false, reps);
  f.nodes_table = TimeList(cli, "/api/v1/nodes", true, false, reps);
  f.pods_json = TimeList(cli, "/api/v1/pods", false, false, reps);
  f.pods_table = TimeList(cli, "/api/v1/pods", true, false, reps);
  f.pods_paged = TimeList(cli, "/api/v1/pods", true, true, reps);
  f.nodes = f.nodes_json.items;
  f.pods = f.pods_json.items;

  // Live: a watcher of all pods while the twin runs flat out.
  const int64_t from = front.store().resource_version();
  const std::string watch =
      "/api/v1/pods?watch=1&timeoutSeconds=600&resourceVersion=" + std::to_string(from);
  {
    Watcher w(*port, watch, false);
    start = Clock::now();
    for (double h = 0; h < live_hours; h += kStep.ToHours()) live.Step(kStep);
    const double step_s = Since(start);
    const double received_at_end = static_cast<double>(w.lines());
    f.live_events = PodEventsAfter(front, from);
    w.WaitFor(f.live_events, 60);
    f.live_sim_speed = live_hours * 3600 / step_s;
    f.live_produced_per_s = f.live_events / step_s;
    f.live_received_share = f.live_events ? received_at_end / f.live_events : 1;
    f.live_catch_up_s = std::max(0.0, w.last_line_s() - step_s);
    if (w.lines() < f.live_events) Die("the live watcher lost events");
  }
  // Replay of the same events, JSON and Table.
  for (bool table : {false, true}) {
    Watcher w(*port, watch, table);
    w.WaitFor(f.live_events, 120);
    if (w.lines() < f.live_events) Die("the replay watcher lost events");
    (table ? f.replay_table_per_s : f.replay_json_per_s) = f.live_events / w.last_line_s();
  }
  front.Stop();
  return f;
}

void Print(const Figures& f) {
  std::printf("%d GPUs: %zu nodes, %zu pods (warm-up %.1f s)\n", f.gpus, f.nodes, f.pods, f.warm_s);
  auto list = [](const char* what, const ListFigure& l) {
    std::printf("  %-34s %9.1f ms  %8.1f MB  %7zu items\n", what, l.seconds * 1e3, l.bytes / 1e6,
                l.items);
  };
  list("GET nodes (JSON)", f.nodes_json);
  list("GET nodes (Table)", f.nodes_table);
  list("GET pods -A (JSON)", f.pods_json);
  list("GET pods -A (Table)", f.pods_table);
  list("GET pods -A (Table, 500-item pages)", f.pods_paged);
  std::printf(
      "  watch pods live: %lld events; twin at %.0f simulated s/s (--speed 600 asks 600), "
      "%.0f events/s produced, %.1f%% received when stepping ended, caught up %.3f s later\n",
      static_cast<long long>(f.live_events), f.live_sim_speed, f.live_produced_per_s,
      100 * f.live_received_share, f.live_catch_up_s);
  std::printf("  watch pods replay: %.0f events/s (JSON), %.0f events/s (Table)\n",
              f.replay_json_per_s, f.replay_table_per_s);
}

}  // namespace

int main(int argc, char** argv) {
  const double warm_hours = argc > 1 ? std::atof(argv[1]) : 12;
  const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  const double live_hours = argc > 3 ? std::atof(argv[3]) : 2;
  const Figures small = Measure(1, warm_hours, reps, live_hours);
  Print(small);
  const Figures large = Measure(10, warm_hours, reps, live_hours);
  Print(large);
  auto ratio = [](double a, double b) { return b > 0 ? a / b : 0; };
  std::printf("ratios %d / %d GPUs (pods x%.1f):\n", large.gpus, small.gpus,
              ratio(large.pods, small.pods));
  std::printf("  list nodes JSON x%.1f, Table x%.1f; pods JSON x%.1f, Table x%.1f, paged x%.1f\n",
              ratio(large.nodes_json.seconds, small.nodes_json.seconds),
              ratio(large.nodes_table.seconds, small.nodes_table.seconds),
              ratio(large.pods_json.seconds, small.pods_json.seconds),
              ratio(large.pods_table.seconds, small.pods_table.seconds),
              ratio(large.pods_paged.seconds, small.pods_paged.seconds));
  std::printf("  watch replay events/s JSON x%.2f, Table x%.2f; live simulated speed x%.2f\n",
              ratio(large.replay_json_per_s, small.replay_json_per_s),
              ratio(large.replay_table_per_s, small.replay_table_per_s),
              ratio(large.live_sim_speed, small.live_sim_speed));
  std::printf("  Table / JSON list time: pods %.2f (10k), %.2f (100k)\n",
              ratio(small.pods_table.seconds, small.pods_json.seconds),
              ratio(large.pods_table.seconds, large.pods_json.seconds));
  return 0;
}

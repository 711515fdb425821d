// Admission-engine throughput (issue 6, point 10). Prints figures; no assertions.
//   1. 10,000 pending workloads on a 10,240-GPU quota (16 ClusterQueues x 640 H100 in one
//      cohort): TryAdmit decisions per second on one core, with Admit/Release churn.
//   2. Kueue's scheduler performance scenarios (test/performance/scheduler, queue-semantics.md
//      §3) replayed at the engine level in simulated time: baseline 5 cohorts x 6 CQs = 30 CQs
//      with 15,000 workloads; large-scale 10 x 100 = 1,000 CQs with 50,000 workloads. Each CQ
//      has nominal 20 CPU, borrowingLimit 100, reclaimWithinCohort Any, withinClusterQueue
//      LowerPriority; small 1 CPU / 200 ms / prio 50, medium 5 CPU / 500 ms / prio 100, large
//      20 CPU / 1 s / prio 200.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <queue>
#include <random>
#include <string>

#include "govern/governance_engine.h"
#include "govern/policy_io.h"
#include "twin/scenario.h"
#include "twin/twin.h"

using namespace steward;
using namespace steward::govern;

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// CPU seconds of this process: on a shared machine wall time includes other processes' turns,
// CPU time is what one core spent on the decisions.
double CpuNow() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

std::string CqYaml(const std::string& name, const std::string& cohort, const std::string& res,
                   const std::string& nominal, const std::string& limits,
                   const std::string& preemption) {
  return fmt::format(R"(---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: {}}}
spec:
  cohort: {}
  namespaceSelector: {{}}
  preemption: {}
  resourceGroups:
  - coveredResources: [{}]
    flavors: [{{name: f, resources: [{{name: {}, nominalQuota: {}{}}}]}}]
)",
                     name, cohort, preemption, res, res, nominal, limits);
}

std::unique_ptr<GovernanceEngine> Build(const std::string& yaml) {
  Policy p;
  Status s = ImportYaml(
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: f}\n" + yaml,
      "bench", &p);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    std::exit(1);
  }
  auto e = GovernanceEngine::Create(p);
  if (!e.ok()) {
    std::fprintf(stderr, "%s\n", e.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(e).value();
}

void Throughput10k(bool mixed_priority, int rounds) {
  std::string yaml;
  for (int i = 0; i < 16; ++i)
    yaml += CqYaml(fmt::format("team-{}", i), "org", "nvidia.com/gpu", "640", "",
                   "{withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}");
  auto e = Build(yaml);
  std::mt19937 rng(1);
  const int kSizes[] = {1, 1, 2, 4, 8, 8, 16, 32};
  std::vector<WorkloadRequest> pending(10000);
  for (int i = 0; i < 10000; ++i) {
    WorkloadRequest& r = pending[i];
    r.id = i;
    r.cluster_queue = fmt::format("team-{}", rng() % 16);
    r.priority = mixed_priority ? static_cast<int32_t>(rng() % 3) : 1;
    r.queue_timestamp = SimTime::FromMicros(i);
    PodSetRequest ps;
    int g = kSizes[rng() % 8];
    ps.count = g >= 8 ? g / 8 : 1;
    ps.requests.push_back({"nvidia.com/gpu", g >= 8 ? 8 : g});
    r.pod_sets.push_back(ps);
  }
  std::vector<int64_t> running;
  int64_t decisions = 0, admitted = 0, preempt = 0;
  SimTime now = kSimStart;
  const double t0 = Now(), c0 = CpuNow();
  for (int round = 0; round < rounds; ++round) {
    for (int i = 0; i < 10000; ++i) {
      const WorkloadRequest& r = pending[i];
      if (e->FindAdmitted(r.id)) continue;
      Decision d = e->TryAdmit(r, now);
      ++decisions;
      if (d.mode == AdmissionMode::kFit) {
        (void)e->Admit(r, d, now);
        running.push_back(r.id);
        ++admitted;
      } else if (d.mode == AdmissionMode::kNeedsPreemption) {
        ++preempt;
      }
    }
    // Churn: a third of the running workloads finish.
    std::shuffle(running.begin(), running.end(), rng);
    size_t keep = running.size() * 2 / 3;
    for (size_t k = keep; k < running.size(); ++k) (void)e->Release(running[k]);
    running.resize(keep);
    now = now + Seconds(60);
  }
  const double dt = Now() - t0, cpu = CpuNow() - c0;
  std::printf(
      "10k pending / 10,240 GPUs (16 CQs x 640, %s): %lld decisions in %.2f s CPU (%.2f s wall) "
      "= %.0f decisions/s per core (admitted %lld, needs-preemption %lld; target >= 50,000/s)\n",
      mixed_priority ? "3 priorities, preemption searched" : "one priority",
      static_cast<long long>(decisions), cpu, dt, decisions / cpu, static_cast<long long>(admitted),
      static_cast<long long>(preempt));
}

// Kueue performance scenario at the engine level.
void KueuePerf(const char* name, int cohorts, int cqs_per_cohort, int small, int medium, int large,
               double kueue_wall_s) {
  std::string yaml;
  for (int c = 0; c < cohorts; ++c)
    for (int q = 0; q < cqs_per_cohort; ++q)
      yaml += CqYaml(fmt::format("cq-{}-{}", c, q), fmt::format("cohort-{}", c), "cpu", "20",
                     ", borrowingLimit: 100",
                     "{withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}");
  auto e = Build(yaml);
  const int ncq = cohorts * cqs_per_cohort;
  struct Class {
    int cpu;
    int runtime_ms;
    int prio;
    int every_ms;
    int count;
  };
  const Class classes[] = {
      {1, 200, 50, 100, small}, {5, 500, 100, 500, medium}, {20, 1000, 200, 1200, large}};
  std::vector<WorkloadRequest> wls;
  std::vector<int> runtime_ms;
  for (int q = 0; q < ncq; ++q)
    for (const auto& c : classes)
      for (int k = 0; k < c.count; ++k) {
        WorkloadRequest r;
        r.id = static_cast<int64_t>(wls.size());
        r.cluster_queue = fmt::format("cq-{}-{}", q / cqs_per_cohort, q % cqs_per_cohort);
        r.priority = c.prio;
        r.queue_timestamp = kSimStart + Micros(int64_t{k} * c.every_ms * 1000);
        PodSetRequest ps;
        ps.requests.push_back({"cpu", c.cpu * 1000});
        r.pod_sets.push_back(ps);
        wls.push_back(r);
        runtime_ms.push_back(c.runtime_ms);
      }
  // Per-CQ pending heap: priority desc, queue timestamp asc (Kueue's heap order).
  auto cmp = [&](int a, int b) {
    if (wls[a].priority != wls[b].priority) return wls[a].priority < wls[b].priority;
    if (wls[a].queue_timestamp != wls[b].queue_timestamp)
      return wls[a].queue_timestamp > wls[b].queue_timestamp;
    return a > b;
  };
  using Heap = std::priority_queue<int, std::vector<int>, decltype(cmp)>;
  std::vector<Heap> heaps(ncq, Heap(cmp));
  std::vector<int> order(wls.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return wls[a].queue_timestamp < wls[b].queue_timestamp; });
  using Ev = std::pair<int64_t, int>;  // (finish time, workload).
  std::priority_queue<Ev, std::vector<Ev>, std::greater<>> finishes;
  size_t next_arrival = 0;
  int64_t decisions = 0, preemptions = 0, finished = 0;
  std::vector<SimTime> admitted_at(wls.size(), SimTime::Never());
  double wait_sum[3] = {0, 0, 0};
  int wait_n[3] = {0, 0, 0};
  SimTime now = kSimStart;
  double t0 = Now();
  while (finished < static_cast<int64_t>(wls.size())) {
    // Next event: an arrival or a finish.
    int64_t t_arr =
        next_arrival < order.size() ? wls[order[next_arrival]].queue_timestamp.micros() : INT64_MAX;
    int64_t t_fin = finishes.empty() ? INT64_MAX : finishes.top().first;
    now = SimTime::FromMicros(std::min(t_arr, t_fin));
    while (next_arrival < order.size() && wls[order[next_arrival]].queue_timestamp <= now) {
      int w = order[next_arrival++];
      heaps[e->FindClusterQueue(wls[w].cluster_queue)].push(w);
    }
    while (!finishes.empty() && finishes.top().first <= now.micros()) {
      int w = finishes.top().second;
      finishes.pop();
      if (e->FindAdmitted(w) && admitted_at[w] + Micros(int64_t{runtime_ms[w]} * 1000) == now) {
        (void)e->Release(w);
        ++finished;
      }
    }
    // One cycle: the head of each CQ, until nothing more is admitted.
    bool progress = true;
    while (progress) {
      progress = false;
      for (int q = 0; q < ncq; ++q) {
        if (heaps[q].empty()) continue;
        int w = heaps[q].top();
        Decision d = e->TryAdmit(wls[w], now);
        ++decisions;
        if (d.mode == AdmissionMode::kNeedsPreemption) {
          for (const auto& v : d.victims) {
            (void)e->Release(v.workload_id);
            heaps[e->FindClusterQueue(wls[v.workload_id].cluster_queue)].push(
                static_cast<int>(v.workload_id));
            ++preemptions;
          }
          d = e->TryAdmit(wls[w], now);
          ++decisions;
        }
        if (d.mode != AdmissionMode::kFit) continue;
        (void)e->Admit(wls[w], d, now);
        heaps[q].pop();
        admitted_at[w] = now;
        int cls = wls[w].priority == 50 ? 0 : wls[w].priority == 100 ? 1 : 2;
        wait_sum[cls] += (now - wls[w].queue_timestamp).ToSeconds();
        ++wait_n[cls];
        finishes.emplace((now + Micros(int64_t{runtime_ms[w]} * 1000)).micros(), w);
        progress = true;
      }
    }
  }
  double dt = Now() - t0;
  std::printf(
      "%s: %d CQs, %zu workloads: %.2f s wall (Kueue envtest: ~%.0f s), %lld decisions = %.0f/s, "
      "%lld preemptions, simulated makespan %.1f s, mean time-to-admission small/medium/large "
      "%.1f/%.1f/%.1f s (simulated)\n",
      name, ncq, wls.size(), dt, kueue_wall_s, static_cast<long long>(decisions), decisions / dt,
      static_cast<long long>(preemptions), now.ToSeconds(), wait_sum[0] / std::max(1, wait_n[0]),
      wait_sum[1] / std::max(1, wait_n[1]), wait_sum[2] / std::max(1, wait_n[2]));
}

// One class of Kueue's scheduler performance generator (test/performance/scheduler/configs).
struct PerfClass {
  const char* name;
  int request;  // CPU (here: one GPU-like unit per CPU).
  int runtime_ms;
  int priority;
  int every_ms;  // creationIntervalMs
  int count;     // Per ClusterQueue.
};

// Kueue's performance scenario replayed in the twin: the same ClusterQueues (per CQ nominal 20,
// borrowingLimit 100, reclaimWithinCohort Any, withinClusterQueue LowerPriority) and the same
// workloads (one pod each, created every creationIntervalMs per CQ and class, finishing
// runtimeMs after they start), through the twin's kueue admitter, placement and event loop.
// Kueue's runner has no nodes; the twin needs some, so the cluster holds twice the cohorts'
// nominal quota (32 units per node) and placement never binds: quota does. Units are CPUs in
// Kueue; the twin counts them as nvidia.com/gpu. Reports Kueue's checker figures: wall time,
// mean time-to-admission per class and CQ usage = integral of used / (nominal x makespan).
void KueuePerfTwin(const char* name, int cohorts, int cqs_per_cohort,
                   const std::vector<PerfClass>& classes, double kueue_wall_s) {
  const int ncq = cohorts * cqs_per_cohort;
  const auto dir = std::filesystem::temp_directory_path() /
                   fmt::format("steward-kueue-perf-{}-{}", ncq, static_cast<long>(getpid()));
  std::filesystem::create_directories(dir);
  std::string policy =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: f}\n";
  for (const auto& c : classes)
    policy += fmt::format(
        "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata: "
        "{{name: {}, labels: {{steward.io/tier: dev}}}}\nvalue: {}\n",
        c.name, c.priority);
  std::string teams;
  for (int co = 0; co < cohorts; ++co)
    for (int q = 0; q < cqs_per_cohort; ++q) {
      const std::string cq = fmt::format("cq-{}-{}", co, q);
      policy +=
          CqYaml(cq, fmt::format("cohort-{}", co), "nvidia.com/gpu", "20", ", borrowingLimit: 100",
                 "{withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}");
      policy += fmt::format(
          "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {{name: {}, "
          "namespace: {}}}\nspec: {{clusterQueue: {}}}\n",
          cq, cq, cq);
      teams += fmt::format("  - {{name: {}, quota_gpus: 0}}\n", cq);
    }
  std::ofstream(dir / "policy.yaml") << policy.substr(policy.find("apiVersion"));
  // Trace: per CQ and class, `count` workloads every `every_ms`, in submit order.
  struct Row {
    int64_t submit_ms;
    std::string line;
  };
  std::vector<Row> rows;
  for (int co = 0; co < cohorts; ++co)
    for (int q = 0; q < cqs_per_cohort; ++q)
      for (const auto& c : classes)
        for (int k = 0; k < c.count; ++k) {
          const int64_t t = int64_t{k} * c.every_ms;
          // The twin's nodes hold at most 16 units: a 20-CPU workload is a gang of 2 x 10 (same
          // quota, placed whole; Kueue's runner has no nodes at all).
          const int pods = c.request > 16 ? 2 : 1;
          rows.push_back({t, fmt::format("{:.3f},{}-{}-{}-{},cq-{}-{},batch,{},{},{:.3f},{},dev\n",
                                         t / 1000.0, c.name, co, q, k, co, q, pods,
                                         c.request / pods, c.runtime_ms / 1000.0, c.name)});
        }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.submit_ms < b.submit_ms; });
  {
    std::ofstream trace(dir / "trace.csv");
    trace << "submit_seconds,name,team,kind,pods,gpus_per_pod,duration_seconds,priority_class,"
             "tier\n";
    for (const auto& r : rows) trace << r.line;
  }
  const int nodes = (2 * 20 * ncq + 15) / 16;  // 16 CPU "GPUs" per node (the twin's maximum).
  const std::string scenario = fmt::format(
      "name: {}\nseed: 1\nhorizon_days: 0.05\nsample_minutes: 60\n"
      "cluster:\n  gpu_models: [{{name: CPU}}]\n  pools:\n    - {{name: p, nodes: {}, "
      "gpus_per_node: 16, gpu_model: CPU, nodes_per_rack: 4, nodes_per_leaf: 32}}\n"
      "teams:\n{}traces:\n  - {{path: {}}}\n"
      "policies:\n  startup_seconds: 0\n  alert_tenant_share: 1\n  governance: [{}]\n"
      "faults: {{enabled: false}}\n",
      name, nodes, teams, (dir / "trace.csv").string(), (dir / "policy.yaml").string());
  auto parsed = twin::ParseScenario(scenario, name);
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s\n", parsed.status().ToString().c_str());
    std::exit(1);
  }
  const double t0 = Now(), c0 = CpuNow();
  twin::TwinOptions options;
  options.finished_runs_kept = -1;  // The checker reads every finished run.
  auto tw = twin::Twin::Create(std::move(parsed).value(), options);
  if (!tw.ok()) {
    std::fprintf(stderr, "%s\n", tw.status().ToString().c_str());
    std::exit(1);
  }
  (*tw)->RunUntil((*tw)->horizon());
  const double wall = Now() - t0, cpu = CpuNow() - c0;
  std::filesystem::remove_all(dir);
  // Kueue's checker: mean time from creation to admission per class; the makespan ends with the
  // last finish; CQ usage = sum of allocated unit-hours / (nominal x makespan), averaged over CQs.
  std::map<std::string, std::pair<double, int>> admission;  // Class -> (sum s, count).
  SimTime makespan = kSimStart;
  int done = 0;
  for (const auto& run : (*tw)->runs()) {
    if (run.state != twin::RunState::kDone) continue;
    ++done;
    auto& a = admission[run.spec.priority_class];
    a.first += (run.first_started - run.spec.submit_time).ToSeconds();
    ++a.second;
    makespan = std::max(makespan, run.started + run.remaining);
  }
  const twin::Report report = (*tw)->BuildReport();
  double usage = 0;
  for (const auto& [team, u] : report.teams)
    usage += u.allocated_gpu_hours / (20 * (makespan - kSimStart).ToHours());
  usage /= ncq;
  int64_t preemptions = 0;
  for (const auto& [tier, n] : report.preemptions) preemptions += n;
  std::printf(
      "%s in the twin: %d CQs, %zu workloads (%d done): %.2f s wall, %.2f s CPU (Kueue envtest "
      "~%.0f s), %lld events, %lld preemptions, simulated makespan %.1f s, mean "
      "time-to-admission",
      name, ncq, rows.size(), done, wall, cpu, kueue_wall_s,
      static_cast<long long>((*tw)->events_processed()), static_cast<long long>(preemptions),
      (makespan - kSimStart).ToSeconds());
  for (const auto& c : classes) {
    const auto& a = admission[c.name];
    std::printf(" %s %.1f s", c.name, a.second ? a.first / a.second : 0.0);
  }
  std::printf(", mean CQ usage %.1f%%\n", 100 * usage);
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // Line by line, even into a pipe.
  // `govern_admission 10k [ROUNDS]` runs only the throughput part (for callgrind).
  const bool only_10k = argc > 1 && std::string(argv[1]) == "10k";
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 12;
  Throughput10k(false, rounds);
  Throughput10k(true, rounds);
  if (only_10k) return 0;
  KueuePerf("kueue baseline", 5, 6, 350, 100, 50, 351);
  KueuePerf("kueue large-scale", 10, 100, 35, 11, 4, 1179);
  // The twin replays (queue-semantics.md §3). Baseline: configs/baseline/generator.yaml.
  // Large-scale: 10 cohorts x 100 CQs with 35/11/4 workloads per CQ and the baseline's
  // runtimes; its "faster arrival" intervals are those of Kueue's current large-scale
  // generator.yaml (20/50/200 ms), the 1,000-CQ version's own values not being recorded.
  KueuePerfTwin("kueue baseline", 5, 6,
                {{"small", 1, 200, 50, 100, 350},
                 {"medium", 5, 500, 100, 500, 100},
                 {"large", 20, 1000, 200, 1200, 50}},
                351);
  KueuePerfTwin("kueue large-scale", 10, 100,
                {{"small", 1, 200, 50, 20, 35},
                 {"medium", 5, 500, 100, 50, 11},
                 {"large", 20, 1000, 200, 200, 4}},
                1179);
  return 0;
}

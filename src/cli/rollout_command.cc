// `steward rollout validate|run|status`: gated rollouts of GPU-stack changes (docs/rollout.md).
// `run` drives the engine on the twin (a scenario), or through the live control interface
// against a cluster (--kubeconfig; a plan unless --apply, as `operate`).
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/commands.h"
#include "cli/prometheus_flags.h"
#include "cli/rollout_live.h"
#include "cli/twin_setup.h"
#include "rollout/plan.h"
#include "rollout/rollout_store.h"
#include "rollout/status.h"
#include "rollout/twin_rollout.h"

namespace steward::cli {
namespace {

struct RunFlags {
  std::string plan, scenario, state, kubeconfig, context;
  bool apply = false, json = false;
  int64_t seed = -1;
  double pace = 0;
  double interval = 0;  // Live: seconds between steps (0: the plan's tick).
  double sync_timeout = 60;
  int max_evictions_per_minute = 20;
  bool once = false;
  std::string prometheus, prometheus_config;
  bool resume = false, abort = false;
  // Test hook (tests/e2e/rollout_crash.sh): SIGKILL itself once the run has logged this many
  // decisions, i.e. right after the step that reached it committed; 0 = never.
  int64_t kill_after_decisions = 0;
  std::string why = "approved on the command line";
};

std::optional<rollout::RolloutEngine::Answer> AnswerOf(const RunFlags& f) {
  if (f.resume) return rollout::RolloutEngine::Answer::kResume;
  if (f.abort) return rollout::RolloutEngine::Answer::kAbort;
  return std::nullopt;
}

// The plan's Git commit: HEAD of the repository holding it, "none" outside Git. A plan edited
// since HEAD is marked "+dirty", so an audit row never claims a commit it does not match.
std::string PlanCommit(const std::string& plan_path) {
  const std::filesystem::path dir = std::filesystem::absolute(plan_path).parent_path();
  auto run = [](const std::string& cmd) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) return std::string();
    std::array<char, 256> buf{};
    while (fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
    if (pclose(p) != 0) return std::string();
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
  };
  auto quote = [](const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  const std::string head = run(fmt::format("git -C {} rev-parse HEAD 2>/dev/null", quote(dir)));
  if (head.empty()) return "none";
  const std::string dirty =
      run(fmt::format("git -C {} status --porcelain -- {} 2>/dev/null", quote(dir),
                      quote(std::filesystem::absolute(plan_path))));
  return dirty.empty() ? head : head + "+dirty";
}

void PrintStatus(const rollout::RolloutRun& run, const std::vector<rollout::Decision>& decisions,
                 size_t last_decisions) {
  rollout::StatusTextOptions o;
  o.last_decisions = last_decisions;
  fmt::print("{}", rollout::StatusText(run, decisions, o));
}

int RunOnTwin(const RunFlags& f, const rollout::RolloutPlan& plan, const std::string& commit,
              rollout::RolloutStore* store) {
  Result<twin::Scenario> scenario = twin::DefaultScenario();
  std::string scenario_path = f.scenario;
  if (scenario_path.empty() && !plan.scenario.empty())
    scenario_path = (std::filesystem::path(f.plan).parent_path() / plan.scenario).string();
  if (!scenario_path.empty()) scenario = twin::LoadScenario(scenario_path);
  if (!scenario.ok()) {
    fmt::print(stderr, "steward rollout run: {}\n", scenario.status().ToString());
    return kExitFailure;
  }
  twin::TwinOptions options;
  options.seed = f.seed;
  Result<TwinSetup> setup = CreateTwin(std::move(scenario).value(), options);
  if (!setup.ok()) {
    fmt::print(stderr, "steward rollout run: {}\n", setup.status().ToString());
    return kExitFailure;
  }
  twin::Twin& twin = *setup->twin;
  Result<twin::TwinController*> added =
      twin.AddController(std::make_unique<rollout::TwinRollout>(plan, commit, store));
  if (!added.ok()) {
    fmt::print(stderr, "steward rollout run: {}\n", added.status().ToString());
    return kExitFailure;
  }
  auto* r = static_cast<rollout::TwinRollout*>(*added);
  r->set_answer(AnswerOf(f), f.why);
  const SimTime horizon = twin.horizon();
  SimTime t = twin.now();
  while (r->status().ok() && r->engine()->Active() && t < horizon) {
    t = std::min(horizon, t + plan.tick);
    twin.RunUntil(t);
    if (f.kill_after_decisions > 0 && r->engine()->run().decisions >= f.kill_after_decisions)
      raise(SIGKILL);
    if (f.pace > 0)
      std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(f.pace * 1e6)));
  }
  if (!r->status().ok()) {
    fmt::print(stderr, "steward rollout run: {}\n", r->status().ToString());
    return kExitFailure;
  }
  const rollout::RolloutRun& run = r->engine()->run();
  if (run.state == rollout::RolloutState::kRunning)
    fmt::print(stderr, "steward rollout run: the scenario's horizon ({:.1f}h) came first\n",
               horizon.ToSeconds() / 3600);
  if (f.json) {
    fmt::print("{}\n", rollout::StatusJson(run, r->engine()->decisions()).dump(2));
  } else {
    PrintStatus(run, r->engine()->decisions(), 0);
  }
  return run.state == rollout::RolloutState::kFailed ? kExitFailure : 0;
}

int RunRollout(const RunFlags& f) {
  Result<rollout::RolloutPlan> plan = rollout::LoadPlan(f.plan);
  if (!plan.ok()) {
    fmt::print(stderr, "{}\n", plan.status().message());
    return kExitFailure;
  }
  const std::string commit = PlanCommit(f.plan);
  std::unique_ptr<rollout::RolloutStore> store;
  // A dry run against a cluster writes nothing, not even the state file.
  if (!f.state.empty() && (f.kubeconfig.empty() || f.apply)) {
    Result<std::unique_ptr<rollout::RolloutStore>> s = rollout::RolloutStore::Open(f.state);
    if (!s.ok()) {
      fmt::print(stderr, "steward rollout run: {}\n", s.status().ToString());
      return kExitFailure;
    }
    store = std::move(*s);
  }
  if (!f.kubeconfig.empty()) {
    LiveRolloutFlags lf;
    lf.kubeconfig = f.kubeconfig;
    lf.context = f.context;
    lf.apply = f.apply;
    lf.interval = f.interval;
    lf.sync_timeout = f.sync_timeout;
    lf.once = f.once;
    lf.answer = AnswerOf(f);
    lf.prometheus = f.prometheus;
    lf.max_evictions_per_minute = f.max_evictions_per_minute;
    lf.prometheus_config = f.prometheus_config;
    lf.why = f.why;
    return RunRolloutLive(lf, *plan, commit, store.get());
  }
  if (f.apply) {
    fmt::print(stderr, "steward rollout run: --apply needs --kubeconfig (the twin is simulated)\n");
    return kExitFailure;
  }
  if (store) {
    Result<std::optional<rollout::RolloutRun>> saved = store->Load();
    if (!saved.ok()) {
      fmt::print(stderr, "steward rollout run: {}\n", saved.status().ToString());
      return kExitFailure;
    }
    if (*saved && (*saved)->version != plan->version) {
      fmt::print(stderr,
                 "steward rollout run: {} holds the rollout to {}; the plan asks for {} (on the "
                 "twin a reverted plan is a new run: use another --state)\n",
                 f.state, (*saved)->version, plan->version);
      return kExitFailure;
    }
  }
  return RunOnTwin(f, *plan, commit, store.get());
}

int ShowStatus(const std::string& path, bool json) {
  Result<std::unique_ptr<rollout::RolloutStore>> store = rollout::RolloutStore::Open(path, false);
  if (!store.ok()) {
    fmt::print(stderr, "steward rollout status: {}\n", store.status().ToString());
    return kExitFailure;
  }
  Result<std::optional<rollout::RolloutRun>> run = (*store)->Load();
  Result<std::vector<rollout::Decision>> decisions = (*store)->Decisions();
  if (!run.ok() || !decisions.ok()) {
    fmt::print(stderr, "steward rollout status: {}\n",
               (!run.ok() ? run.status() : decisions.status()).ToString());
    return kExitFailure;
  }
  if (!*run) {
    fmt::print(stderr, "steward rollout status: {} holds no rollout\n", path);
    return kExitFailure;
  }
  if (json)
    fmt::print("{}\n", rollout::StatusJson(**run, *decisions).dump(2));
  else
    PrintStatus(**run, *decisions, 20);
  return 0;
}

}  // namespace

void RegisterRolloutCommands(CLI::App& app) {
  CLI::App* rollout = app.add_subcommand(
      "rollout", "Gated rollouts of GPU-stack changes: canary batches, metric gates, rollback");
  rollout->require_subcommand(1);

  auto plan_path = std::make_shared<std::string>();
  CLI::App* validate = rollout->add_subcommand("validate", "Check a rollout plan");
  validate->add_option("plan", *plan_path, "Rollout plan (YAML)")->required();
  validate->callback([plan_path] {
    Result<rollout::RolloutPlan> plan = rollout::LoadPlan(*plan_path);
    if (!plan.ok()) {
      fmt::print(stderr, "{}\n", plan.status().message());
      Fail();
    }
    fmt::print(
        "{}: ok: {} {} -> {}, {} batch(es), {} gate(s), maxParallel {}, maxUnavailable "
        "{}\n",
        *plan_path, rollout::ComponentName(plan->component),
        plan->previous_version.empty() ? "(each node's version)" : plan->previous_version,
        plan->version, plan->batches.size(), plan->gates.size(), plan->max_parallel,
        plan->max_unavailable > 0 ? std::to_string(plan->max_unavailable)
                                  : fmt::format("{}%", plan->max_unavailable_percent));
  });

  auto f = std::make_shared<RunFlags>();
  CLI::App* run = rollout->add_subcommand(
      "run", "Run a rollout plan on the twin (a scenario) or against a cluster (--kubeconfig)");
  run->add_option("plan", f->plan, "Rollout plan (YAML)")->required();
  run->add_option("scenario", f->scenario,
                  "Twin scenario (default: the plan's `scenario`, else the built-in one)");
  run->add_option("--state", f->state, "SQLite file holding the rollout's state (resumable)");
  run->add_option("--seed", f->seed, "Twin: override the scenario's seed");
  run->add_option("--pace", f->pace, "Twin: wall-clock seconds per engine step (demos, tests)");
  run->add_flag("--json", f->json, "Print the final status as JSON");
  run->add_option("--kubeconfig", f->kubeconfig, "Run against this cluster (dry run by default)");
  run->add_option("--context", f->context, "Kubeconfig context");
  run->add_flag("--apply", f->apply, "With --kubeconfig: act (label, cordon, evict)");
  run->add_option("--interval", f->interval,
                  "Live: seconds between engine steps (default: the plan's tick)");
  run->add_option("--sync-timeout", f->sync_timeout, "Live: seconds to wait for the cache");
  run->add_option("--max-evictions-per-minute", f->max_evictions_per_minute,
                  "Live: the write gate's eviction cap (refused evictions are retried)");
  run->add_flag("--once", f->once, "Live: one engine step, then exit");
  run->add_option("--prometheus", f->prometheus,
                  "Live: Prometheus with dcgm-exporter's XIDs (xid_rate_delta, job_failure_rate)");
  AddPrometheusConfigFlag(run, &f->prometheus_config);
  auto* resume = run->add_flag("--resume", f->resume,
                               "A paused rollout (inconclusive gate): accept the batch, go on");
  run->add_flag("--abort", f->abort, "A paused rollout: roll back")->excludes(resume);
  run->add_option("--why", f->why, "Why (--resume/--abort), recorded with the decision");
  // Hidden: a deterministic kill -9 for the durability test.
  run->add_option("--test-kill-after-decisions", f->kill_after_decisions)->group("");
  run->callback([f] {
    const int code = RunRollout(*f);
    if (code != 0) Fail(code);
  });

  auto state = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* status = rollout->add_subcommand("status", "Show a rollout's state and decisions");
  status->add_option("--state", *state, "SQLite file of the rollout")->required();
  status->add_flag("--json", *json, "As JSON");
  status->callback([state, json] {
    const int code = ShowStatus(*state, *json);
    if (code != 0) Fail(code);
  });
}

}  // namespace steward::cli

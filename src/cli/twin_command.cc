// `steward twin ...`: run, validate (and later explain) twin scenarios.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/twin_setup.h"
#include "cost/ledger.h"
#include "cost/waste_cause.h"
#include "cost/window.h"
#include "twin/build_cluster.h"
#include "twin/memory_estimate.h"
#include "twin/node_list_export.h"
#include "twin/report_json.h"
#include "twin/scenario.h"
#include "twin/scenario_policy.h"
#include "twin/tenancy.h"
#include "twin/twin.h"

namespace steward::cli {
namespace {

struct RunArgs {
  std::string scenario;
  int64_t seed = -1;
  double days = 0;
  bool json = false;
  bool progress = false;
  bool quiet = false;
  std::string html;
  std::vector<std::string> policy;
  std::string ledger;
  double ledger_window_minutes = 60;
  std::string remediation_db = ":memory:";
  std::string events;            // SQLite lifecycle event log.
  bool reclaim = false;          // Idle reclaim on, enforcing (overrides the scenario).
  bool reclaim_dry_run = false;  // Idle reclaim on, recording only.
  std::string memory_limit;      // --memory-limit: "" = the default (half of the machine).
};

// Writes the twin's per-workload usage windows into the SQLite showback ledger that
// `steward cost report` reads. Capacity per window is every GPU of each model (the twin has
// no out-of-service GPUs yet).
// FNV-1a 64 of the scenario's text and its policy files' (a ledger's run identity): the same
// files give the same hash on every machine.
Result<std::string> ScenarioHash(const RunArgs& a) {
  uint64_t h = 14695981039346656037ull;
  auto mix = [&h](std::string_view bytes) {
    for (unsigned char c : bytes) {
      h ^= c;
      h *= 1099511628211ull;
    }
  };
  auto read = [](const std::string& path) -> Result<std::string> {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::IoError(fmt::format("{}: cannot open", path));
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  if (a.scenario.empty()) {
    mix(twin::DefaultScenarioYaml());
  } else {
    STEWARD_ASSIGN_OR_RETURN(std::string text, read(a.scenario));
    mix(text);
  }
  for (const std::string& p : a.policy) {
    mix(std::string_view("\0", 1));
    STEWARD_ASSIGN_OR_RETURN(std::string text, read(p));
    mix(text);
  }
  return fmt::format("{:016x}", h);
}

Status AttachLedger(const RunArgs& a, const twin::Scenario& scenario, twin::TwinOptions* options,
                    std::shared_ptr<Status> status) {
  STEWARD_ASSIGN_OR_RETURN(model::Cluster cluster, twin::BuildCluster(scenario));
  std::map<std::string, int> gpus_by_model;
  for (const auto& g : cluster.gpus()) gpus_by_model[cluster.gpu_models()[g.model].name]++;
  // The run's identity: the ledger refuses windows of another run (docs/cost.md).
  cost::LedgerOptions ledger_options;
  cost::LedgerRun run;
  run.scenario = scenario.name;
  STEWARD_ASSIGN_OR_RETURN(run.scenario_hash, ScenarioHash(a));
  run.seed = a.seed >= 0 ? static_cast<uint64_t>(a.seed) : scenario.seed;
  for (const auto& [m, n] : gpus_by_model) {
    run.capacity += fmt::format("{}{}={}", run.capacity.empty() ? "" : ",", m, n);
  }
  ledger_options.run = std::move(run);
  STEWARD_ASSIGN_OR_RETURN(std::unique_ptr<cost::Ledger> opened,
                           cost::Ledger::Open(a.ledger, std::move(ledger_options)));
  std::shared_ptr<cost::Ledger> ledger(std::move(opened));
  options->window = SecondsF(a.ledger_window_minutes * 60);
  options->on_window = [ledger, gpus_by_model, status](SimTime start, SimTime end,
                                                       const std::vector<twin::UsageRecord>& in) {
    if (!status->ok()) return;
    std::vector<cost::AllocationRecord> records;
    for (const auto& u : in) {
      cost::AllocationRecord r;
      r.workload = u.workload;
      r.team = u.team;
      r.namespace_name = u.namespace_name;
      r.labels = {{"team", u.team}, {"kind", u.kind}};
      r.gpu_model = u.gpu_model;
      r.allocated_gpu_hours = u.hours.allocated;
      r.busy_gpu_hours = u.hours.busy;
      r.sm_active_gpu_hours = u.hours.sm_active;
      // The twin's ground truth per cause, named as the classifier names them; low efficiency
      // is the classifier's rule applied to the workload's steady computing rate.
      using cost::WasteCause;
      const double computing = u.hours.allocated - u.hours.zombie - u.hours.over_request -
                               u.hours.data_stall - u.hours.startup;
      for (auto [cause, h] : {std::pair{WasteCause::kZombie, u.hours.zombie},
                              std::pair{WasteCause::kOverRequest, u.hours.over_request},
                              std::pair{WasteCause::kDataloaderStall, u.hours.data_stall},
                              std::pair{WasteCause::kStartup, u.hours.startup},
                              std::pair{WasteCause::kLowEfficiency,
                                        cost::LowEfficiencyGpuHours(computing, u.hours.sm_active,
                                                                    cost::kDefaultLowSmActive)}})
        if (h > 0) r.waste_gpu_hours_by_cause[std::string(cost::WasteCauseName(cause))] = h;
      records.push_back(std::move(r));
    }
    cost::CapacityByModel capacity;
    const double hours = (end - start).ToHours();
    for (const auto& [m, n] : gpus_by_model) capacity[m] = n * hours;
    *status = ledger->WriteWindow(cost::SimWindow(start, end), records, capacity);
    if (!status->ok()) std::cerr << "steward: ledger: " << status->message() << "\n";
  };
  return Status::Ok();
}

Result<twin::Scenario> LoadOrDefault(const std::string& path) {
  if (path.empty()) return twin::DefaultScenario();
  return twin::LoadScenario(path);
}

void RunTwin(const RunArgs& a) {
  Result<twin::Scenario> scenario = LoadOrDefault(a.scenario);
  if (!scenario.ok()) {
    std::cerr << "steward: " << scenario.status().message() << "\n";
    Fail();
  }
  if (a.reclaim || a.reclaim_dry_run) {
    scenario->reclaim.enabled = true;
    scenario->reclaim.dry_run = a.reclaim_dry_run;
  }
  twin::TwinOptions options;
  options.days = a.days;
  options.seed = a.seed;
  options.policy_files = a.policy;
  if (!a.memory_limit.empty()) {
    Result<int64_t> limit = twin::ParseMemoryLimit(a.memory_limit);
    if (!limit.ok()) {
      std::cerr << "steward: " << limit.status().message() << "\n";
      Fail();
    }
    options.memory_limit_bytes = *limit;
  }
  auto ledger_status = std::make_shared<Status>();
  if (!a.ledger.empty()) {
    Status s = AttachLedger(a, *scenario, &options, ledger_status);
    if (!s.ok()) {
      std::cerr << "steward: " << s.message() << "\n";
      Fail();
    }
  }
  std::shared_ptr<EventLogSink> events;
  if (!a.events.empty()) {
    Status s = AttachEventLog(a.events, *scenario, &options, &events);
    if (!s.ok()) {
      std::cerr << "steward: " << s.message() << "\n";
      Fail();
    }
  }
  // Progress goes to stderr, one line per simulated day, when it is a terminal (or asked for).
  if (!a.quiet && (a.progress || isatty(STDERR_FILENO))) {
    options.progress = [](SimTime now, SimTime horizon) {
      std::fprintf(stderr, "steward: simulated day %.0f of %.0f\n", now.ToHours() / 24,
                   horizon.ToHours() / 24);
    };
  }
  auto setup = CreateTwin(std::move(scenario).value(), options, a.remediation_db);
  if (!setup.ok()) {
    std::cerr << "steward: " << setup.status().message() << "\n";
    Fail();
  }
  const twin::Report report = setup->twin->Run();
  if (!ledger_status->ok()) Fail();
  if (events) {
    if (events->status.ok()) events->status = events->log->Finish();
    if (!events->status.ok()) {
      std::cerr << "steward: event log: " << events->status.message() << "\n";
      Fail();
    }
  }
  if (setup->remediation && !setup->remediation->status().ok()) {
    std::cerr << "steward: remediation: " << setup->remediation->status().message() << "\n";
    Fail();
  }
  if (setup->reclaim && !setup->reclaim->status().ok()) {
    std::cerr << "steward: reclaim: " << setup->reclaim->status().message() << "\n";
    Fail();
  }
  for (const rollout::TwinRollout* r : setup->rollouts)
    if (!r->status().ok()) {
      std::cerr << "steward: rollout: " << r->status().message() << "\n";
      Fail();
    }
  if (!a.html.empty()) {
    std::ofstream out(a.html, std::ios::binary);
    out << twin::ToHtml(report);
    if (!out) {
      std::cerr << "steward: cannot write " << a.html << "\n";
      Fail();
    }
  }
  if (a.json) {
    twin::WriteJson(report, std::cout);  // ToJson(report).dump(2), a series point at a time.
    std::cout << "\n";
  } else {
    std::cout << twin::ToText(report);
    if (!a.html.empty()) std::cout << "HTML report: " << a.html << "\n";
  }
}

void Validate(const std::string& path) {
  Result<twin::Scenario> s = twin::LoadScenario(path);
  if (s.ok()) {
    // A scenario whose cluster cannot be built (e.g. a missing node list) is not valid either.
    Result<model::Cluster> c = twin::BuildCluster(*s);
    if (!c.ok()) {
      std::cerr << "steward: " << c.status().message() << "\n";
      Fail();
    }
    std::string tenancy;
    if (s->tenancy.enabled()) {
      // The tenancy objects must read too (file, line and field on error).
      Result<govern::Policy> policy = twin::ScenarioPolicy(*s);
      auto audit = twin::AuditScenarioTenancy(*s, *c, policy.ok() ? *policy : govern::Policy{});
      if (!audit.ok()) {
        std::cerr << "steward: " << audit.status().message() << "\n";
        Fail();
      }
      tenancy = fmt::format(", {} tenancy findings", audit->findings.size());
    }
    std::cout << fmt::format("{}: ok ({} GPUs on {} nodes, {} teams, {} generators, {} traces{})\n",
                             path, c->total_gpus(), c->nodes().size(), s->teams.size(),
                             s->generators.size(), s->traces.size(), tenancy);
    return;
  }
  std::cerr << "steward: " << s.status().message() << "\n";
  Fail();
}

struct ExplainArgs {
  std::string scenario, at, workload;
  std::vector<std::string> policy;
  bool json = false;
};

void Explain(const ExplainArgs& a) {
  Result<SimTime> at = ParseAt(a.at);
  Result<twin::Scenario> scenario = LoadOrDefault(a.scenario);
  if (!at.ok() || !scenario.ok()) {
    std::cerr << "steward: " << (at.ok() ? scenario.status() : at.status()).message() << "\n";
    Fail();
  }
  twin::TwinOptions options;
  options.policy_files = a.policy;
  options.finished_runs_kept = -1;  // The workload may have finished by `at`.
  auto setup = CreateTwin(std::move(scenario).value(), options);
  if (!setup.ok()) {
    std::cerr << "steward: " << setup.status().message() << "\n";
    Fail();
  }
  std::unique_ptr<twin::Twin>* t = &setup->twin;
  (*t)->RunUntil(*at);
  const twin::WorkloadRun* run = (*t)->FindRun(a.workload);
  if (run == nullptr) {
    std::cerr << fmt::format("steward: no workload '{}' has arrived by t={:.2f}h\n", a.workload,
                             (*t)->now().ToHours());
    Fail();
  }
  static constexpr const char* kStates[] = {"pending", "starting", "running", "done"};
  const char* state = kStates[static_cast<int>(run->state)];
  const bool pending = run->state == twin::RunState::kPending;
  nlohmann::json j = {{"workload", run->spec.name},
                      {"at_hours", (*t)->now().ToHours()},
                      {"team", (*t)->scenario().teams[run->spec.team].name},
                      {"queue", run->spec.queue},
                      {"tier", model::TierName(run->spec.tier)},
                      {"gpus", run->spec.TotalGpus()},
                      {"state", state},
                      {"interruptions", run->interruptions}};
  if (pending) {
    j["reason"] = run->reason;
    j["detail"] = run->reason_detail;
    j["waiting_seconds"] = ((*t)->now() - run->pending_since).ToSeconds();
  }
  if (a.json) {
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{} at {:.2f}h: {} ({} GPUs, team {}, tier {})\n", run->spec.name,
                           (*t)->now().ToHours(), state, run->spec.TotalGpus(),
                           j["team"].get<std::string>(), j["tier"].get<std::string>());
  if (pending)
    std::cout << fmt::format("  pending for {:.0f}s: {}{}{}\n", j["waiting_seconds"].get<double>(),
                             run->reason, run->reason_detail.empty() ? "" : ": ",
                             run->reason_detail);
}

struct NodesArgs {
  std::string scenario, at = "0";
  std::vector<std::string> policy;
  int64_t seed = -1;
};

// `steward twin nodes`: the twin's nodes at a simulated time as `kubectl get nodes -o json`.
void Nodes(const NodesArgs& a) {
  Result<SimTime> at = ParseAt(a.at);
  Result<twin::Scenario> scenario = LoadOrDefault(a.scenario);
  if (!at.ok() || !scenario.ok()) {
    std::cerr << "steward: " << (at.ok() ? scenario.status() : at.status()).message() << "\n";
    Fail();
  }
  twin::TwinOptions options;
  options.policy_files = a.policy;
  options.seed = a.seed;
  auto setup = CreateTwin(std::move(scenario).value(), options);
  if (!setup.ok()) {
    std::cerr << "steward: " << setup.status().message() << "\n";
    Fail();
  }
  if (*at > setup->twin->horizon()) {
    std::cerr << fmt::format("steward: --at {} is past the scenario's horizon ({:.0f} h)\n", a.at,
                             setup->twin->horizon().ToHours());
    Fail();
  }
  setup->twin->RunUntil(*at);
  std::cout << twin::NodeListJson(*setup->twin).dump(2) << "\n";
}

}  // namespace

void RegisterTwinCommands(CLI::App& app) {
  auto* twin = app.add_subcommand("twin", "Run the digital twin of a GPU cluster");
  twin->require_subcommand(1);

  auto args = std::make_shared<RunArgs>();
  auto* run = twin->add_subcommand(
      "run", "Simulate a scenario (default: the built-in 10,240-GPU cluster) and report its KPIs");
  run->add_option("scenario", args->scenario, "Scenario YAML file (omit for the built-in default)");
  run->add_option("--seed", args->seed, "Random seed (overrides the scenario's)");
  run->add_option("--days", args->days, "Simulated days (overrides the scenario's horizon)")
      ->check(Positive());
  run->add_flag("--json", args->json, "Print the report as one JSON object instead of a table");
  run->add_option("--memory-limit", args->memory_limit,
                  "Refuse a scenario whose estimated memory exceeds SIZE (16G, 800M, ...; none = "
                  "no limit; default: half of this machine's memory)");
  run->add_option("--html", args->html, "Also write a self-contained HTML report to FILE");
  run->add_option("--policy", args->policy,
                  "Kueue/Volcano YAML file(s) governing admission (ClusterQueues, cohorts, "
                  "priority classes...)")
      ->expected(1, -1);
  run->add_option("--ledger", args->ledger,
                  "Write per-workload usage windows into this SQLite showback ledger");
  run->add_option("--ledger-window", args->ledger_window_minutes,
                  "Ledger window length in minutes (default 60)")
      ->check(Positive());
  run->add_flag("--progress", args->progress, "Print progress to stderr even when not a terminal");
  run->add_flag("--quiet", args->quiet, "Never print progress");
  run->add_option("--events", args->events,
                  "Write every workload's lifecycle (arrive, admit, place, start, checkpoint, "
                  "finish, fail, preempt, ...) into this SQLite event log (see `twin events`)");
  run->add_option("--remediation-db", args->remediation_db,
                  "SQLite file for the remediation loop's state (default: in memory)");
  auto* reclaim = run->add_flag("--reclaim", args->reclaim,
                                "Idle reclaim on and enforcing: notify, then stop idle workloads "
                                "(the scenario's reclaim section, or its defaults: notebooks, "
                                "SM-active < 5%, notice at 30 min, reclaim at 60 min)");
  run->add_flag("--reclaim-dry-run", args->reclaim_dry_run,
                "Idle reclaim on in dry-run mode: count notices and would-be reclaims, stop "
                "nothing")
      ->excludes(reclaim);
  run->callback([args] { RunTwin(*args); });

  auto ex = std::make_shared<ExplainArgs>();
  auto* explain = twin->add_subcommand("explain", "Why is a workload pending at time T?");
  explain->add_option("scenario", ex->scenario,
                      "Scenario YAML file (omit for the built-in default)");
  explain->add_option("--at", ex->at, "Simulated time: 36h, 90m, 2d, 3600s (plain number: hours)")
      ->required();
  explain->add_option("--workload", ex->workload, "Workload name (as in the report)")->required();
  explain->add_option("--policy", ex->policy, "Kueue/Volcano YAML governing admission")
      ->expected(1, -1);
  explain->add_flag("--json", ex->json, "Print one JSON object");
  explain->callback([ex] { Explain(*ex); });

  auto na = std::make_shared<NodesArgs>();
  auto* nodes = twin->add_subcommand(
      "nodes", "Print the twin's nodes at a simulated time as `kubectl get nodes -o json` does");
  nodes->add_option("scenario", na->scenario, "Scenario YAML file (omit for the built-in default)");
  nodes->add_option("--at", na->at, "Simulated time: 36h, 90m, 2d, 3600s (plain number: hours)")
      ->capture_default_str();
  nodes->add_option("--seed", na->seed, "Random seed (overrides the scenario's)");
  nodes->add_option("--policy", na->policy, "Kueue/Volcano YAML governing admission")
      ->expected(1, -1);
  nodes->callback([na] { Nodes(*na); });

  RegisterTwinEventsCommand(*twin);

  auto path = std::make_shared<std::string>();
  auto* validate = twin->add_subcommand("validate", "Check a scenario file; exit 0 or explain");
  validate->add_option("scenario", *path, "Scenario YAML file")->required();
  validate->callback([path] { Validate(*path); });

  RegisterTwinCompareCommand(*twin);
  RegisterTwinSnapshotCommand(*twin);
}

}  // namespace steward::cli

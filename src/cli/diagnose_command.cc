// `steward diagnose`: the guide's case-1 playbook on a source of usage data.
#include <fmt/format.h>

#include <iostream>
#include <map>

#include "cli/commands.h"
#include "cli/twin_setup.h"
#include "cost/cost_model.h"
#include "diagnose/diagnosis.h"
#include "twin/scenario.h"
#include "twin/twin.h"

namespace steward::cli {
namespace {

struct DiagnoseArgs {
  std::string twin, prometheus, bundle;
  double days = 0;
  int64_t seed = -1;
  bool json = false;
};

// Runs the twin and maps its ground truth onto the diagnosis inputs: per-workload GPU-hours
// by cause (one usage window over the whole run), and from the time series the free GPU-hours
// stranded on partly used nodes while work was pending (fragmentation) and the free whole
// nodes' GPU-hours while work was pending (queueing: capacity idle, queues blocked).
Result<diagnose::Diagnosis> FromTwin(const DiagnoseArgs& a) {
  STEWARD_ASSIGN_OR_RETURN(twin::Scenario s, a.twin == "default"
                                                 ? Result<twin::Scenario>(twin::DefaultScenario())
                                                 : twin::LoadScenario(a.twin));
  std::map<std::string, diagnose::UsageInput> by_workload;
  twin::TwinOptions o;
  o.days = a.days;
  o.seed = a.seed;
  o.window = Days(100000);  // One window: the whole run.
  o.on_window = [&](SimTime, SimTime, const std::vector<twin::UsageRecord>& records) {
    for (const auto& r : records) {
      diagnose::UsageInput& u = by_workload[r.workload];
      u.workload = r.workload;
      u.team = r.team;
      u.kind = r.kind;
      u.gpu_model = r.gpu_model;
      u.allocated += r.hours.allocated;
      u.busy += r.hours.busy;
      u.sm_active += r.hours.sm_active;
      u.zombie += r.hours.zombie;
      u.over_request += r.hours.over_request;
      u.data_stall += r.hours.data_stall;
      u.startup += r.hours.startup;
    }
  };
  const double step_hours = s.sample_minutes / 60;
  STEWARD_ASSIGN_OR_RETURN(TwinSetup setup, CreateTwin(std::move(s), o));
  std::unique_ptr<twin::Twin>& t = setup.twin;
  const twin::Report report = t->Run();
  std::vector<diagnose::UsageInput> usage;
  for (auto& [name, u] : by_workload) usage.push_back(std::move(u));
  diagnose::ClusterInput c;
  c.capacity_gpu_hours = report.capacity_gpu_hours;
  for (const auto& p : report.series) {
    if (p.pending == 0) continue;
    c.stranded_gpu_hours += p.stranded_free_gpus * step_hours;
    const double free = (1 - p.allocation) * report.total_gpus;
    c.queueing_gpu_hours += std::max(0.0, free - p.stranded_free_gpus) * step_hours;
  }
  const auto& cluster = t->cluster();
  c.usd_per_gpu_hour = cost::CostModel::Default().UsdPerGpuHour(
      cluster.gpu_models()[cluster.gpus().empty() ? 0 : cluster.gpus()[0].model].name);
  return diagnose::Diagnose(usage, c);
}

void Run(const DiagnoseArgs& a) {
  const int sources = !a.twin.empty() + !a.prometheus.empty() + !a.bundle.empty();
  if (sources != 1) {
    std::cerr << "steward: diagnose needs exactly one of --twin, --prometheus, --bundle\n";
    Fail();
  }
  if (a.twin.empty()) {
    std::cerr
        << "steward: diagnose --prometheus and --bundle are not implemented yet; use --twin\n";
    Fail();
  }
  Result<diagnose::Diagnosis> d = FromTwin(a);
  if (!d.ok()) {
    std::cerr << "steward: " << d.status().message() << "\n";
    Fail();
  }
  if (a.json)
    std::cout << diagnose::ToJson(*d).dump(2) << "\n";
  else
    std::cout << diagnose::ToText(*d);
}

}  // namespace

void RegisterDiagnoseCommands(CLI::App& app) {
  auto a = std::make_shared<DiagnoseArgs>();
  auto* cmd = app.add_subcommand(
      "diagnose",
      "Why is real GPU utilization low? Allocation vs SM-active, waste by cause, "
      "top wasters, recommendations (the guide's case-1 playbook)");
  cmd->add_option("--twin", a->twin,
                  "Diagnose a twin run of this scenario (\"default\" = built-in)");
  cmd->add_option("--prometheus", a->prometheus, "Diagnose from a Prometheus server (not yet)");
  cmd->add_option("--bundle", a->bundle,
                  "Diagnose an offline bundle of scrapes + kubectl JSON (not yet)");
  cmd->add_option("--days", a->days, "Twin: simulated days (overrides the scenario)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", a->seed, "Twin: seed (overrides the scenario)");
  cmd->add_flag("--json", a->json, "Print one JSON object");
  cmd->callback([a] { Run(*a); });
}

}  // namespace steward::cli

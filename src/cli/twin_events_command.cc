// `steward twin run --events FILE` writes every workload's lifecycle into a SQLite event log;
// `steward twin events FILE` reads it back (one workload's story, or a whole run).
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/twin_setup.h"
#include "store/event_log.h"

namespace steward::cli {

Status AttachEventLog(const std::string& path, const twin::Scenario& scenario,
                      twin::TwinOptions* options, std::shared_ptr<EventLogSink>* sink) {
  const std::string label =
      fmt::format("{} seed={} days={}", scenario.source.empty() ? "(built-in)" : scenario.source,
                  options->seed >= 0 ? static_cast<uint64_t>(options->seed) : scenario.seed,
                  options->days > 0 ? options->days : scenario.horizon_days);
  STEWARD_ASSIGN_OR_RETURN(std::unique_ptr<store::EventLog> log,
                           store::EventLog::Create(path, label));
  auto s = std::make_shared<EventLogSink>();
  s->log = std::move(log);
  options->on_lifecycle = [s](const twin::LifecycleRecord& r) {
    if (!s->status.ok()) return;
    store::EventRow row;
    row.t_seconds = r.at.ToSeconds();
    row.kind = std::string(twin::LifecycleKindName(r.kind));
    row.workload = r.spec->namespace_name + "/" + r.spec->name;
    row.team = std::string(r.team);
    row.gpus = r.gpus;
    row.lost_gpu_hours = r.lost_gpu_hours;
    row.detail = r.detail;
    s->status = s->log->Append(std::move(row));
  };
  *sink = std::move(s);
  return Status::Ok();
}

namespace {

struct EventsArgs {
  std::string file, workload;
  int64_t run = -1;
  bool runs = false;
  bool json = false;
};

void PrintRuns(const EventsArgs& a) {
  Result<std::vector<store::EventRun>> runs = store::EventLog::Runs(a.file);
  if (!runs.ok()) {
    std::cerr << "steward: " << runs.status().message() << "\n";
    Fail();
  }
  nlohmann::json j = nlohmann::json::array();
  for (const auto& r : *runs)
    j.push_back(
        {{"run", r.id}, {"label", r.label}, {"complete", r.complete}, {"events", r.events}});
  if (a.json) {
    std::cout << j.dump(2) << "\n";
    return;
  }
  for (const auto& r : *runs)
    std::cout << fmt::format("run {:>4}  {:<10} {:>10} events  {}\n", r.id,
                             r.complete ? "complete" : "incomplete", r.events, r.label);
}

void PrintEvents(const EventsArgs& a) {
  if (a.runs) return PrintRuns(a);
  std::optional<int64_t> run;
  if (a.run >= 0) run = a.run;
  Result<std::vector<store::EventRow>> rows = store::EventLog::Read(a.file, run, a.workload);
  if (!rows.ok()) {
    std::cerr << "steward: " << rows.status().message() << "\n";
    Fail();
  }
  if (rows->empty() && !a.workload.empty()) {
    std::cerr << fmt::format(
        "steward: {}: no events of workload '{}' (names are "
        "namespace/name)\n",
        a.file, a.workload);
    Fail();
  }
  if (a.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : *rows)
      j.push_back({{"seq", r.seq},
                   {"t_seconds", r.t_seconds},
                   {"kind", r.kind},
                   {"workload", r.workload},
                   {"team", r.team},
                   {"gpus", r.gpus},
                   {"lost_gpu_hours", r.lost_gpu_hours},
                   {"detail", r.detail}});
    std::cout << j.dump(2) << "\n";
    return;
  }
  for (const auto& r : *rows) {
    std::string line = fmt::format("{:>10.2f}h  {:<10} {:<40} {:>5} GPUs", r.t_seconds / 3600,
                                   r.kind, r.workload, r.gpus);
    if (r.lost_gpu_hours > 0) line += fmt::format("  lost {:.2f} GPU-h", r.lost_gpu_hours);
    if (!r.detail.empty()) line += "  " + r.detail;
    std::cout << line << "\n";
  }
}

}  // namespace

void RegisterTwinEventsCommand(CLI::App& twin) {
  auto a = std::make_shared<EventsArgs>();
  auto* events = twin.add_subcommand(
      "events", "Read a lifecycle event log written by `twin run --events FILE`");
  events->add_option("file", a->file, "SQLite event log")->required();
  events->add_option("--workload", a->workload, "Only this workload (namespace/name)");
  events->add_option("--run", a->run, "Run id (default: the latest complete run)");
  events->add_flag("--runs", a->runs, "List the runs in the log instead");
  events->add_flag("--json", a->json, "Print JSON");
  events->callback([a] { PrintEvents(*a); });
}

}  // namespace steward::cli

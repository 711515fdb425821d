// `steward diagnose`: the guide's case-1 playbook on one of three sources (a twin run, a
// Prometheus server, an offline bundle). Each source only produces snapshots; the frame builder
// and the classifier are the same for all (src/diagnose/).
#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/prometheus_flags.h"
#include "cli/twin_setup.h"
#include "cost/cost_model.h"
#include "cost/window.h"
#include "diagnose/artifacts.h"
#include "diagnose/bundle.h"
#include "diagnose/classifier.h"
#include "diagnose/openmetrics_writer.h"
#include "diagnose/prometheus_source.h"
#include "diagnose/scenario_quotas.h"
#include "diagnose/thresholds.h"
#include "diagnose/twin_source.h"
#include "twin/scenario.h"

namespace steward::cli {
namespace {

struct DiagnoseArgs {
  std::string twin, prometheus, bundle;
  bool json = false;
  std::string thresholds_file;
  std::vector<std::string> thresholds;
  std::string cost_model;
  std::string team_label = "team";
  std::string workload_label = "steward.io/workload";
  std::string class_label = "app.kubernetes.io/name";
  std::string step;
  // Twin.
  double days = 0;
  int64_t seed = -1;
  std::vector<std::string> policy;
  // Prometheus.
  std::string prometheus_config;
  std::string start, end;
  std::string lookback = "1m";
  double timeout = 30;
  int chunk_steps = 96;
  // Writers.
  std::string write_bundle, write_openmetrics;
  // Artifacts (docs/diagnose.md, "Artifacts").
  std::string out;
};

[[noreturn]] void Die(const Status& s) {
  std::cerr << "steward: " << s.message() << "\n";
  Fail();
}

Result<int64_t> DurationMs(const std::string& flag, const std::string& text) {
  Result<int64_t> s = cost::ParseDurationSeconds(text);
  if (!s.ok()) return Status::InvalidArgument(fmt::format("{}: {}", flag, s.status().message()));
  if (*s <= 0) return Status::InvalidArgument(fmt::format("{}: must be > 0", flag));
  return *s * 1000;
}

// Unix seconds or RFC 3339, as milliseconds.
Result<int64_t> TimeMs(const std::string& flag, const std::string& text) {
  int64_t seconds = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec == std::errc() && p == text.data() + text.size()) return seconds * 1000;
  Result<int64_t> t = cost::ParseRfc3339(text);
  if (!t.ok()) {
    return Status::InvalidArgument(
        fmt::format("{}: '{}' is neither Unix seconds nor RFC 3339", flag, text));
  }
  return *t * 1000;
}

void Run(const DiagnoseArgs& a) {
  const int sources = !a.twin.empty() + !a.prometheus.empty() + !a.bundle.empty();
  if (sources != 1) {
    std::cerr << "steward: diagnose needs exactly one of --twin, --prometheus, --bundle\n";
    Fail();
  }
  if (!a.prometheus_config.empty() && a.prometheus.empty()) {
    std::cerr << "steward: --prometheus-config goes with --prometheus\n";
    Fail();
  }
  // Read before any work, so a bad config file fails at once.
  Result<telemetry::PrometheusClientOptions> client =
      LoadPrometheusClientOptions(a.prometheus_config, a.timeout);
  if (!client.ok()) Die(client.status());
  diagnose::Thresholds thresholds;
  if (!a.thresholds_file.empty()) {
    if (Status s = diagnose::LoadThresholds(a.thresholds_file, thresholds); !s.ok()) Die(s);
  }
  for (const std::string& kv : a.thresholds)
    if (Status s = diagnose::SetThresholdAssignment(thresholds, kv); !s.ok()) Die(s);
  cost::CostModel cost_model = cost::CostModel::Default();
  if (!a.cost_model.empty()) {
    Result<cost::CostModel> m = cost::LoadCostModel(a.cost_model);
    if (!m.ok()) Die(m.status());
    cost_model = std::move(m).value();
  }
  diagnose::Attribution attribution;
  attribution.team_label = a.team_label;
  attribution.workload_label = a.workload_label;
  attribution.class_label = a.class_label;
  std::optional<int64_t> step_ms;
  if (!a.step.empty()) {
    Result<int64_t> s = DurationMs("--step", a.step);
    if (!s.ok()) Die(s.status());
    step_ms = *s;
  }

  // Refuse a directory holding other files before the (long) diagnosis, not after.
  if (!a.out.empty())
    if (Status s = diagnose::CheckOutDir(a.out); !s.ok()) Die(s);
  std::optional<twin::Scenario> scenario;  // A twin source's, for the artifacts.
  std::string scenario_text;

  diagnose::Diagnosis::Source source;
  std::optional<diagnose::BundleReader> bundle;
  if (!a.bundle.empty()) {
    Result<diagnose::BundleReader> r = diagnose::BundleReader::Open(a.bundle, step_ms);
    if (!r.ok()) Die(r.status());
    bundle = std::move(r).value();
    step_ms = bundle->step_ms();
    source = {"bundle", a.bundle};
  } else if (!a.twin.empty()) {
    source = {"twin", a.twin};
  } else {
    source = {"prometheus", a.prometheus};
  }
  const int64_t step = step_ms.value_or(300'000);

  diagnose::FrameBuilder builder(attribution, step);
  diagnose::Classifier classifier(thresholds, cost_model);
  builder.AddSink(&classifier);
  std::unique_ptr<diagnose::BundleWriter> bundle_writer;
  if (!a.write_bundle.empty()) {
    auto w = diagnose::BundleWriter::Create(a.write_bundle, step,
                                            fmt::format("{} {}", source.kind, source.where));
    if (!w.ok()) Die(w.status());
    bundle_writer = std::move(w).value();
    builder.AddSink(bundle_writer.get());
  }
  std::unique_ptr<diagnose::OpenMetricsWriter> om_writer;
  if (!a.write_openmetrics.empty()) {
    om_writer = std::make_unique<diagnose::OpenMetricsWriter>(a.write_openmetrics);
    builder.AddSink(om_writer.get());
  }

  Status status;
  std::vector<diagnose::Diagnosis::NotComputed> not_computed;
  if (bundle) {
    status = bundle->Run(builder);
  } else if (!a.twin.empty()) {
    Result<twin::Scenario> s = a.twin == "default" ? Result<twin::Scenario>(twin::DefaultScenario())
                                                   : twin::LoadScenario(a.twin);
    if (!s.ok()) Die(s.status());
    scenario = *s;  // Quotas for the queueing rows; the artifacts.
    if (!a.out.empty()) {
      if (a.twin == "default") {
        scenario_text = std::string(twin::DefaultScenarioYaml());
      } else {
        std::ifstream in(a.twin, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        scenario_text = text.str();
      }
    }
    twin::TwinOptions to;
    to.days = a.days;
    to.seed = a.seed;
    to.policy_files = a.policy;
    // The same twin `twin run` builds (its controllers included), so the answers compare.
    Result<TwinSetup> setup = CreateTwin(std::move(s).value(), to);
    if (!setup.ok()) Die(setup.status());
    diagnose::TwinSourceOptions o;
    o.step_ms = step;
    o.epoch_ms = cost::kDefaultScenarioEpoch * 1000;
    status = diagnose::RunTwinSource(*setup->twin, o, builder);
  } else {
    diagnose::PrometheusSourceOptions o;
    o.url = a.prometheus;
    o.step_ms = step;
    o.attribution = attribution;
    o.client = *client;
    o.chunk_steps = a.chunk_steps;
    Result<int64_t> lookback = DurationMs("--lookback", a.lookback);
    if (!lookback.ok()) Die(lookback.status());
    o.lookback_ms = *lookback;
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    Result<int64_t> end = a.end.empty() ? Result<int64_t>(now_ms) : TimeMs("--end", a.end);
    if (!end.ok()) Die(end.status());
    Result<int64_t> start =
        a.start.empty() ? Result<int64_t>(*end - 7 * 24 * 3'600'000) : TimeMs("--start", a.start);
    if (!start.ok()) Die(start.status());
    o.start_ms = *start;
    o.end_ms = *end;
    status = diagnose::RunPrometheusSource(o, builder, &not_computed);
  }
  if (!status.ok()) Die(status);

  source.start_ms = builder.first_ms();
  source.end_ms = builder.last_ms();
  source.step_seconds = static_cast<double>(step) / 1000;
  source.frames = builder.frames();
  source.gpus = static_cast<int>(builder.catalog().gpus().size());
  diagnose::Diagnosis d = classifier.Result(source);
  d.not_computed = std::move(not_computed);
  if (scenario) diagnose::AddScenarioQuotas(*scenario, a.policy, d);
  std::optional<diagnose::ArtifactSet> artifacts;
  if (!a.out.empty()) {
    diagnose::ArtifactOptions o;
    o.dir = a.out;
    if (scenario) {
      o.scenario = &*scenario;
      o.scenario_text = scenario_text;
      o.scenario_dir = a.twin == "default" ? std::filesystem::path(".")
                                           : std::filesystem::path(a.twin).parent_path();
      o.governed_by_policy_files = !a.policy.empty();
      if (a.days > 0) o.horizon_days = a.days;
      if (a.seed >= 0) o.seed = static_cast<uint64_t>(a.seed);
    }
    Result<diagnose::ArtifactSet> set = diagnose::WriteArtifacts(d, o);
    if (!set.ok()) Die(set.status());
    artifacts = std::move(set).value();
  }
  if (a.json) {
    nlohmann::json j = diagnose::ToJson(d);
    if (artifacts) {
      j["artifacts"] = diagnose::ArtifactsJson(*artifacts);
      j["artifacts_not_written"] = diagnose::NotWrittenJson(*artifacts);
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << diagnose::ToText(d);
    if (artifacts) std::cout << diagnose::ArtifactsText(*artifacts);
  }
}

}  // namespace

void RegisterDiagnoseCommands(CLI::App& app) {
  auto a = std::make_shared<DiagnoseArgs>();
  auto* cmd = app.add_subcommand(
      "diagnose",
      "Why is real GPU utilization low? Allocation vs SM-active, waste by cause, top wasters, "
      "recommendations (the guide's case-1 playbook), from a twin run, Prometheus or a bundle");
  cmd->add_option("--twin", a->twin,
                  "Diagnose a twin run of this scenario (\"default\" = built-in)");
  cmd->add_option("--prometheus", a->prometheus,
                  "Diagnose from a Prometheus server (http[s]://host:port[/prefix]) holding "
                  "dcgm-exporter and kube-state-metrics series");
  cmd->add_option("--bundle", a->bundle,
                  "Diagnose an offline bundle: scrapes/*.prom + pods/ + nodes/ (docs/diagnose.md)");
  cmd->add_flag("--json", a->json, "Print one JSON object");
  cmd->add_option("--thresholds", a->thresholds_file, "YAML file of classifier thresholds");
  cmd->add_option("--threshold", a->thresholds,
                  "Override one threshold, KEY=VALUE (repeatable), e.g. zombie_minutes=30");
  cmd->add_option("--cost-model", a->cost_model,
                  "Cost model YAML (docs/cost.md); default: the built-in model");
  cmd->add_option("--team-label", a->team_label, "Pod label naming the team (default: team)");
  cmd->add_option("--workload-label", a->workload_label,
                  "Pod label naming the workload (default: steward.io/workload)");
  cmd->add_option("--class-label", a->class_label,
                  "Pod label naming the job template right-sizing groups by, per team "
                  "(default: app.kubernetes.io/name; without it, per workload)");
  cmd->add_option("--step", a->step,
                  "Sampling step, e.g. 5m (twin and Prometheus default 5m; bundle default: "
                  "bundle.json or the scrape spacing)");
  cmd->add_option("--days", a->days, "Twin: simulated days (overrides the scenario)")
      ->check(Positive());
  cmd->add_option("--seed", a->seed, "Twin: seed (overrides the scenario)");
  cmd->add_option("--policy", a->policy, "Twin: Kueue/Volcano policy files (as twin run)");
  cmd->add_option("--start", a->start,
                  "Prometheus: first step, Unix seconds or RFC 3339 (default: end - 7d)");
  cmd->add_option("--end", a->end,
                  "Prometheus: last step, Unix seconds or RFC 3339 (default: now)");
  cmd->add_option("--lookback", a->lookback,
                  "Prometheus: newest sample age per step, >= the scrape interval and < the step "
                  "(default 1m)");
  AddPrometheusConfigFlag(cmd, &a->prometheus_config);
  cmd->add_option("--timeout", a->timeout, "Prometheus: HTTP timeout, seconds (default 30)")
      ->check(Positive());
  cmd->add_option("--chunk-steps", a->chunk_steps, "Prometheus: steps per range query (default 96)")
      ->check(Between(1, 11000));
  cmd->add_option("--write-bundle", a->write_bundle,
                  "Also save what was read as an offline bundle in this (new) directory");
  cmd->add_option("--write-openmetrics", a->write_openmetrics,
                  "Also save it as OpenMetrics for promtool tsdb create-blocks-from openmetrics");
  cmd->add_option("--out", a->out,
                  "Write, for each recommendation, a file that applies it (Kueue YAML, idle "
                  "reclaim, right-sizing patches, placement) and, for --twin, after.yaml: the "
                  "scenario with them, for `twin compare` (a new or empty directory, or a "
                  "previous --out's)");
  cmd->callback([a] { Run(*a); });
}

}  // namespace steward::cli

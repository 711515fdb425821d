// `steward metrics parse FILE|- [--json]`: parse a Prometheus/dcgm-exporter scrape and summarise
// it (series, families, GPUs, XID codes). Exits 1 after the summary if any line was malformed.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "telemetry/exposition.h"
#include "telemetry/gpu_record.h"

namespace steward::cli {

namespace {

struct MetricsParseArgs {
  std::string file;
  bool json = false;
  std::string format = "auto";
};

void RunMetricsParse(const MetricsParseArgs& args) {
  std::string text;
  if (args.file == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    // One sized read: a 10,240-GPU scrape is ~50 MB, and stream copies doubled it.
    std::ifstream in(args.file, std::ios::binary | std::ios::ate);
    if (!in) {
      fmt::print(stderr, "error: {}: cannot open\n", args.file);
      Fail();
    }
    const std::streamoff size = in.tellg();
    if (size < 0) {
      fmt::print(stderr, "error: {}: cannot read its size\n", args.file);
      Fail();
    }
    text.resize(static_cast<size_t>(size));
    in.seekg(0);
    if (size > 0 && !in.read(text.data(), size)) {
      fmt::print(stderr, "error: {}: read failed\n", args.file);
      Fail();
    }
  }
  telemetry::ParseOptions options;
  if (args.format == "prometheus") options.dialect = telemetry::Dialect::kPrometheusText;
  if (args.format == "openmetrics") options.dialect = telemetry::Dialect::kOpenMetrics;
  telemetry::Scrape scrape = telemetry::ParseExposition(text, options);
  telemetry::DcgmSnapshot snap = telemetry::BuildDcgmSnapshot(scrape);

  std::map<std::string, size_t> per_family;
  for (const auto& f : scrape.families) {
    if (f.sample_count > 0) per_family[std::string(f.name)] += f.sample_count;
  }
  const std::string source = args.file == "-" ? "<stdin>" : args.file;
  if (args.json) {
    nlohmann::json j;
    j["series"] = scrape.samples.size();
    j["metrics"] = per_family;
    j["gpus"] = snap.gpus.size();
    j["xids"] = snap.xids;
    j["format"] = scrape.dialect == telemetry::Dialect::kOpenMetrics ? "openmetrics" : "prometheus";
    nlohmann::json errors = nlohmann::json::array();
    for (const auto& e : scrape.errors) {
      errors.push_back({{"line", e.line}, {"column", e.column}, {"message", e.message}});
    }
    j["errors"] = errors;
    j["error_count"] = scrape.error_count;
    // An error message quotes the offending token, which may be bytes that are not UTF-8:
    // replace them (U+FFFD) instead of letting the JSON writer throw.
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    fmt::print("{}: {} samples in {} families, {} GPUs", source, scrape.samples.size(),
               per_family.size(), snap.gpus.size());
    if (!snap.xids.empty()) fmt::print(", XIDs {}", fmt::join(snap.xids, ","));
    fmt::print("\n");
    for (const auto& [name, n] : per_family) fmt::print("  {:<48} {}\n", name, n);
  }
  if (!scrape.ok()) {
    fmt::print(stderr, "{}: read {} good samples; {} malformed line(s):\n", source,
               scrape.samples.size(), scrape.error_count);
    for (const auto& e : scrape.errors) {
      fmt::print(stderr, "{}:{}:{}: {}\n", source, e.line, e.column, e.message);
    }
    if (scrape.errors.size() < scrape.error_count) {
      fmt::print(stderr, "... {} more not shown\n", scrape.error_count - scrape.errors.size());
    }
    Fail();
  }
}

}  // namespace

void RegisterMetricsCommands(CLI::App& app) {
  auto* metrics = app.add_subcommand("metrics", "Read Prometheus / dcgm-exporter telemetry");
  metrics->require_subcommand(1);
  auto args = std::make_shared<MetricsParseArgs>();
  auto* parse = metrics->add_subcommand(
      "parse", "Parse a scrape (Prometheus text 0.0.4 or OpenMetrics) and summarise it");
  parse->add_option("file", args->file, "Scrape file, or - for stdin")->required();
  parse->add_flag("--json", args->json,
                  "Print one JSON object: series, metrics, gpus, xids, errors");
  parse->add_option("--format", args->format, "auto, prometheus or openmetrics")
      ->check(CLI::IsMember({"auto", "prometheus", "openmetrics"}));
  parse->callback([args] { RunMetricsParse(*args); });
}

}  // namespace steward::cli

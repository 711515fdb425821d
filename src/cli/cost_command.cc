// `steward cost ...`: showback/chargeback reports from the SQLite ledger, the monthly waste
// review, the OpenCost-compatible /allocation server, and the cost model's prices.
#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cost/allocation_format.h"
#include "cost/allocation_query.h"
#include "cost/allocation_server.h"
#include "cost/cost_model.h"
#include "cost/ledger.h"
#include "cost/waste_review.h"
#include "cost/window.h"

namespace steward::cli {
namespace {

using cost::Ledger;

int64_t WallClockSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void FailWith(const Status& s) {
  std::cerr << "steward cost: " << s.message() << "\n";
  Fail();
}

std::unique_ptr<Ledger> OpenForReading(const std::string& path) {
  cost::LedgerOptions options;
  options.create_if_missing = false;
  options.read_only = true;  // Reports never create, convert or write a ledger.
  auto ledger = Ledger::Open(path, options);
  if (!ledger.ok()) FailWith(ledger.status());
  return std::move(ledger).value();
}

// `--now`: RFC 3339 or Unix seconds; empty = the ledger's latest window end.
int64_t ResolveNow(const Ledger& ledger, const std::string& now) {
  if (!now.empty()) {
    int64_t unix_seconds = 0;
    auto [p, ec] = std::from_chars(now.data(), now.data() + now.size(), unix_seconds);
    if (ec == std::errc() && p == now.data() + now.size()) return unix_seconds;
    auto t = cost::ParseRfc3339(now);
    if (!t.ok()) FailWith(t.status().WithContext("--now"));
    return *t;
  }
  auto t = cost::LedgerNow(ledger, WallClockSeconds());
  if (!t.ok()) FailWith(t.status());
  return *t;
}

std::vector<cost::AggregateProperty> Aggregate(const std::string& text) {
  auto agg = cost::ParseAggregate(text);
  if (!agg.ok()) FailWith(agg.status().WithContext("--aggregate"));
  return *agg;
}

struct ReportArgs {
  std::string db, window, aggregate = "team", step, now, share_mode = "weighted";
  bool csv = false, json = false, share_idle = false, include_idle = false, accumulate = false;
};

void RunReport(const ReportArgs& a) {
  auto ledger = OpenForReading(a.db);
  cost::AllocationQuery q;
  q.window = a.window;
  q.aggregate = Aggregate(a.aggregate);
  if (!a.step.empty()) {
    auto step = cost::ParseDurationSeconds(a.step);
    if (!step.ok()) FailWith(step.status().WithContext("--step"));
    q.step_seconds = *step;
  }
  q.accumulate = a.accumulate;
  q.include_idle = a.include_idle;
  if (a.share_idle) {
    q.share_idle = a.share_mode == "even" ? cost::IdleSharing::kEven : cost::IdleSharing::kWeighted;
  }
  auto result = cost::QueryAllocations(*ledger, q, ResolveNow(*ledger, a.now));
  if (!result.ok()) FailWith(result.status());
  if (a.csv) {
    std::cout << cost::AllocationResultToCsv(*result);
  } else if (a.json) {
    std::cout << cost::AllocationResultToOpenCostJson(*result).dump(2) << "\n";
  } else {
    std::cout << cost::AllocationResultToTable(*result, ledger->currency());
  }
}

struct ReviewArgs {
  std::string db, window = "month", aggregate = "team", now;
  int top = 10;
  bool json = false;
};

void RunReview(const ReviewArgs& a) {
  auto ledger = OpenForReading(a.db);
  auto review = cost::ReviewWaste(*ledger, a.window, Aggregate(a.aggregate), a.top,
                                  ResolveNow(*ledger, a.now));
  if (!review.ok()) FailWith(review.status());
  if (a.json) {
    std::cout << cost::WasteReviewToJson(*review).dump(2) << "\n";
  } else {
    std::cout << cost::WasteReviewToTable(*review, ledger->currency());
  }
}

void RunServe(const std::string& db, int port) {
  auto ledger = OpenForReading(db);
  cost::AllocationServer server(ledger.get(), WallClockSeconds);
  // Loopback only: the ledger is showback data, not for the network without a proxy in front.
  auto bound = server.Start("127.0.0.1", port);
  if (!bound.ok()) FailWith(bound.status());
  std::cout << fmt::format("serving {} on http://127.0.0.1:{}/allocation\n", db, *bound)
            << std::flush;
  server.Wait();
}

void RunPrices(const std::string& path, bool json) {
  cost::CostModel model = cost::CostModel::Default();
  if (!path.empty()) {
    auto loaded = cost::LoadCostModel(path);
    if (!loaded.ok()) FailWith(loaded.status());
    model = *loaded;
  }
  nlohmann::json out = nlohmann::json::object();
  std::string table =
      fmt::format("{:<10} {:>10} {:>10} {:>10} {:>10} {:>12}  ({}/GPU-hour)\n", "gpu_model",
                  "capital", "energy", "facility", "other", "total", model.currency());
  for (const auto& [name, spec] : model.models()) {
    const cost::GpuHourPrice p = cost::PriceOf(spec, model.hours_per_year());
    out[name] = {{"capital", cost::OpenCostNumber(p.capital)},
                 {"energy", cost::OpenCostNumber(p.energy)},
                 {"facility", cost::OpenCostNumber(p.facility)},
                 {"other", cost::OpenCostNumber(p.other)},
                 {"flat", cost::OpenCostNumber(p.flat)},
                 {"usd_per_gpu_hour", cost::OpenCostNumber(p.total())}};
    table +=
        fmt::format("{:<10} {:>10.5f} {:>10.5f} {:>10.5f} {:>10.5f} {:>12.5f}{}\n", name, p.capital,
                    p.energy, p.facility, p.other, p.total(), p.flat > 0 ? "  (flat)" : "");
  }
  out["__fallback__"] = {
      {"usd_per_gpu_hour", cost::OpenCostNumber(model.fallback_usd_per_gpu_hour())}};
  table += fmt::format("{:<10} {:>55.5f}  (models not listed)\n", "fallback",
                       model.fallback_usd_per_gpu_hour());
  if (json) {
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << table;
  }
}

}  // namespace

void RegisterCostCommands(CLI::App& app) {
  auto* cost = app.add_subcommand("cost", "GPU showback/chargeback from the SQLite ledger");
  cost->require_subcommand(1);

  auto report_args = std::make_shared<ReportArgs>();
  auto* report = cost->add_subcommand(
      "report", "Allocated vs used GPU-hours and cost per team/namespace/label and window");
  report->add_option("--db", report_args->db, "Ledger file (SQLite)")->required();
  report
      ->add_option("--window", report_args->window,
                   "OpenCost window: today, week, month, lastmonth, 24h, 7d, "
                   "START,END (RFC 3339 or Unix seconds)")
      ->required();
  report
      ->add_option("--aggregate", report_args->aggregate,
                   "team | namespace | label:KEY | workload | gpu_model | cluster "
                   "(comma list allowed)")
      ->capture_default_str();
  report->add_option("--step", report_args->step, "Split the window into steps (1h, 1d, 1w)");
  report->add_flag("--accumulate", report_args->accumulate, "Sum the steps into one set");
  auto* csv = report->add_flag("--csv", report_args->csv, "Print CSV (header + one row each)");
  auto* json =
      report->add_flag("--json", report_args->json, "Print OpenCost's /allocation JSON envelope");
  csv->excludes(json);
  report->add_flag("--share-idle", report_args->share_idle,
                   "Distribute idle cost over the aggregates (OpenCost shareIdle)");
  report
      ->add_option("--share-idle-mode", report_args->share_mode,
                   "How --share-idle splits idle: weighted (by cost, as OpenCost) or even")
      ->check(CLI::IsMember({"weighted", "even"}))
      ->capture_default_str();
  report->add_flag("--include-idle", report_args->include_idle,
                   "Show idle capacity as an __idle__ row (OpenCost includeIdle)");
  report->add_option("--now", report_args->now,
                     "Resolve relative windows against this time (RFC 3339 or Unix seconds; "
                     "default: the ledger's latest window end)");
  report->callback([report_args] { RunReport(*report_args); });

  auto review_args = std::make_shared<ReviewArgs>();
  auto* review = cost->add_subcommand(
      "review", "Monthly review: top-N waste ranking, allocated vs real compute (SM-active)");
  review->add_option("--db", review_args->db, "Ledger file (SQLite)")->required();
  review->add_option("--window", review_args->window, "OpenCost window (default: month)")
      ->capture_default_str();
  review->add_option("--aggregate", review_args->aggregate, "team | namespace | label:KEY | ...")
      ->capture_default_str();
  review->add_option("--top", review_args->top, "Keep the N biggest wasters (0 = all)")
      ->capture_default_str();
  review->add_flag("--json", review_args->json, "Print JSON");
  review->add_option("--now", review_args->now, "As for cost report");
  review->callback([review_args] { RunReview(*review_args); });

  auto serve_db = std::make_shared<std::string>();
  auto serve_port = std::make_shared<int>(9003);
  auto* serve =
      cost->add_subcommand("serve", "Serve the ledger as OpenCost's /allocation API on 127.0.0.1");
  serve->add_option("--db", *serve_db, "Ledger file (SQLite)")->required();
  serve->add_option("--port", *serve_port, "TCP port (0 = any free port; OpenCost uses 9003)")
      ->capture_default_str();
  serve->callback([serve_db, serve_port] { RunServe(*serve_db, *serve_port); });

  auto price_model = std::make_shared<std::string>();
  auto price_json = std::make_shared<bool>(false);
  auto* prices = cost->add_subcommand(
      "prices", "Print the cost model's price per GPU-hour, split by capital/energy/facility");
  prices->add_option("--cost-model", *price_model,
                     "Cost model YAML (default: the built-in one, examples/cost/cost-model.yaml)");
  prices->add_flag("--json", *price_json, "Print JSON");
  prices->callback([price_model, price_json] { RunPrices(*price_model, *price_json); });

  auto* schema = cost->add_subcommand(
      "schema",
      "Print the SQL that initializes an empty ledger (schema + meta rows), for external writers");
  schema->callback([] { std::cout << Ledger::InitScript("cluster-one", "USD"); });
}

}  // namespace steward::cli

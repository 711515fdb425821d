// The cost model: what one GPU-hour of each GPU model costs the organisation.
//
// On-prem GPUs have no list price per hour, so the price is built from its parts (the issue's
// item 5 and OpenCost spec Appendix A, "use fully amortized net cost"):
//
//   usd_per_gpu_hour = purchase_usd / (amortization_years * hours_per_year)   (capital)
//                    + power_kw * pue * usd_per_kwh                           (energy)
//                    + facility_usd_per_gpu_year / hours_per_year             (space, ops, support)
//                    + other_usd_per_gpu_hour                                 (anything else)
//
// A model may instead give a flat `usd_per_gpu_hour` (a cloud or internal transfer price).
// Models not listed are charged `fallback_usd_per_gpu_hour` (default 0.95, OpenCost's default
// GPU price in configs/default.json) so no GPU is ever charged 0. Every price must be > 0.
// The YAML format and the defaults are documented in docs/cost.md; the shipped example is
// examples/cost/cost-model.yaml.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "model/status.h"

namespace steward::cost {

// How one GPU model's hourly price is derived. All money in the model's currency (USD by
// default); all fields per GPU (a server's chassis, CPUs and network share included).
struct GpuCostSpec {
  // Purchase price per GPU including its share of the server (DGX/HGX chassis, NICs).
  double purchase_usd = 0;
  // Straight-line amortization period. Longer periods make each hour cheaper.
  double amortization_years = 4;
  // Wall power per GPU including its share of the server, at typical load.
  double power_kw = 0;
  // Power usage effectiveness of the data centre: facility power / IT power.
  double pue = 1.3;
  double usd_per_kwh = 0.10;
  // Space, cooling plant, support contracts, operations staff: per GPU and year.
  double facility_usd_per_gpu_year = 0;
  double other_usd_per_gpu_hour = 0;
  // When > 0, overrides the derivation above (flat price per GPU-hour).
  double usd_per_gpu_hour = 0;
};

// The derived price, split by part so reports can say where the money goes.
struct GpuHourPrice {
  double capital = 0;
  double energy = 0;
  double facility = 0;
  double other = 0;
  double flat = 0;  // Non-zero only for a flat `usd_per_gpu_hour` model.
  double total() const { return flat > 0 ? flat : capital + energy + facility + other; }
};

GpuHourPrice PriceOf(const GpuCostSpec& spec, double hours_per_year);

class CostModel {
 public:
  // The built-in model: the same models and numbers as examples/cost/cost-model.yaml
  // (a test keeps the two equal). The numbers are illustrative assumptions, not quotes.
  static CostModel Default();

  // An empty model: every GPU model is charged the fallback price.
  CostModel() = default;

  // Price per GPU-hour of `gpu_model`: the spec of that name (exact, then case-insensitive),
  // else the fallback. Always > 0.
  double UsdPerGpuHour(std::string_view gpu_model) const;
  // True when `gpu_model` has its own spec (false = fallback price).
  bool HasModel(std::string_view gpu_model) const;

  const std::map<std::string, GpuCostSpec, std::less<>>& models() const { return models_; }
  double hours_per_year() const { return hours_per_year_; }
  double fallback_usd_per_gpu_hour() const { return fallback_usd_per_gpu_hour_; }
  const std::string& currency() const { return currency_; }

  // REQUIRES: PriceOf(spec).total() > 0 (the parser checks it).
  void SetModel(std::string name, const GpuCostSpec& spec) { models_[std::move(name)] = spec; }
  void set_hours_per_year(double h) { hours_per_year_ = h; }
  void set_fallback_usd_per_gpu_hour(double p) { fallback_usd_per_gpu_hour_ = p; }
  void set_currency(std::string c) { currency_ = std::move(c); }

 private:
  const GpuCostSpec* Find(std::string_view gpu_model) const;

  std::map<std::string, GpuCostSpec, std::less<>> models_;
  double hours_per_year_ = 8760;  // 365 days; a model running 24x7.
  double fallback_usd_per_gpu_hour_ = 0.95;
  std::string currency_ = "USD";
};

// Parses a cost model from YAML text; `filename` only names the source in errors, which read
// "FILE:LINE:COL: FIELD: WHAT". Unknown keys are errors (a typo must not silently price at 0).
Result<CostModel> ParseCostModel(std::string_view yaml_text, std::string_view filename);
Result<CostModel> LoadCostModel(const std::filesystem::path& path);

}  // namespace steward::cost

#include "cost/cost_model.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <vector>

#include "model/yaml_checked.h"

namespace steward::cost {

GpuHourPrice PriceOf(const GpuCostSpec& spec, double hours_per_year) {
  GpuHourPrice p;
  if (spec.usd_per_gpu_hour > 0) {
    p.flat = spec.usd_per_gpu_hour;
    return p;
  }
  if (spec.amortization_years > 0 && hours_per_year > 0) {
    p.capital = spec.purchase_usd / (spec.amortization_years * hours_per_year);
  }
  p.energy = spec.power_kw * spec.pue * spec.usd_per_kwh;
  if (hours_per_year > 0) p.facility = spec.facility_usd_per_gpu_year / hours_per_year;
  p.other = spec.other_usd_per_gpu_hour;
  return p;
}

CostModel CostModel::Default() {
  // Keep in step with examples/cost/cost-model.yaml (cost_model_test checks they are equal).
  // Power per GPU is the server's maximum power over its GPUs: DGX H100 10.2 kW / 8 and
  // DGX A100 6.5 kW / 8 (NVIDIA datasheets); the L4 figure is its 72 W TDP plus a host share.
  // Purchase prices and facility costs are round illustrative assumptions: override them.
  CostModel m;
  GpuCostSpec h100;
  h100.purchase_usd = 30000;
  h100.power_kw = 1.275;
  h100.facility_usd_per_gpu_year = 1500;
  m.SetModel("H100", h100);
  GpuCostSpec a100;
  a100.purchase_usd = 15000;
  a100.power_kw = 0.8125;
  a100.facility_usd_per_gpu_year = 1500;
  m.SetModel("A100", a100);
  GpuCostSpec l4;
  l4.purchase_usd = 3000;
  l4.power_kw = 0.15;
  l4.facility_usd_per_gpu_year = 600;
  m.SetModel("L4", l4);
  return m;
}

const GpuCostSpec* CostModel::Find(std::string_view gpu_model) const {
  if (auto it = models_.find(gpu_model); it != models_.end()) return &it->second;
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string want = lower(gpu_model);
  for (const auto& [name, spec] : models_) {
    if (lower(name) == want) return &spec;
  }
  return nullptr;
}

double CostModel::UsdPerGpuHour(std::string_view gpu_model) const {
  const GpuCostSpec* spec = Find(gpu_model);
  if (spec == nullptr) return fallback_usd_per_gpu_hour_;
  return PriceOf(*spec, hours_per_year_).total();
}

bool CostModel::HasModel(std::string_view gpu_model) const { return Find(gpu_model) != nullptr; }

namespace {

// Parsing context: the file name for messages.
struct Ctx {
  std::string_view file;
  Status Error(const YAML::Node& node, std::string_view field, std::string_view what) const {
    const YAML::Mark mark = node.Mark();
    // yaml-cpp marks are 0-based and -1 when unknown.
    const int line = mark.line >= 0 ? mark.line + 1 : 0;
    const int col = mark.column >= 0 ? mark.column + 1 : 0;
    return MakeInputError(file, line, col, field, what);
  }
};

Result<double> ReadNumber(const Ctx& ctx, const YAML::Node& node, const std::string& field,
                          bool allow_zero) {
  if (!node.IsScalar()) return ctx.Error(node, field, "must be a number");
  double v = 0;
  try {
    v = node.as<double>();
  } catch (const YAML::Exception&) {
    return ctx.Error(node, field, fmt::format("must be a number, got '{}'", node.Scalar()));
  }
  if (!std::isfinite(v)) return ctx.Error(node, field, "must be finite");
  if (v < 0 || (!allow_zero && v == 0)) {
    return ctx.Error(node, field, allow_zero ? "must be >= 0" : "must be > 0");
  }
  return v;
}

// Applies the keys of `node` (a map) onto `spec`; `prefix` names the map in errors.
Status ReadSpec(const Ctx& ctx, const YAML::Node& node, const std::string& prefix,
                GpuCostSpec* spec) {
  if (!node.IsMap()) return ctx.Error(node, prefix, "must be a map of cost fields");
  struct Field {
    const char* name;
    double GpuCostSpec::*member;
    bool allow_zero;
  };
  static const Field kFields[] = {
      {"purchase_usd", &GpuCostSpec::purchase_usd, true},
      {"amortization_years", &GpuCostSpec::amortization_years, false},
      {"power_kw", &GpuCostSpec::power_kw, true},
      {"pue", &GpuCostSpec::pue, false},
      {"usd_per_kwh", &GpuCostSpec::usd_per_kwh, true},
      {"facility_usd_per_gpu_year", &GpuCostSpec::facility_usd_per_gpu_year, true},
      {"other_usd_per_gpu_hour", &GpuCostSpec::other_usd_per_gpu_hour, true},
      {"usd_per_gpu_hour", &GpuCostSpec::usd_per_gpu_hour, false},
  };
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    const std::string field = prefix + "." + key;
    const Field* match = nullptr;
    for (const Field& f : kFields) {
      if (key == f.name) match = &f;
    }
    if (match == nullptr) {
      std::string valid;
      for (const Field& f : kFields) valid += std::string(valid.empty() ? "" : ", ") + f.name;
      return ctx.Error(kv.first, field, fmt::format("unknown field (valid: {})", valid));
    }
    STEWARD_ASSIGN_OR_RETURN(double v, ReadNumber(ctx, kv.second, field, match->allow_zero));
    if (match->member == &GpuCostSpec::pue && v < 1.0) {
      return ctx.Error(kv.second, field, "must be >= 1 (facility power over IT power)");
    }
    spec->*(match->member) = v;
  }
  return Status::Ok();
}

Result<CostModel> ParseRoot(const Ctx& ctx, const YAML::Node& root) {
  CostModel model;
  if (root.IsNull()) return ctx.Error(root, "", "empty cost model");
  if (!root.IsMap()) return ctx.Error(root, "", "a cost model must be a YAML map");
  GpuCostSpec defaults;
  YAML::Node models_node;
  // Two passes: scalars and `defaults` first, so `defaults` may follow `gpu_models`.
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (key == "currency") {
      if (!kv.second.IsScalar() || kv.second.Scalar().empty()) {
        return ctx.Error(kv.second, key, "must be a non-empty string");
      }
      model.set_currency(kv.second.Scalar());
    } else if (key == "hours_per_year") {
      STEWARD_ASSIGN_OR_RETURN(double v, ReadNumber(ctx, kv.second, key, false));
      model.set_hours_per_year(v);
    } else if (key == "fallback_usd_per_gpu_hour") {
      STEWARD_ASSIGN_OR_RETURN(double v, ReadNumber(ctx, kv.second, key, false));
      model.set_fallback_usd_per_gpu_hour(v);
    } else if (key == "defaults") {
      STEWARD_RETURN_IF_ERROR(ReadSpec(ctx, kv.second, key, &defaults));
    } else if (key == "gpu_models") {
      models_node = kv.second;
    } else {
      return ctx.Error(kv.first, key,
                       "unknown field (valid: currency, hours_per_year, "
                       "fallback_usd_per_gpu_hour, defaults, gpu_models)");
    }
  }
  if (models_node) {
    if (!models_node.IsMap()) {
      return ctx.Error(models_node, "gpu_models", "must be a map from GPU model name to costs");
    }
    for (const auto& kv : models_node) {
      const std::string name = kv.first.as<std::string>();
      const std::string field = "gpu_models." + name;
      if (name.empty()) return ctx.Error(kv.first, field, "GPU model name must not be empty");
      if (model.HasModel(name)) {
        return ctx.Error(kv.first, field, "duplicate GPU model (names are case-insensitive)");
      }
      GpuCostSpec spec = defaults;
      STEWARD_RETURN_IF_ERROR(ReadSpec(ctx, kv.second, field, &spec));
      const double price = PriceOf(spec, model.hours_per_year()).total();
      if (!(price > 0)) {
        return ctx.Error(kv.second, field,
                         "prices to 0 per GPU-hour: give purchase_usd, power_kw, "
                         "facility_usd_per_gpu_year or usd_per_gpu_hour");
      }
      model.SetModel(name, spec);
    }
  }
  return model;
}

}  // namespace

Result<CostModel> ParseCostModel(std::string_view yaml_text, std::string_view filename) {
  Ctx ctx{filename};
  STEWARD_ASSIGN_OR_RETURN(YAML::Node root, model::LoadYamlDocument(yaml_text, filename));
  try {
    return ParseRoot(ctx, root);
  } catch (const YAML::Exception& e) {
    // Conversions of keys (e.g. a map used as a key) throw; keep the position.
    return MakeInputError(filename, e.mark.line + 1, e.mark.column + 1, "", e.msg);
  }
}

Result<CostModel> LoadCostModel(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(fmt::format("{}: cannot open cost model", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseCostModel(ss.str(), path.string());
}

}  // namespace steward::cost

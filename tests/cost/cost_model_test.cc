#include "cost/cost_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace steward::cost {
namespace {

using ::testing::HasSubstr;

TEST(CostModelTest, DefaultH100PriceIsAmortizedPlusPowerPlusFacility) {
  const CostModel m = CostModel::Default();
  // 30000 / (4 * 8760) + 1.275 kW * 1.3 * 0.10 $/kWh + 1500 / 8760.
  const double expected = 30000.0 / 35040.0 + 1.275 * 1.3 * 0.10 + 1500.0 / 8760.0;
  EXPECT_NEAR(m.UsdPerGpuHour("H100"), expected, 1e-12);
  EXPECT_NEAR(m.UsdPerGpuHour("H100"), 1.19315, 1e-5);
  const GpuHourPrice p = PriceOf(m.models().at("H100"), 8760);
  EXPECT_NEAR(p.capital, 0.856164, 1e-6);
  EXPECT_NEAR(p.energy, 0.16575, 1e-9);
  EXPECT_NEAR(p.facility, 0.171233, 1e-6);
}

TEST(CostModelTest, UnknownModelPaysFallbackAndNamesAreCaseInsensitive) {
  const CostModel m = CostModel::Default();
  EXPECT_DOUBLE_EQ(m.UsdPerGpuHour("B200"), 0.95);
  EXPECT_FALSE(m.HasModel("B200"));
  EXPECT_TRUE(m.HasModel("h100"));
  EXPECT_DOUBLE_EQ(m.UsdPerGpuHour("h100"), m.UsdPerGpuHour("H100"));
}

TEST(CostModelTest, ShippedExampleEqualsBuiltInDefault) {
  auto loaded = LoadCostModel(std::string(STEWARD_SOURCE_DIR) + "/examples/cost/cost-model.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const CostModel d = CostModel::Default();
  ASSERT_EQ(loaded->models().size(), d.models().size());
  for (const auto& [name, spec] : d.models()) {
    ASSERT_TRUE(loaded->HasModel(name)) << name;
    EXPECT_DOUBLE_EQ(loaded->UsdPerGpuHour(name), d.UsdPerGpuHour(name)) << name;
  }
  EXPECT_DOUBLE_EQ(loaded->fallback_usd_per_gpu_hour(), d.fallback_usd_per_gpu_hour());
  EXPECT_DOUBLE_EQ(loaded->hours_per_year(), d.hours_per_year());
  EXPECT_EQ(loaded->currency(), "USD");
}

TEST(CostModelTest, DefaultsApplyAndModelsOverride) {
  auto m = ParseCostModel(R"(
defaults: {amortization_years: 5, pue: 1.5, usd_per_kwh: 0.2}
gpu_models:
  A:
    purchase_usd: 43800
    power_kw: 1
    pue: 1.0
  B:
    usd_per_gpu_hour: 3.5
)",
                          "m.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  // 43800 / (5 * 8760) = 1.0 capital; 1 kW * 1.0 * 0.2 = 0.2 energy.
  EXPECT_NEAR(m->UsdPerGpuHour("A"), 1.2, 1e-12);
  EXPECT_DOUBLE_EQ(m->UsdPerGpuHour("B"), 3.5);
}

struct BadCase {
  const char* name;
  const char* yaml;
  const char* message;
};

class CostModelErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(CostModelErrorTest, NamesFileLineAndField) {
  auto m = ParseCostModel(GetParam().yaml, "bad.yaml");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CostModelErrorTest,
    ::testing::Values(
        BadCase{"UnknownField", "gpu_models:\n  H100:\n    purchase: 1\n",
                "bad.yaml:3:5: gpu_models.H100.purchase: unknown field"},
        BadCase{"NotANumber", "gpu_models:\n  H100:\n    power_kw: lots\n",
                "bad.yaml:3:15: gpu_models.H100.power_kw: must be a number"},
        BadCase{"Negative", "gpu_models:\n  H100:\n    purchase_usd: -5\n",
                "bad.yaml:3:19: gpu_models.H100.purchase_usd: must be >= 0"},
        BadCase{"PueBelowOne", "defaults:\n  pue: 0.9\n",
                "bad.yaml:2:8: defaults.pue: must be >= 1"},
        BadCase{"ZeroPrice", "gpu_models:\n  H100:\n    power_kw: 0\n",
                "bad.yaml:3:5: gpu_models.H100: prices to 0 per GPU-hour"},
        BadCase{"ZeroFallback", "fallback_usd_per_gpu_hour: 0\n",
                "bad.yaml:1:28: fallback_usd_per_gpu_hour: must be > 0"},
        BadCase{"UnknownTop", "gpus: {}\n", "bad.yaml:1:1: gpus: unknown field"},
        BadCase{"Duplicate",
                "gpu_models:\n  H100: {usd_per_gpu_hour: 1}\n  h100: {usd_per_gpu_hour: 2}\n",
                "bad.yaml:3:3: gpu_models.h100: duplicate GPU model"},
        BadCase{"BrokenYaml", "gpu_models:\n  H100: [1\n", "bad.yaml:3:"},
        BadCase{"Empty", "", "empty cost model"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(CostModelTest, MissingFileIsNotFound) {
  auto m = LoadCostModel("/nonexistent/cost.yaml");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace steward::cost

// The tidal controller's decisions by hand: reserve, what serving keeps, what may be lent,
// which borrowers give GPUs back.
#include "tidal/lend_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace steward::tidal {
namespace {

ServiceDemand Service(std::string name, int gpus, int desired, std::optional<double> forecast,
                      int max_replicas) {
  ServiceDemand s;
  s.name = std::move(name);
  s.gpus_per_replica = gpus;
  s.desired = desired;
  s.forecast = forecast;
  s.min_replicas = 1;
  s.max_replicas = max_replicas;
  return s;
}

TEST(LendPlanTest, HpaStepReserveIsOneScaleUpStepCappedAtMax) {
  const ServiceDemand s = Service("chat", 2, 0, 0.0, 24);
  EXPECT_EQ(HpaStepReserve(s, 7), 7);   // max(4, 100 % of 7).
  EXPECT_EQ(HpaStepReserve(s, 2), 4);   // max(4 pods, 2).
  EXPECT_EQ(HpaStepReserve(s, 20), 4);  // Only 4 left to max_replicas.
  EXPECT_EQ(HpaStepReserve(s, 24), 0);
}

TEST(LendPlanTest, ServingKeepsForecastOrDesiredPlusReserve) {
  std::vector<ServiceDemand> services = {Service("chat", 2, 5, 6.2, 24),
                                         Service("embed", 1, 12, 10.0, 32)};
  // chat: base max(5, ceil 6.2) = 7, + 7 = 14 replicas x 2 GPUs = 28; embed: base 12, + 12 =
  // 24 x 1 = 24.
  EXPECT_EQ(ServingNeed(services, -1), 52);
  // A fixed reserve of 8 GPUs instead: 7 x 2 + 12 + 8.
  EXPECT_EQ(ServingNeed(services, 8), 34);
  services[1].forecast.reset();
  EXPECT_EQ(ServingNeed(services, -1), std::nullopt);  // No forecast, no lending.
}

TEST(LendPlanTest, LendsWholeNodesAndNeverBelowTheNeed) {
  EXPECT_EQ(LendTarget(96, 52, 8), 40);
  EXPECT_EQ(LendTarget(96, 88, 8), 8);
  EXPECT_EQ(LendTarget(96, 90, 8), 0);  // 6 spare GPUs are not a node.
  EXPECT_EQ(LendTarget(96, 120, 8), 0);
  for (int need = 0; need <= 100; ++need) {
    const int lent = LendTarget(96, need, 8);
    EXPECT_GE(96 - lent, std::min(need, 96)) << need;  // All of it when it needs more.
    EXPECT_EQ(lent % 8, 0) << need;
  }
}

TEST(LendPlanTest, VictimsByLeastLostWorkWithFillBack) {
  const std::vector<Borrower> b = {{"training/a", 8, true, 8 * 10 / 60.0},
                                   {"training/b", 16, true, 16 * 10 / 60.0},
                                   {"training/c", 8, false, 8 * 24.0}};
  // 8 GPUs: a (cheapest per GPU, first by name among equals).
  EXPECT_EQ(ChooseVictims(b, 8), (std::vector<size_t>{0}));
  // 16: a then b (24); a's 8 are then not needed: b alone.
  EXPECT_EQ(ChooseVictims(b, 16), (std::vector<size_t>{1}));
  // 20: a and b; the one that cannot checkpoint stays.
  EXPECT_EQ(ChooseVictims(b, 20), (std::vector<size_t>{0, 1}));
  // More than all of them hold: everything, the expensive one last.
  EXPECT_EQ(ChooseVictims(b, 40), (std::vector<size_t>{0, 1, 2}));
  EXPECT_TRUE(ChooseVictims(b, 0).empty());
}

}  // namespace
}  // namespace steward::tidal

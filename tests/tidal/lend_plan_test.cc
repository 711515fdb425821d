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

Borrower Job(std::string name, int gpus, double lost_per_gpu, int shrinkable = 0,
             int per_worker = 0) {
  Borrower b;
  b.workload = std::move(name);
  b.gpus = gpus;
  b.lost_gpu_hours = gpus * lost_per_gpu;
  b.shrinkable_workers = shrinkable;
  b.gpus_per_worker = per_worker;
  return b;
}

TEST(LendPlanTest, WithoutElasticBorrowersTheReclaimIsChooseVictims) {
  const std::vector<Borrower> b = {Job("a", 8, 0.2), Job("b", 16, 0.1), Job("c", 8, 24)};
  const ReclaimPlan p = PlanReclaim(b, 20);
  EXPECT_TRUE(p.shrinks.empty());
  EXPECT_EQ(p.evictions, ChooseVictims(b, 20));
  EXPECT_EQ(p.evictions, (std::vector<size_t>{1, 0}));  // 0.1/GPU first, then 0.2/GPU.
  EXPECT_EQ(p.freed, 24);
}

TEST(LendPlanTest, ElasticBorrowersShrinkBeforeAnyoneIsEvicted) {
  // e1: 4 workers of 8 GPUs, min 1 (24 GPUs shrinkable); e2: 4 of 4, min 2 (8 shrinkable);
  // f: fixed 8 GPUs that loses the least per GPU (it would be the first victim otherwise).
  const std::vector<Borrower> b = {Job("e1", 32, 0.2, 3, 8), Job("e2", 16, 0.2, 2, 4),
                                   Job("f", 8, 0.05)};
  // 20 GPUs: e1 gives the most, so it goes first: ceil(20 / 8) = 3 workers = 24 GPUs.
  ReclaimPlan p = PlanReclaim(b, 20);
  EXPECT_TRUE(p.evictions.empty());
  ASSERT_EQ(p.shrinks.size(), 1u);
  EXPECT_EQ(p.shrinks[0].borrower, 0u);
  EXPECT_EQ(p.shrinks[0].drop_workers, 3);
  EXPECT_EQ(p.freed, 24);
  // 30 GPUs: e1 drops all 3 (24), e2 the 2 workers that cover the last 6 (8 GPUs): 32.
  p = PlanReclaim(b, 30);
  EXPECT_TRUE(p.evictions.empty());
  ASSERT_EQ(p.shrinks.size(), 2u);
  EXPECT_EQ(p.shrinks[0].borrower, 0u);
  EXPECT_EQ(p.shrinks[0].drop_workers, 3);
  EXPECT_EQ(p.shrinks[1].borrower, 1u);
  EXPECT_EQ(p.shrinks[1].drop_workers, 2);
  EXPECT_EQ(p.freed, 32);
}

TEST(LendPlanTest, EvictsWholeOnlyWhatShrinkingCannotFree) {
  const std::vector<Borrower> b = {Job("e1", 32, 0.2, 3, 8), Job("e2", 16, 0.2, 2, 4),
                                   Job("f", 8, 0.05)};
  // 36 GPUs: shrinking frees 32 at most, so 4 more by eviction: over the borrowers at their
  // minimum (e1 8, e2 8, f 8 GPUs), the cheapest per GPU is f. f goes whole (8), and the
  // shrinks cover the other 28: e1 3 workers (24), e2 1 worker (4).
  ReclaimPlan p = PlanReclaim(b, 36);
  EXPECT_EQ(p.evictions, (std::vector<size_t>{2}));
  ASSERT_EQ(p.shrinks.size(), 2u);
  EXPECT_EQ(p.shrinks[0].drop_workers, 3);
  EXPECT_EQ(p.shrinks[1].borrower, 1u);
  EXPECT_EQ(p.shrinks[1].drop_workers, 1);
  EXPECT_EQ(p.freed, 36);
  // More than all of them hold: everything is freed, as ChooseVictims does.
  p = PlanReclaim(b, 100);
  EXPECT_EQ(p.freed, 56);
}

}  // namespace
}  // namespace steward::tidal

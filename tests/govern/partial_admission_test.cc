// Partial admission (govern/partial_admission.h): the reduced counts, the binary search over
// them and the nomination on an engine, each expectation worked out by hand.
#include "govern/partial_admission.h"

#include <gtest/gtest.h>

#include <vector>

#include "test_util.h"

namespace steward::govern {
namespace {

using testing::MustAdmit;
using testing::MustEngine;
using testing::TwoTeams;
using testing::WorkloadBuilder;

std::vector<int32_t> V(std::initializer_list<int32_t> v) { return v; }

TEST(PartialAdmissionTest, DroppablePodsCountOnlySetsWithAMinimum) {
  EXPECT_EQ(DroppablePods(V({10, 20, 7}), V({5, 10, -1})), 15);  // (10-5) + (20-10).
  EXPECT_EQ(DroppablePods(V({4}), V({4})), 0);                   // min = count: nothing.
  EXPECT_FALSE(HasPartialAdmission(V({-1, -1})));
  EXPECT_TRUE(HasPartialAdmission(V({-1, 0})));  // minCount 0 is a minimum (drop the set).
}

// Counts [10, 20], minimums [5, 10]: D = 15 droppable pods, 5 of set 0 and 10 of set 1.
// Keeping k of them gives set 0  5 + floor(5k/15)  and set 1  10 + floor(10k/15); the set
// without a minimum keeps its 7.
TEST(PartialAdmissionTest, ReducedCountsDropInProportionToWhatEachSetMayDrop) {
  const auto counts = V({10, 20, 7}), mins = V({5, 10, -1});
  EXPECT_EQ(ReducedCounts(counts, mins, 0), V({5, 10, 7}));
  EXPECT_EQ(ReducedCounts(counts, mins, 15), V({10, 20, 7}));
  EXPECT_EQ(ReducedCounts(counts, mins, 7), V({7, 14, 7}));  // 5 + 35/15 = 7, 10 + 70/15 = 14.
  EXPECT_EQ(ReducedCounts(counts, mins, 5), V({6, 13, 7}));  // 5 + 25/15 = 6, 10 + 50/15 = 13.
}

// "At most 20 pods in sets 0 and 1" over the counts above. Totals by k: 15 + floor(5k/15) +
// floor(10k/15): k=3 → 18, k=5 → 19, k=6 → 21, k=7 → 21. The search over [0, 14] probes
// 7 (21, no), 3 (18, yes), 5 (19, yes), 6 (21, no): the answer is 5, in four probes.
TEST(PartialAdmissionTest, SearchFindsTheMostPodsThatAreAdmissible) {
  const auto counts = V({10, 20}), mins = V({5, 10});
  std::vector<int64_t> probes;
  auto keep = SearchKept(counts, mins, [&](int64_t k) {
    probes.push_back(k);
    const std::vector<int32_t> c = ReducedCounts(counts, mins, k);
    return c[0] + c[1] <= 20;
  });
  ASSERT_TRUE(keep.has_value());
  EXPECT_EQ(*keep, 5);
  EXPECT_EQ(ReducedCounts(counts, mins, *keep), V({6, 13}));
  EXPECT_EQ(probes, (std::vector<int64_t>{7, 3, 5, 6}));
}

TEST(PartialAdmissionTest, SearchFindsNothingWhenEvenTheMinimumIsNotAdmissible) {
  int probes = 0;
  // D = 3: probes 1 then 0 (the minimum), both refused.
  EXPECT_FALSE(SearchKept(V({4}), V({1}), [&](int64_t) { return ++probes, false; }).has_value());
  EXPECT_EQ(probes, 2);
  // Nothing to drop: no probe at all.
  EXPECT_FALSE(SearchKept(V({4}), V({4}), [&](int64_t) { return ++probes, true; }).has_value());
  EXPECT_EQ(probes, 2);
}

TEST(PartialAdmissionTest, AdmissibleMeansFitsOrPreemptsWithVictims) {
  Decision d;
  d.mode = AdmissionMode::kFit;
  EXPECT_TRUE(Admissible(d));
  d.mode = AdmissionMode::kNeedsPreemption;
  EXPECT_FALSE(Admissible(d));  // Preemption without candidates.
  d.victims.push_back({});
  EXPECT_TRUE(Admissible(d));
  d.mode = AdmissionMode::kNoFit;
  EXPECT_FALSE(Admissible(d));
}

// team-a: 6 GPUs nominal, team-b: 0, so nothing to borrow. w1 holds 2; w2 asks 4 pods x 2 GPUs
// with minCount 2: 8 > the 4 free. D = 2: keep 0 → 2 pods (4 GPUs, fits), keep 1 → 3 pods
// (6 GPUs, no): admitted with 2 pods, 4 GPUs.
TEST(PartialAdmissionTest, NominationReducesToTheMostPodsThatFit) {
  auto e = MustEngine(TwoTeams(6, 0, "", "{}"));
  MustAdmit(*e, WorkloadBuilder(1, "team-a").Gpus(2));
  const WorkloadRequest w2 = WorkloadBuilder(2, "team-a").Gpus(2, 4);
  Nomination n = NominateWithPartialAdmission(*e, w2, V({2}), kSimStart);
  EXPECT_TRUE(n.reduced);
  EXPECT_EQ(n.decision.mode, AdmissionMode::kFit) << n.decision.Message();
  ASSERT_EQ(n.request.pod_sets.size(), 1u);
  EXPECT_EQ(n.request.pod_sets[0].count, 2);
  ASSERT_EQ(n.decision.assignments.size(), 1u);
  EXPECT_EQ(n.decision.assignments[0].amount, 4);
  ASSERT_TRUE(e->Admit(n.request, n.decision, kSimStart).ok());
  EXPECT_EQ(e->Usage("team-a", "h100", "nvidia.com/gpu"), 6);

  // Without a minimum: all or nothing, the full request's decision, counts untouched.
  auto e2 = MustEngine(TwoTeams(6, 0, "", "{}"));
  MustAdmit(*e2, WorkloadBuilder(1, "team-a").Gpus(2));
  Nomination full = NominateWithPartialAdmission(*e2, w2, V({-1}), kSimStart);
  EXPECT_FALSE(full.reduced);
  EXPECT_NE(full.decision.mode, AdmissionMode::kFit);
  EXPECT_EQ(full.request.pod_sets[0].count, 4);

  // The full request fits: no search, not reduced.
  auto e3 = MustEngine(TwoTeams(8, 0, "", "{}"));
  Nomination fits = NominateWithPartialAdmission(*e3, w2, V({2}), kSimStart);
  EXPECT_FALSE(fits.reduced);
  EXPECT_EQ(fits.decision.mode, AdmissionMode::kFit);
  EXPECT_EQ(fits.request.pod_sets[0].count, 4);
}

// A reduced request that needs preemption and finds victims is admissible (Kueue's search
// accepts it). team-a: 6 GPUs; w1 (priority 0) and w2 (priority 100) hold 2 each; w3 (priority
// 50) asks 4 x 2 GPUs, minCount 1, so D = 3. keep 1 → 1 + 3/3 = 2 pods (4 GPUs): preempting w1
// frees enough, admissible; keep 2 → 3 pods (6 GPUs) would need w2 too, which has a higher
// priority: not admissible. Nominated with 2 pods and w1 as its victim.
TEST(PartialAdmissionTest, ReducedRequestThatPreemptsIsAdmissible) {
  EngineOptions o;
  o.enforce_tiers = false;
  o.victim_ordering = "kueue-classic";
  auto e = MustEngine(TwoTeams(6, 0, "", "{withinClusterQueue: LowerPriority}"), o);
  MustAdmit(*e, WorkloadBuilder(1, "team-a").Gpus(2).Priority(0));
  MustAdmit(*e, WorkloadBuilder(2, "team-a").Gpus(2).Priority(100));
  const WorkloadRequest w3 = WorkloadBuilder(3, "team-a").Gpus(2, 4).Priority(50);
  Nomination n = NominateWithPartialAdmission(*e, w3, V({1}), kSimStart);
  EXPECT_TRUE(n.reduced);
  EXPECT_EQ(n.request.pod_sets[0].count, 2);
  EXPECT_EQ(n.decision.mode, AdmissionMode::kNeedsPreemption) << n.decision.Message();
  ASSERT_EQ(n.decision.victims.size(), 1u);
  EXPECT_EQ(n.decision.victims[0].workload_id, 1);
}

}  // namespace
}  // namespace steward::govern

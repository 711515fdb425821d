// Admission, flavor assignment, preemption and pending reasons, each against a hand-computed
// expectation. Quantities: GPUs as counts.
#include "govern/governance_engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace steward::govern {
namespace {

using testing::At;
using ::testing::ElementsAre;
using testing::MustAdmit;
using testing::MustEngine;
using testing::TwoTeams;
using ::testing::UnorderedElementsAre;
using testing::WorkloadBuilder;

std::vector<int64_t> VictimIds(const Decision& d) {
  std::vector<int64_t> ids;
  for (const auto& v : d.victims) ids.push_back(v.workload_id);
  return ids;
}

bool HasReason(const Decision& d, PendingReason r) {
  for (const auto& p : d.reasons)
    if (p.reason == r) return true;
  return false;
}

const PendingDetail* Reason(const Decision& d, PendingReason r) {
  for (const auto& p : d.reasons)
    if (p.reason == r) return &p;
  return nullptr;
}

constexpr const char* kTwoFlavors = R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: a100}
spec: {nodeLabels: {gpu: a100}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: h100}
spec: {nodeLabels: {gpu: h100}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: a100
      resources: [{name: nvidia.com/gpu, nominalQuota: 4}]
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: 8}]
)";

TEST(EngineTest, FlavorsAreTriedInListOrder) {
  auto e = MustEngine(kTwoFlavors);
  auto w1 = WorkloadBuilder(1, "cq").Gpus(4);
  Decision d = e->TryAdmit(w1, kSimStart);
  ASSERT_EQ(d.mode, AdmissionMode::kFit);
  EXPECT_EQ(d.assignments[0].flavor, "a100");
  ASSERT_TRUE(e->Admit(w1, d, kSimStart).ok());
  auto w2 = WorkloadBuilder(2, "cq").Gpus(4);
  d = e->TryAdmit(w2, kSimStart);
  ASSERT_EQ(d.mode, AdmissionMode::kFit);
  EXPECT_EQ(d.assignments[0].flavor, "h100");  // a100 is full.
  ASSERT_TRUE(e->Admit(w2, d, kSimStart).ok());
  EXPECT_EQ(e->Usage("cq", "a100", "nvidia.com/gpu"), 4);
  EXPECT_EQ(e->Usage("cq", "h100", "nvidia.com/gpu"), 4);
  // 8 more: a100 can never hold 8 (max 4); h100 has 4 left.
  d = e->TryAdmit(WorkloadBuilder(3, "cq").Gpus(8), kSimStart);
  EXPECT_EQ(d.mode, AdmissionMode::kNoFit);
  const PendingDetail* max = Reason(d, PendingReason::kExceedsMaxQuota);
  ASSERT_NE(max, nullptr);
  EXPECT_EQ(max->flavor, "a100");
  EXPECT_EQ(max->needed, 8);
  EXPECT_EQ(max->limit, 4);
  const PendingDetail* quota = Reason(d, PendingReason::kQuotaExhausted);
  ASSERT_NE(quota, nullptr);
  EXPECT_EQ(quota->flavor, "h100");
  EXPECT_EQ(quota->needed, 8);
  EXPECT_EQ(quota->available, 4);
  EXPECT_THAT(quota->message, ::testing::HasSubstr("4 more needed"));
}

TEST(EngineTest, NodeSelectorRestrictsFlavors) {
  auto e = MustEngine(kTwoFlavors);
  Decision d = e->TryAdmit(WorkloadBuilder(1, "cq").Gpus(2).Selector("gpu", "h100"), kSimStart);
  ASSERT_EQ(d.mode, AdmissionMode::kFit);
  EXPECT_EQ(d.assignments[0].flavor, "h100");
  // A key no flavor labels is not compared (Kueue only evaluates the flavor's label keys).
  d = e->TryAdmit(WorkloadBuilder(2, "cq").Gpus(2).Selector("zone", "x"), kSimStart);
  EXPECT_EQ(d.assignments[0].flavor, "a100");
  d = e->TryAdmit(WorkloadBuilder(3, "cq").Gpus(2).Selector("gpu", "v100"), kSimStart);
  EXPECT_EQ(d.mode, AdmissionMode::kNoFit);
  EXPECT_EQ(d.primary_reason(), PendingReason::kNoMatchingFlavor);
}

TEST(EngineTest, UntoleratedTaintSkipsFlavor) {
  auto e = MustEngine(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: spot}
spec:
  nodeTaints: [{key: spot, value: "true", effect: NoSchedule}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: ondemand}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - {name: spot, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}
    - {name: ondemand, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}
)");
  EXPECT_EQ(e->TryAdmit(WorkloadBuilder(1, "cq").Gpus(1), kSimStart).assignments[0].flavor,
            "ondemand");
  EXPECT_EQ(e->TryAdmit(WorkloadBuilder(2, "cq").Gpus(1).Tolerate("spot"), kSimStart)
                .assignments[0]
                .flavor,
            "spot");
}

// team-a: h100 nominal 2 (then a100 nominal 4); team-b: h100 nominal 6. Asking 4 GPUs:
// MayStopSearch takes h100 by borrowing 2; TryNextFlavor goes on to a100 (no borrowing).
TEST(EngineTest, FlavorFungibilityWhenCanBorrow) {
  for (const char* policy : {"MayStopSearch", "TryNextFlavor"}) {
    auto e = MustEngine(std::string(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: h100}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: a100}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-a}
spec:
  cohort: org
  namespaceSelector: {}
  flavorFungibility: {whenCanBorrow: )") +
                        policy + R"(}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - {name: h100, resources: [{name: nvidia.com/gpu, nominalQuota: 2}]}
    - {name: a100, resources: [{name: nvidia.com/gpu, nominalQuota: 4}]}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-b}
spec:
  cohort: org
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - {name: h100, resources: [{name: nvidia.com/gpu, nominalQuota: 6}]}
)");
    Decision d = e->TryAdmit(WorkloadBuilder(1, "team-a").Gpus(4), kSimStart);
    ASSERT_EQ(d.mode, AdmissionMode::kFit) << policy;
    if (std::string(policy) == "MayStopSearch") {
      EXPECT_EQ(d.assignments[0].flavor, "h100");
      EXPECT_TRUE(d.borrows);
      EXPECT_EQ(d.borrowing_level, 1);
    } else {
      EXPECT_EQ(d.assignments[0].flavor, "a100");
      EXPECT_FALSE(d.borrows);
      EXPECT_EQ(d.borrowing_level, 0);
    }
  }
}

TEST(EngineTest, GangPodSetsAreAdmittedTogetherOrNotAtAll) {
  auto e = MustEngine(TwoTeams(10, 0, "", "{}"));
  // 2 pods x 2 GPUs + 1 pod x 8 GPUs = 12 > the cohort's 10: nothing is reserved.
  auto w = WorkloadBuilder(1, "team-a").Gpus(2, 2).Gpus(8, 1);
  Decision d = e->TryAdmit(w, kSimStart);
  EXPECT_EQ(d.mode, AdmissionMode::kNoFit);
  const PendingDetail* p = Reason(d, PendingReason::kExceedsMaxQuota);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->pod_set, "ps1");
  EXPECT_EQ(p->needed, 12);  // Earlier pod sets of the same workload count on the flavor.
  EXPECT_EQ(p->limit, 10);
  EXPECT_FALSE(e->Admit(w, d, kSimStart).ok());
  EXPECT_EQ(e->Usage("team-a", "h100", "nvidia.com/gpu"), 0);
  auto small = WorkloadBuilder(2, "team-a").Gpus(2, 1).Gpus(8, 1);
  MustAdmit(*e, small);
  EXPECT_EQ(e->Usage("team-a", "h100", "nvidia.com/gpu"), 10);
  ASSERT_TRUE(e->Release(2).ok());
  EXPECT_EQ(e->Usage("team-a", "h100", "nvidia.com/gpu"), 0);
}

TEST(EngineTest, PendingReasonsBeforeQuota) {
  auto e = MustEngine(std::string(TwoTeams(4, 4, "", "{}")) + R"(
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: held}
spec:
  namespaceSelector: {}
  stopPolicy: Hold
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: h100, resources: [{name: nvidia.com/gpu, nominalQuota: 4}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: broken}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: missing, resources: [{name: nvidia.com/gpu, nominalQuota: 4}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: closed}
spec:
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: h100, resources: [{name: nvidia.com/gpu, nominalQuota: 4}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: main, namespace: team-a}
spec: {clusterQueue: team-a}
)");
  struct Case {
    const char* name;
    WorkloadRequest req;
    AdmissionMode mode;
    PendingReason reason;
  };
  auto base = [](const char* cq) { return WorkloadBuilder(1, cq).Gpus(1).Build(); };
  WorkloadRequest inactive = base("team-a");
  inactive.active = false;
  WorkloadRequest no_lq = WorkloadBuilder(1, "").Gpus(1).Namespace("team-a", "nope").Build();
  WorkloadRequest via_lq = WorkloadBuilder(1, "").Gpus(1).Namespace("team-a", "main").Build();
  WorkloadRequest gang = base("team-a");
  gang.min_member = 4;
  gang.available_pods = 3;
  WorkloadRequest backoff = base("team-a");
  backoff.requeue_at = At(120);
  WorkloadRequest cpu = WorkloadBuilder(1, "team-a").Gpus(1).Cpu(1000).Build();
  const Case cases[] = {
      {"deactivated", inactive, AdmissionMode::kNoFit, PendingReason::kDeactivated},
      {"no local queue", no_lq, AdmissionMode::kNoFit, PendingReason::kLocalQueueNotFound},
      {"via local queue", via_lq, AdmissionMode::kFit, PendingReason::kNone},
      {"no cluster queue", base("ghost"), AdmissionMode::kNoFit,
       PendingReason::kClusterQueueNotFound},
      {"stopped", base("held"), AdmissionMode::kNoFit, PendingReason::kQueueStopped},
      {"flavor missing", base("broken"), AdmissionMode::kNoFit, PendingReason::kQueueInactive},
      {"null namespaceSelector", base("closed"), AdmissionMode::kNoFit,
       PendingReason::kNamespaceMismatch},
      {"gang incomplete", gang, AdmissionMode::kNoFit, PendingReason::kGangIncomplete},
      {"backoff", backoff, AdmissionMode::kDeferred, PendingReason::kWaitingForBackoff},
      {"uncovered resource", cpu, AdmissionMode::kNoFit, PendingReason::kResourceNotCovered},
  };
  for (const auto& c : cases) {
    Decision d = e->TryAdmit(c.req, At(60));
    EXPECT_EQ(d.mode, c.mode) << c.name << ": " << d.Message();
    EXPECT_EQ(d.primary_reason(), c.reason) << c.name << ": " << d.Message();
  }
  Decision d = e->TryAdmit(backoff, At(60));
  EXPECT_EQ(d.retry_at, At(120));
  d = e->TryAdmit(gang, At(60));
  EXPECT_EQ(d.reasons[0].needed, 4);
  EXPECT_EQ(d.reasons[0].available, 3);
  e->SetAdmissionBlocked(true);
  d = e->TryAdmit(base("team-a"), At(60));
  EXPECT_EQ(d.mode, AdmissionMode::kDeferred);
  EXPECT_EQ(d.primary_reason(), PendingReason::kWaitingForPodsReady);
}

TEST(EngineTest, NamespaceSelectorUsesNamespaceLabels) {
  auto e = MustEngine(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: h100}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {matchLabels: {team: a}}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: h100, resources: [{name: nvidia.com/gpu, nominalQuota: 4}]}]
---
apiVersion: v1
kind: Namespace
metadata: {name: ns-a, labels: {team: a}}
)");
  WorkloadRequest r = WorkloadBuilder(1, "cq").Gpus(1).Build();
  r.namespace_name = "ns-a";
  EXPECT_EQ(e->TryAdmit(r, kSimStart).mode, AdmissionMode::kFit);
  r.namespace_name = "ns-b";
  EXPECT_EQ(e->TryAdmit(r, kSimStart).primary_reason(), PendingReason::kNamespaceMismatch);
}

TEST(EngineTest, BorrowingLimitIsNamedInReasons) {
  auto e = MustEngine(TwoTeams(4, 4, ", borrowingLimit: 2", "{}"));
  EXPECT_EQ(e->MaxUsable("team-a", "h100", "nvidia.com/gpu"), 6);
  EXPECT_EQ(e->MaxUsable("team-b", "h100", "nvidia.com/gpu"), 8);
  // 7 > max 6, but the cohort could hold 8: the borrowing limit is the cap.
  Decision d = e->TryAdmit(WorkloadBuilder(1, "team-a").Gpus(7), kSimStart);
  EXPECT_EQ(d.primary_reason(), PendingReason::kBorrowingLimit);
  EXPECT_EQ(d.reasons[0].limit, 6);
  d = e->TryAdmit(WorkloadBuilder(2, "team-a").Gpus(9), kSimStart);
  EXPECT_EQ(d.primary_reason(), PendingReason::kExceedsMaxQuota);
  MustAdmit(*e, WorkloadBuilder(3, "team-a").Gpus(6));
  // Cohort has 2 free, team-a may borrow no more.
  d = e->TryAdmit(WorkloadBuilder(4, "team-a").Gpus(1), kSimStart);
  EXPECT_EQ(d.primary_reason(), PendingReason::kBorrowingLimit);
  EXPECT_EQ(d.reasons[0].available, 0);
  EXPECT_EQ(e->TryAdmit(WorkloadBuilder(5, "team-b").Gpus(2), kSimStart).mode, AdmissionMode::kFit);
}

// Own-queue preemption: nominal 8 full with w1 (prio 1, 2 GPUs), w2 (prio 2, 4), w3 (prio 3,
// 2). A prio-10 workload needing 4: Kueue order tries w1 then w2 (fits, 6 free), and fill-back
// returns w1 (w1 back still leaves 4 free). Target: w2 only.
TEST(EngineTest, WithinClusterQueuePreemptionIsMinimal) {
  EngineOptions o;
  o.victim_ordering = "kueue-classic";
  auto e = MustEngine(TwoTeams(8, 0, "", "{withinClusterQueue: LowerPriority}"), o);
  MustAdmit(*e, WorkloadBuilder(1, "team-a").Gpus(2).Priority(1), At(0));
  MustAdmit(*e, WorkloadBuilder(2, "team-a").Gpus(4).Priority(2), At(10));
  MustAdmit(*e, WorkloadBuilder(3, "team-a").Gpus(2).Priority(3), At(20));
  Decision d = e->TryAdmit(WorkloadBuilder(4, "team-a").Gpus(4).Priority(10), At(30));
  ASSERT_EQ(d.mode, AdmissionMode::kNeedsPreemption) << d.Message();
  EXPECT_THAT(VictimIds(d), ElementsAre(2));
  EXPECT_EQ(d.victims[0].reason, PreemptionReason::kInClusterQueue);
  // Equal priority is never a victim under LowerPriority.
  d = e->TryAdmit(WorkloadBuilder(5, "team-a").Gpus(4).Priority(1), At(30));
  EXPECT_EQ(d.mode, AdmissionMode::kNoFit);
  EXPECT_EQ(d.primary_reason(), PendingReason::kQuotaExhausted);
  EXPECT_TRUE(HasReason(d, PendingReason::kNoPreemptionCandidates));
  // TryAdmit changed nothing.
  EXPECT_EQ(e->Usage("team-a", "h100", "nvidia.com/gpu"), 8);
}

TEST(EngineTest, LowerOrNewerEqualPriority) {
  auto e = MustEngine(TwoTeams(4, 0, "", "{withinClusterQueue: LowerOrNewerEqualPriority}"));
  MustAdmit(*e, WorkloadBuilder(1, "team-a").Gpus(4).Priority(5).QueuedAt(At(100)));
  // Same priority, queued earlier (t=50 < 100): may preempt; queued later: may not.
  Decision d =
      e->TryAdmit(WorkloadBuilder(2, "team-a").Gpus(4).Priority(5).QueuedAt(At(50)), At(200));
  EXPECT_EQ(d.mode, AdmissionMode::kNeedsPreemption);
  d = e->TryAdmit(WorkloadBuilder(3, "team-a").Gpus(4).Priority(5).QueuedAt(At(150)), At(200));
  EXPECT_EQ(d.mode, AdmissionMode::kNoFit);
}

// Case 2 at engine level: team-a borrowed team-b's idle quota overnight.
TEST(EngineTest, ReclaimWithinCohortTakesBackLentQuota) {
  for (const char* reclaim : {"Never", "Any"}) {
    auto e = MustEngine(TwoTeams(4, 4, "", std::string("{reclaimWithinCohort: ") + reclaim + "}"));
    for (int i = 1; i <= 8; ++i)
      MustAdmit(*e, WorkloadBuilder(i, "team-a").Gpus(1).Priority(1).Checkpoint(Minutes(30)),
                At(i));
    EXPECT_EQ(e->Usage("team-a", "h100", "nvidia.com/gpu"), 8);  // Borrowing 4.
    Decision d = e->TryAdmit(WorkloadBuilder(100, "team-b").Gpus(2).Priority(1), At(3600));
    if (std::string(reclaim) == "Never") {
      EXPECT_EQ(d.mode, AdmissionMode::kNoFit);
      EXPECT_EQ(d.primary_reason(), PendingReason::kQuotaExhausted);
      EXPECT_EQ(d.reasons[0].available, 0);
      EXPECT_EQ(d.reasons[0].limit, 4);  // Nominal.
    } else {
      ASSERT_EQ(d.mode, AdmissionMode::kNeedsPreemption) << d.Message();
      EXPECT_EQ(d.victims.size(), 2u);  // Minimal: 2 x 1 GPU.
      for (const auto& v : d.victims) {
        EXPECT_EQ(v.cluster_queue, "team-a");
        EXPECT_EQ(v.reason, PreemptionReason::kInCohortReclamation);
      }
      for (const auto& v : d.victims) ASSERT_TRUE(e->Release(v.workload_id).ok());
      EXPECT_EQ(e->TryAdmit(WorkloadBuilder(100, "team-b").Gpus(2).Priority(1), At(3600)).mode,
                AdmissionMode::kFit);
    }
    // Beyond its nominal team-b cannot reclaim without borrowWithinCohort.
    d = e->TryAdmit(WorkloadBuilder(101, "team-b").Gpus(5).Priority(1), At(3600));
    EXPECT_EQ(d.mode, AdmissionMode::kNoFit);
  }
}

// A queue at nominal is never a reclaim victim.
TEST(EngineTest, ReclaimNeverTakesFromQueueWithinNominal) {
  auto e = MustEngine(TwoTeams(4, 4, "", "{reclaimWithinCohort: Any}"));
  for (int i = 1; i <= 4; ++i) MustAdmit(*e, WorkloadBuilder(i, "team-a").Gpus(1).Priority(0));
  for (int i = 5; i <= 8; ++i) MustAdmit(*e, WorkloadBuilder(i, "team-b").Gpus(1).Priority(0));
  Decision d = e->TryAdmit(WorkloadBuilder(9, "team-b").Gpus(1).Priority(100), kSimStart);
  EXPECT_EQ(d.mode, AdmissionMode::kNoFit);
}

// Three queues of 4 (pool 12): team-a uses 8 (borrows 4), team-b 2. team-b wants 4 more (ends
// at 6, borrowing): only borrowWithinCohort lets it take 2 of team-a's borrowed GPUs.
TEST(EngineTest, BorrowWithinCohort) {
  struct Case {
    const char* preemption;
    AdmissionMode want;
    size_t victims;
  };
  const Case cases[] = {
      {"{reclaimWithinCohort: Any}", AdmissionMode::kNoFit, 0},
      {"{reclaimWithinCohort: Any, borrowWithinCohort: {policy: LowerPriority}}",
       AdmissionMode::kNeedsPreemption, 2},
      {"{reclaimWithinCohort: Any, borrowWithinCohort: {policy: LowerPriority, "
       "maxPriorityThreshold: 0}}",
       AdmissionMode::kNoFit, 0},
  };
  for (const auto& c : cases) {
    std::string yaml = TwoTeams(4, 4, "", c.preemption) + R"(---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-c}
spec:
  cohort: org
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: h100, resources: [{name: nvidia.com/gpu, nominalQuota: 4}]}]
)";
    auto e = MustEngine(yaml);
    for (int i = 1; i <= 8; ++i) MustAdmit(*e, WorkloadBuilder(i, "team-a").Gpus(1).Priority(1));
    MustAdmit(*e, WorkloadBuilder(9, "team-b").Gpus(2).Priority(1));
    Decision d = e->TryAdmit(WorkloadBuilder(10, "team-b").Gpus(4).Priority(10), kSimStart);
    EXPECT_EQ(d.mode, c.want) << c.preemption << ": " << d.Message();
    EXPECT_EQ(d.victims.size(), c.victims) << c.preemption;
    for (const auto& v : d.victims)
      EXPECT_EQ(v.reason, PreemptionReason::kInCohortReclaimWhileBorrowing);
  }
}

// The guide's tiers: production never, training only with checkpoints, dev always.
TEST(EngineTest, TiersDecideWhoMayBeAVictim) {
  struct Case {
    const char* name;
    model::Tier tier;
    SimDuration checkpoint;
    bool enforce;
    bool preemptible;
  };
  const Case cases[] = {
      {"production", model::Tier::kProduction, Minutes(10), true, false},
      {"training without checkpoints", model::Tier::kTraining, SimDuration(), true, false},
      {"training with checkpoints", model::Tier::kTraining, Minutes(10), true, true},
      {"dev", model::Tier::kDev, SimDuration(), true, true},
      {"production, tiers off (Kueue)", model::Tier::kProduction, SimDuration(), false, true},
  };
  for (const auto& c : cases) {
    EngineOptions o;
    o.enforce_tiers = c.enforce;
    auto e = MustEngine(TwoTeams(8, 0, "", "{withinClusterQueue: LowerPriority}"), o);
    MustAdmit(
        *e, WorkloadBuilder(1, "team-a").Gpus(8).Priority(1).Tier(c.tier).Checkpoint(c.checkpoint));
    Decision d = e->TryAdmit(WorkloadBuilder(2, "team-a").Gpus(4).Priority(10), At(60));
    EXPECT_EQ(d.mode == AdmissionMode::kNeedsPreemption, c.preemptible)
        << c.name << ": " << d.Message();
  }
}

// Nominal 16 full at t=0 with A (prio 1, 8 GPUs, checkpoint every hour) and B (prio 2, 8 GPUs,
// checkpoint every 10 min, 15 min restore). At t=2h30m A lost 30 min x 8 = 4 GPU-h, B lost
// 0 + 15 min x 8 = 2 GPU-h. Kueue's order takes A (lower priority); checkpoint-aware takes B.
TEST(EngineTest, CheckpointAwareOrderingMinimisesLostWork) {
  const SimTime now = At(9000);
  for (const char* ordering : {"kueue-classic", "checkpoint-aware", "largest-first"}) {
    EngineOptions o;
    o.victim_ordering = ordering;
    auto e = MustEngine(TwoTeams(16, 0, "", "{withinClusterQueue: LowerPriority}"), o);
    MustAdmit(*e,
              WorkloadBuilder(1, "team-a")
                  .Gpus(8)
                  .Priority(1)
                  .Tier(model::Tier::kTraining)
                  .Checkpoint(Hours(1)),
              At(0));
    MustAdmit(*e,
              WorkloadBuilder(2, "team-a")
                  .Gpus(8)
                  .Priority(2)
                  .Tier(model::Tier::kTraining)
                  .Checkpoint(Minutes(10), Minutes(15)),
              At(0));
    EXPECT_DOUBLE_EQ(e->LostGpuHours(*e->FindAdmitted(1), now), 4.0);
    EXPECT_DOUBLE_EQ(e->LostGpuHours(*e->FindAdmitted(2), now), 2.0);
    Decision d = e->TryAdmit(WorkloadBuilder(3, "team-a").Gpus(8).Priority(10), now);
    ASSERT_EQ(d.mode, AdmissionMode::kNeedsPreemption) << ordering;
    ASSERT_EQ(d.victims.size(), 1u);
    int64_t want = std::string(ordering) == "checkpoint-aware" ? 2 : 1;
    EXPECT_EQ(d.victims[0].workload_id, want) << ordering;
    EXPECT_EQ(e->victim_ordering_name(), ordering);
  }
  // A reported checkpoint overrides the derived one.
  auto e = MustEngine(TwoTeams(16, 0, "", "{withinClusterQueue: LowerPriority}"));
  MustAdmit(*e,
            WorkloadBuilder(1, "team-a").Gpus(8).Tier(model::Tier::kTraining).Checkpoint(Hours(1)));
  ASSERT_TRUE(e->ReportCheckpoint(1, At(8400)).ok());
  EXPECT_DOUBLE_EQ(e->LostGpuHours(*e->FindAdmitted(1), now), 8 * (600.0 / 3600));
  EXPECT_FALSE(NewVictimOrdering("nope").ok());
  EXPECT_THAT(NewVictimOrdering("nope").status().message(),
              ::testing::HasSubstr("checkpoint-aware"));
}

TEST(EngineTest, EvictingCandidatesGoFirst) {
  EngineOptions o;
  o.victim_ordering = "kueue-classic";
  auto e = MustEngine(TwoTeams(8, 0, "", "{withinClusterQueue: LowerPriority}"), o);
  MustAdmit(*e, WorkloadBuilder(1, "team-a").Gpus(4).Priority(1));
  MustAdmit(*e, WorkloadBuilder(2, "team-a").Gpus(4).Priority(5));
  ASSERT_TRUE(e->MarkEvicting(2).ok());
  Decision d = e->TryAdmit(WorkloadBuilder(3, "team-a").Gpus(4).Priority(10), At(1));
  EXPECT_THAT(VictimIds(d), ElementsAre(2));
}

// Fair sharing (DRS, S2-a then S2-b). Three queues of 4 (pool 12); team-a uses 9, team-b 3.
// team-b asking 3 ends at 6 (borrows 2: DRS 1000*2/12 = 166.7). team-a at 9 -> 8 -> 7 -> 6 has
// DRS-after 333, 250, 166.7, each >= 166.7, so S2-a accepts three victims.
TEST(EngineTest, FairSharingPreemption) {
  std::string yaml = TwoTeams(4, 4, "", "{reclaimWithinCohort: Any}") + R"(---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-c}
spec:
  cohort: org
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: h100, resources: [{name: nvidia.com/gpu, nominalQuota: 4}]}]
)";
  EngineOptions fs;
  fs.fair_sharing = true;
  auto e = MustEngine(yaml, fs);
  for (int i = 1; i <= 9; ++i) MustAdmit(*e, WorkloadBuilder(i, "team-a").Gpus(1));
  for (int i = 10; i <= 12; ++i) MustAdmit(*e, WorkloadBuilder(i, "team-b").Gpus(1));
  EXPECT_NEAR(e->DominantResourceShare(e->FindClusterQueue("team-a")), 1000.0 * 5 / 12, 1e-9);
  Decision d = e->TryAdmit(WorkloadBuilder(20, "team-b").Gpus(3), kSimStart);
  ASSERT_EQ(d.mode, AdmissionMode::kNeedsPreemption) << d.Message();
  EXPECT_EQ(d.victims.size(), 3u);
  for (const auto& v : d.victims) EXPECT_EQ(v.reason, PreemptionReason::kInCohortFairSharing);
  // Asking 4 (DRS 250) would push team-a to 5 (DRS 83): S2-a and S2-b refuse the third.
  d = e->TryAdmit(WorkloadBuilder(21, "team-b").Gpus(4), kSimStart);
  EXPECT_EQ(d.mode, AdmissionMode::kNoFit) << d.Message();
  // Classic preemption: team-b would borrow, borrowWithinCohort is Never: no candidates.
  auto classic = MustEngine(yaml);
  for (int i = 1; i <= 9; ++i) MustAdmit(*classic, WorkloadBuilder(i, "team-a").Gpus(1));
  for (int i = 10; i <= 12; ++i) MustAdmit(*classic, WorkloadBuilder(i, "team-b").Gpus(1));
  EXPECT_EQ(classic->TryAdmit(WorkloadBuilder(20, "team-b").Gpus(3), kSimStart).mode,
            AdmissionMode::kNoFit);
}

// Fair-sharing weights (queue-semantics.md §2.7): three queues of 4 GPUs in cohort org (12 in
// all, lendable 12). team-a holds 7 (borrows 3), team-b 5 (borrows 1), team-c 0 asks 2 within
// its nominal, so it takes victims unconditionally, from the queue with the highest DRS first.
// Weights 1/1: DRS(a) = 1000*3/12 = 250, DRS(b) = 1000*1/12 = 83.3 -> a; after one victim
// DRS(a) = 166.7 still > 83.3 -> a again: victims {a, a}. Weight 4 on team-a: DRS(a) =
// 250/4 = 62.5 < 83.3 -> b first; b then borrows nothing and is pruned -> a: victims {b, a}.
TEST(EngineTest, FairSharingWeightsChooseTheTargetQueue) {
  for (const std::string weight_a : {"1", "4"}) {
    std::string yaml = TwoTeams(4, 4, "", "{reclaimWithinCohort: Any}") + R"(---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-c}
spec:
  cohort: org
  namespaceSelector: {}
  preemption: {reclaimWithinCohort: Any}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: h100, resources: [{name: nvidia.com/gpu, nominalQuota: 4}]}]
)";
    const std::string marker = "metadata: {name: team-a}\nspec:\n";
    const size_t at = yaml.find(marker);
    ASSERT_NE(at, std::string::npos) << yaml;
    yaml.insert(at + marker.size(), "  fairSharing: {weight: \"" + weight_a + "\"}\n");
    EngineOptions fs;
    fs.fair_sharing = true;
    auto e = MustEngine(yaml, fs);
    for (int i = 1; i <= 7; ++i) MustAdmit(*e, WorkloadBuilder(i, "team-a").Gpus(1));
    for (int i = 10; i <= 14; ++i) MustAdmit(*e, WorkloadBuilder(i, "team-b").Gpus(1));
    EXPECT_NEAR(e->DominantResourceShare(e->FindClusterQueue("team-a")),
                1000.0 * 3 / 12 / std::stod(weight_a), 1e-9);
    EXPECT_NEAR(e->DominantResourceShare(e->FindClusterQueue("team-b")), 1000.0 / 12, 1e-9);
    Decision d = e->TryAdmit(WorkloadBuilder(20, "team-c").Gpus(2), kSimStart);
    ASSERT_EQ(d.mode, AdmissionMode::kNeedsPreemption) << d.Message();
    std::vector<std::string> queues;
    for (const auto& v : d.victims) queues.push_back(v.cluster_queue);
    std::sort(queues.begin(), queues.end());
    if (weight_a == "1") {
      EXPECT_THAT(queues, ElementsAre("team-a", "team-a")) << d.Message();
    } else {
      EXPECT_THAT(queues, ElementsAre("team-a", "team-b")) << d.Message();
    }
  }
}

TEST(EngineTest, AdmitAndReleaseKeepUsageExact) {
  auto e = MustEngine(TwoTeams(4, 4, "", "{}"));
  auto w = WorkloadBuilder(1, "team-a").Gpus(3);
  Decision d = e->TryAdmit(w, kSimStart);
  ASSERT_TRUE(e->Admit(w, d, kSimStart).ok());
  EXPECT_FALSE(e->Admit(w, d, kSimStart).ok());  // Already admitted.
  EXPECT_EQ(e->AdmittedCount(e->FindClusterQueue("team-a")), 1);
  EXPECT_FALSE(e->Release(99).ok());
  ASSERT_TRUE(e->Release(1).ok());
  EXPECT_EQ(e->Usage("team-a", "h100", "nvidia.com/gpu"), 0);
  EXPECT_EQ(e->total_admitted(), 0);
  auto rows = e->QuotaStatuses();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].cluster_queue, "team-a");
  EXPECT_EQ(rows[0].max_usable, 8);
}

TEST(EngineTest, PriorityAndTierFromClasses) {
  auto e = MustEngine(std::string(TwoTeams(4, 4, "", "{}")) + R"(---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata: {name: prod, labels: {steward.io/tier: production}}
value: 50
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata: {name: train}
value: 500
)");
  WorkloadRequest r = WorkloadBuilder(1, "team-a").Gpus(1).Build();
  r.priority_class = "prod";
  EXPECT_EQ(e->ResolvePriority(r), 50);
  EXPECT_EQ(e->ResolveTier(r), model::Tier::kProduction);  // Label beats the value.
  r.priority_class = "train";
  EXPECT_EQ(e->ResolveTier(r), model::Tier::kTraining);  // 100 <= 500 < 1000.
  r.priority_class = "unknown";
  EXPECT_EQ(e->ResolvePriority(r), 0);
  EXPECT_EQ(e->ResolveTier(r), model::Tier::kDev);
}

// steward serve's quota control on a ClusterQueue. team-a: nominal 32, lendingLimit 8 (24 kept
// local, 8 pooled); team-b: 32, all pooled. team-a uses its 32 (8 of it counts in the cohort);
// cutting team-b to 16 shrinks the cohort pool from 40 to 24.
TEST(EngineTest, SetNominalQuotaWhileRunning) {
  auto e = MustEngine(TwoTeams(32, 32, ", lendingLimit: 8", "{}"));
  MustAdmit(*e, WorkloadBuilder(1, "team-a").Gpus(8, 4).Build());   // 32: its nominal.
  ASSERT_EQ(e->Available("team-a", "h100", "nvidia.com/gpu"), 32);  // 40 pooled - 8.
  ASSERT_TRUE(e->SetNominalQuota("team-b", "", "nvidia.com/gpu", 16).ok());
  // Cohort SQ = 8 + 16 = 24, its usage 32 - 24 local = 8: 16 left for either queue.
  EXPECT_EQ(e->Usage("team-a", "h100", "nvidia.com/gpu"), 32);
  EXPECT_EQ(e->Available("team-a", "h100", "nvidia.com/gpu"), 16);
  EXPECT_EQ(e->Available("team-b", "h100", "nvidia.com/gpu"), 16);
  EXPECT_EQ(e->MaxUsable("team-b", "h100", "nvidia.com/gpu"), 24);
  const ClusterQueue* b = e->policy().FindClusterQueue("team-b");
  EXPECT_EQ(b->resource_groups[0].flavors[0].resources[0].nominal, 16);
  // Kueue's validation: nominal >= lendingLimit; unknown names are NotFound.
  Status low = e->SetNominalQuota("team-a", "", "nvidia.com/gpu", 4);
  EXPECT_EQ(low.code(), Status::Code::kInvalidArgument) << low.ToString();
  EXPECT_NE(low.message().find("lendingLimit 8"), std::string::npos) << low.message();
  EXPECT_EQ(e->SetNominalQuota("nope", "", "nvidia.com/gpu", 4).code(), Status::Code::kNotFound);
  EXPECT_EQ(e->SetNominalQuota("team-a", "a100", "nvidia.com/gpu", 4).code(),
            Status::Code::kNotFound);
}

// The tidal controller's lendingLimit form: team-a (nominal 32, lendingLimit 0) lends nothing
// to the cohort; team-b (nominal 8) can hold its own 8. Raising team-a's limit to 24 pools 24
// of its 32 (8 stay local): team-b may take 8 + 24 = 32. Lowering it to 8 while team-b holds
// 32 evicts nobody (Kueue does not on a quota change): team-b holds 24 beyond what the cohort
// lends it now, has nothing available, and the excess shrinks what team-a itself may take.
TEST(EngineTest, SetLendingLimitWhileRunning) {
  auto e = MustEngine(TwoTeams(32, 8, ", lendingLimit: 0", "{}"));
  EXPECT_EQ(e->Available("team-b", "h100", "nvidia.com/gpu"), 8);
  EXPECT_EQ(e->MaxUsable("team-b", "h100", "nvidia.com/gpu"), 8);
  ASSERT_TRUE(e->SetLendingLimit("team-a", "", "nvidia.com/gpu", 24).ok());
  EXPECT_EQ(e->Available("team-b", "h100", "nvidia.com/gpu"), 32);
  EXPECT_EQ(e->MaxUsable("team-b", "h100", "nvidia.com/gpu"), 32);
  EXPECT_EQ(e->Available("team-a", "h100", "nvidia.com/gpu"), 40);  // 8 local + 32 pooled.
  const ClusterQueue* a = e->policy().FindClusterQueue("team-a");
  EXPECT_EQ(a->resource_groups[0].flavors[0].resources[0].lending_limit, 24);
  MustAdmit(*e, WorkloadBuilder(1, "team-b").Gpus(8, 4).Build());  // 32: 24 borrowed.
  EXPECT_EQ(e->Available("team-b", "h100", "nvidia.com/gpu"), 0);
  ASSERT_TRUE(e->SetLendingLimit("team-a", "h100", "nvidia.com/gpu", 8).ok());
  EXPECT_EQ(e->Usage("team-b", "h100", "nvidia.com/gpu"), 32);  // Nobody evicted.
  EXPECT_EQ(e->Available("team-b", "h100", "nvidia.com/gpu"), 0);
  // Kueue's arithmetic: the cohort (SQ 8 + 8 = 16) is 16 over (usage 32), and that comes off
  // team-a's own 24 local GPUs: 24 - 16 = 8 it may still take without preemption, until the
  // borrower gives back what it holds beyond the loan (the controller's evictions).
  EXPECT_EQ(e->Available("team-a", "h100", "nvidia.com/gpu"), 8);
  // Removed: everything team-a holds is lendable again (Kueue's default).
  ASSERT_TRUE(e->SetLendingLimit("team-a", "", "nvidia.com/gpu", std::nullopt).ok());
  EXPECT_EQ(e->MaxUsable("team-b", "h100", "nvidia.com/gpu"), 40);
  // Kueue's validation: within [0, nominal]; the queue must be in a cohort.
  Status high = e->SetLendingLimit("team-a", "", "nvidia.com/gpu", 33);
  EXPECT_EQ(high.code(), Status::Code::kInvalidArgument) << high.ToString();
  EXPECT_EQ(e->SetLendingLimit("team-a", "", "nvidia.com/gpu", -1).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(e->SetLendingLimit("nope", "", "nvidia.com/gpu", 4).code(), Status::Code::kNotFound);
  auto alone = MustEngine(R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: h100}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: solo}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: h100
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 8}
)");
  Status no_cohort = alone->SetLendingLimit("solo", "", "nvidia.com/gpu", 4);
  EXPECT_EQ(no_cohort.code(), Status::Code::kInvalidArgument) << no_cohort.ToString();
  EXPECT_NE(no_cohort.message().find("cohort"), std::string::npos) << no_cohort.message();
}

// reclaimWithinCohort: LowerPriority. team-a (nominal 4) holds w1 (prio 20, 4 GPUs, within
// nominal), w2 (prio 5, 2 GPUs) and w3 (prio 20, 2 GPUs), both borrowed from team-b. team-b's
// priority-10 workload may take back only what lower-priority work holds: w2.
TEST(EngineTest, ReclaimWithinCohortLowerPriority) {
  for (const char* reclaim : {"LowerPriority", "Any"}) {
    auto e = MustEngine(TwoTeams(4, 4, "", std::string("{reclaimWithinCohort: ") + reclaim + "}"));
    MustAdmit(*e, WorkloadBuilder(1, "team-a").Gpus(4).Priority(20), At(1));
    MustAdmit(*e, WorkloadBuilder(2, "team-a").Gpus(2).Priority(5), At(2));
    MustAdmit(*e, WorkloadBuilder(3, "team-a").Gpus(2).Priority(20), At(3));
    const bool lower = std::string(reclaim) == "LowerPriority";
    // 2 GPUs: LowerPriority may take only w2. Any may take any team-a workload (the queue
    // borrows) and the checkpoint-aware order takes the least lost work first: w3 (2 GPUs x
    // 57 s) before w2 (2 x 58 s) and w1 (4 x 59 s).
    Decision d = e->TryAdmit(WorkloadBuilder(10, "team-b").Gpus(2).Priority(10), At(60));
    ASSERT_EQ(d.mode, AdmissionMode::kNeedsPreemption) << reclaim << ": " << d.Message();
    ASSERT_EQ(d.victims.size(), 1u);
    EXPECT_EQ(d.victims[0].workload_id, lower ? 2 : 3);
    // 4 GPUs: LowerPriority has only w2 (2 GPUs) to take: no victim set frees enough; Any takes
    // w3 then w2 (4 GPUs: enough; w1, dearer, stays).
    d = e->TryAdmit(WorkloadBuilder(11, "team-b").Gpus(4).Priority(10), At(60));
    if (lower) {
      EXPECT_EQ(d.mode, AdmissionMode::kNoFit) << d.Message();
      EXPECT_EQ(d.primary_reason(), PendingReason::kQuotaExhausted);
      EXPECT_TRUE(std::any_of(d.reasons.begin(), d.reasons.end(), [](const PendingDetail& p) {
        return p.reason == PendingReason::kNoPreemptionCandidates;
      })) << d.Message();
    } else {
      ASSERT_EQ(d.mode, AdmissionMode::kNeedsPreemption) << d.Message();
      std::vector<int64_t> ids;
      for (const auto& v : d.victims) ids.push_back(v.workload_id);
      std::sort(ids.begin(), ids.end());
      EXPECT_EQ(ids, (std::vector<int64_t>{2, 3}));
    }
  }
}

// Preemption across a hierarchical cohort: org = {inference (8), batch (0), research}, research =
// {llm (4), notebooks (4)}. notebooks borrows llm's idle 4 (research at its subtree quota 8),
// batch borrows 8 of inference's idle quota. inference (reclaim Any) takes back its nominal 8:
// only batch is a victim — notebooks borrows too, but inside research, which is within its own
// subtree quota (Kueue: every cohort on the victim's path below the common ancestor must be
// above its quota). Then, with research above its quota, a victim in it becomes valid.
TEST(EngineTest, PreemptionAcrossAHierarchicalCohort) {
  auto cq = [](const std::string& name, const std::string& cohort, int nominal) {
    return "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: " + name +
           "}\nspec:\n  cohort: " + cohort +
           "\n  namespaceSelector: {}\n  preemption: {reclaimWithinCohort: Any}\n"
           "  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors: [{name: h100, "
           "resources: [{name: nvidia.com/gpu, nominalQuota: " +
           std::to_string(nominal) + "}]}]\n";
  };
  const std::string yaml =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: h100}\n---\n"
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: org}\n---\n"
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: research}\n"
      "spec: {parentName: org}\n" +
      cq("inference", "org", 8) + cq("batch", "org", 0) + cq("llm", "research", 4) +
      cq("notebooks", "research", 4);
  auto e = MustEngine(yaml);
  MustAdmit(*e, WorkloadBuilder(1, "notebooks").Gpus(4).Priority(0), At(1));
  MustAdmit(*e, WorkloadBuilder(2, "notebooks").Gpus(4).Priority(0), At(2));  // llm's 4.
  MustAdmit(*e, WorkloadBuilder(3, "batch").Gpus(4).Priority(0), At(3));
  MustAdmit(*e, WorkloadBuilder(4, "batch").Gpus(4).Priority(0), At(4));  // org: 16 of 16.
  Decision d = e->TryAdmit(WorkloadBuilder(10, "inference").Gpus(4, 2).Priority(0), At(60));
  ASSERT_EQ(d.mode, AdmissionMode::kNeedsPreemption) << d.Message();
  std::vector<int64_t> ids;
  for (const auto& v : d.victims) {
    ids.push_back(v.workload_id);
    EXPECT_EQ(v.cluster_queue, "batch");
    EXPECT_EQ(v.reason, PreemptionReason::kInCohortReclamation);
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<int64_t>{3, 4}));
  // batch gone, inference admitted (8); notebooks still borrows inside research (8 of 8).
  for (int64_t id : ids) ASSERT_TRUE(e->Release(id).ok());
  MustAdmit(*e, WorkloadBuilder(10, "inference").Gpus(4, 2).Priority(0), At(60));
  // llm reclaims its own 4 from notebooks: a victim one level down, in the same sub-cohort.
  d = e->TryAdmit(WorkloadBuilder(11, "llm").Gpus(4).Priority(0), At(120));
  ASSERT_EQ(d.mode, AdmissionMode::kNeedsPreemption) << d.Message();
  ASSERT_EQ(d.victims.size(), 1u);
  EXPECT_EQ(d.victims[0].cluster_queue, "notebooks");
  // After that, llm holds its 4 and notebooks 4: nobody borrows. inference, within its
  // nominal, is never a victim: llm's higher-priority request beyond its nominal finds none.
  for (const auto& v : d.victims) ASSERT_TRUE(e->Release(v.workload_id).ok());
  MustAdmit(*e, WorkloadBuilder(11, "llm").Gpus(4).Priority(0), At(120));
  d = e->TryAdmit(WorkloadBuilder(12, "llm").Gpus(4).Priority(100), At(180));
  EXPECT_EQ(d.mode, AdmissionMode::kNoFit) << d.Message();
  EXPECT_TRUE(d.victims.empty());
}

}  // namespace
}  // namespace steward::govern

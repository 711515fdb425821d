// Kueue's scheduling cycle in `policy simulate` (queue-semantics.md §9). Each expectation is
// worked out by hand in the comment above it.
#include "govern/simulate.h"

#include <algorithm>
#include <random>

#include "simulate_test_util.h"

namespace steward::govern {
namespace {

using testing::Cq;
using testing::Find;
using testing::Flavor;
using testing::Lq;
using testing::MustSimulate;
using testing::UsageOf;
using testing::Wl;

// One queue of 4 GPUs, two 1-GPU workloads. Kueue takes one head per ClusterQueue per cycle:
// after cycle 1 only the older one (w1) is admitted, w2 follows in cycle 2.
TEST(SimulateTest, OneHeadPerClusterQueuePerCycle) {
  const std::string yaml = Flavor("default") + Cq("cq", "", 4) + Lq("ns", "lq", "cq") +
                           Wl("w1", "lq", 1, 0, 1) + Wl("w2", "lq", 1, 0, 2);
  auto one = MustSimulate(yaml, 1);
  EXPECT_EQ(Find(one, "w1").state, "admitted");
  EXPECT_EQ(Find(one, "w2").state, "pending");
  auto all = MustSimulate(yaml);
  EXPECT_EQ(Find(all, "w2").state, "admitted");
  EXPECT_EQ(Find(all, "w2").admitted_in_cycle, 2);
  EXPECT_EQ(UsageOf(all, "cq", "default", "nvidia.com/gpu"), 2);
}

// Cohort of cq-a (2) and cq-b (2) = 4 GPUs. a1 asks 3 (borrows 1) with priority 100, b1 asks
// 2 (within nominal) with priority 0 and is newer. Both fit the cycle's snapshot (4 free), but
// heads within nominal go first: b1 is admitted, then a1 sees 4 - 2 = 2 < 3 and is skipped.
TEST(SimulateTest, HeadsWithinNominalBeforeBorrowingHeads) {
  const std::string yaml = Flavor("default") + Cq("cq-a", "co", 2) + Cq("cq-b", "co", 2) +
                           Lq("ns", "a", "cq-a") + Lq("ns", "b", "cq-b") +
                           Wl("a1", "a", 3, 100, 1) + Wl("b1", "b", 2, 0, 2);
  auto one = MustSimulate(yaml, 1);
  EXPECT_EQ(Find(one, "b1").state, "admitted");
  EXPECT_EQ(Find(one, "a1").state, "pending");
  EXPECT_NE(Find(one, "a1").message.find("no longer fits"), std::string::npos);
  auto all = MustSimulate(yaml);
  EXPECT_EQ(Find(all, "a1").state, "pending");
  EXPECT_EQ(Find(all, "a1").reason, "quota_exhausted");
}

// A Cohort object holds the only 2 GPUs; cq-a and cq-b have none, so both heads borrow at the
// same level and each wants all 2. Higher priority wins (b1, 20 > 10) although it is newer; at
// equal priority the older (a1) wins.
TEST(SimulateTest, EqualBorrowingHeadsByPriorityThenTimestamp) {
  const std::string cohort =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: pool}\nspec:\n"
      "  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n"
      "    - name: default\n      resources:\n      - {name: nvidia.com/gpu, nominalQuota: "
      "2}\n---\n";
  const std::string base = Flavor("default") + cohort + Cq("cq-a", "pool", 0) +
                           Cq("cq-b", "pool", 0) + Lq("ns", "a", "cq-a") + Lq("ns", "b", "cq-b");
  auto by_priority = MustSimulate(base + Wl("a1", "a", 2, 10, 10) + Wl("b1", "b", 2, 20, 20));
  EXPECT_EQ(Find(by_priority, "b1").state, "admitted");
  EXPECT_EQ(Find(by_priority, "a1").state, "pending");
  auto by_time = MustSimulate(base + Wl("a1", "a", 2, 10, 10) + Wl("b1", "b", 2, 10, 20));
  EXPECT_EQ(Find(by_time, "a1").state, "admitted");
  EXPECT_EQ(Find(by_time, "b1").state, "pending");
}

// Kueue's resource validation: a container asking 2 GPUs with a limit of 1 is never admitted,
// although the queue has room; the next workload (w2, newer) is admitted in the first cycle, as
// the invalid one is never the head.
TEST(SimulateTest, RequestsAboveLimitsStayPendingAndDoNotBlock) {
  std::string bad = Wl("w1", "lq", 2, 0, 1);
  const std::string req = "{requests: {nvidia.com/gpu: \"2\"}}";
  bad.replace(bad.find(req), req.size(),
              "{requests: {nvidia.com/gpu: \"2\"}, limits: {nvidia.com/gpu: \"1\"}}");
  auto r = MustSimulate(
      Flavor("default") + Cq("cq", "", 4) + Lq("ns", "lq", "cq") + bad + Wl("w2", "lq", 1, 0, 2),
      1);
  EXPECT_EQ(Find(r, "w1").state, "pending");
  EXPECT_EQ(Find(r, "w1").reason, "invalid_resources");
  EXPECT_NE(Find(r, "w1").message.find("requests must not exceed limits (nvidia.com/gpu)"),
            std::string::npos)
      << Find(r, "w1").message;
  EXPECT_EQ(Find(r, "w2").state, "admitted");
}

// The same objects in any order give the same JSON (names, not positions, decide ties).
TEST(SimulateTest, ResultDoesNotDependOnDeclarationOrder) {
  std::vector<std::string> docs = {
      Flavor("default"),
      Flavor("spot"),
      Cq("cq-a", "co", 2),
      Cq("cq-b", "co", 2),
      Cq("cq-c", "co", 2, "  preemption: {reclaimWithinCohort: Any}\n"),
      Lq("ns", "a", "cq-a"),
      Lq("ns", "b", "cq-b"),
      Lq("ns", "c", "cq-c"),
      Wl("a1", "a", 2, 0, 5),
      Wl("a2", "a", 2, 0, 5),
      Wl("b1", "b", 2, 0, 5),
      Wl("b2", "b", 1, 0, 5),
      Wl("c1", "c", 1, 5, 5),
      Wl("c2", "c", 2, 5, 5)};
  auto render = [&](const std::vector<std::string>& d) {
    std::string yaml;
    for (const auto& s : d) yaml += s;
    return SimulationToJson(MustSimulate(yaml));
  };
  const std::string want = render(docs);
  std::mt19937 rng(17);
  for (int i = 0; i < 8; ++i) {
    std::shuffle(docs.begin(), docs.end(), rng);
    EXPECT_EQ(render(docs), want) << "permutation " << i;
  }
}

// cq-a lists flavors f1 then f2 (2 GPUs each), preempts LowerPriority in its queue and reclaims
// Any. f1 is full with its own a-low (priority 0); f2 is lent to cq-b, whose b1 borrows it.
// a-high (100) asks 2: on f1 it must preempt a-low (mode preempt), on f2 it reclaims b1 (mode
// reclaim). Reclaim ranks above preempt, so f2 wins and b1 is the victim (InCohortReclamation);
// a-high is then admitted on f2 and a-low keeps running.
TEST(SimulateTest, FlavorWhereItCanReclaimBeatsFlavorWhereItMustPreempt) {
  const std::string cq_a =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq-a}\nspec:\n"
      "  cohort: co\n  namespaceSelector: {}\n"
      "  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}\n"
      "  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n"
      "    - name: f1\n      resources:\n      - {name: nvidia.com/gpu, nominalQuota: 2}\n"
      "    - name: f2\n      resources:\n      - {name: nvidia.com/gpu, nominalQuota: 2}\n---\n";
  const std::string yaml = Flavor("f1") + Flavor("f2") + cq_a + Cq("cq-b", "co", 0, "", "f2") +
                           Lq("ns", "a", "cq-a") + Lq("ns", "b", "cq-b") +
                           Wl("a-low", "a", 2, 0, 1, "cq-a", "f1") +
                           Wl("b1", "b", 2, 0, 2, "cq-b", "f2") + Wl("a-high", "a", 2, 100, 3);
  auto r = MustSimulate(yaml);
  EXPECT_EQ(Find(r, "b1").state, "preempted");
  EXPECT_EQ(Find(r, "b1").preempted_by, "ns/a-high");
  EXPECT_EQ(Find(r, "b1").reason, "InCohortReclamation");
  EXPECT_EQ(Find(r, "a-low").state, "admitted");
  ASSERT_EQ(Find(r, "a-high").state, "admitted");
  EXPECT_EQ(Find(r, "a-high").flavors[0].flavors.at("nvidia.com/gpu"), "f2");
}

// Root cohort r holds cq-x (10) and cohort c; c holds cq-a (0) and cq-b (4). cq-x runs x1 (10)
// and x2 (4, borrowing c's lent quota). a1 (cq-a, reclaim Any) asks 4: above cq-a's nominal 0,
// but the subtree c (quota 4, usage 0) holds it and c is not the root, so a1 may reclaim: x2 is
// the borrower to take (x1 alone does not free enough within kueue order, x2 is newer), then a1
// is admitted, borrowing inside c.
TEST(SimulateTest, ReclaimAboveNominalWithinLowestSubtreeThatFits) {
  const std::string cohort_c =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: c}\n"
      "spec: {parentName: r}\n---\n";
  const std::string yaml = Flavor("default") + cohort_c + Cq("cq-x", "r", 10) +
                           Cq("cq-a", "c", 0, "  preemption: {reclaimWithinCohort: Any}\n") +
                           Cq("cq-b", "c", 4) + Lq("ns", "a", "cq-a") + Lq("ns", "x", "cq-x") +
                           Wl("x1", "x", 10, 0, 1, "cq-x") + Wl("x2", "x", 4, 0, 2, "cq-x") +
                           Wl("a1", "a", 4, 0, 3);
  auto r = MustSimulate(yaml);
  EXPECT_EQ(Find(r, "x2").state, "preempted");
  EXPECT_EQ(Find(r, "x2").reason, "InCohortReclamation");
  EXPECT_EQ(Find(r, "x1").state, "admitted");
  EXPECT_EQ(Find(r, "a1").state, "admitted");
  EXPECT_EQ(UsageOf(r, "cq-a", "default", "nvidia.com/gpu"), 4);
}

// StrictFIFO queue selecting namespaces labelled team=a. The head w-b (namespace ns-b, older,
// higher priority) fails only on the namespaceSelector, so it does not block: w-a is admitted.
// A head that fails on quota does block: big (5 > 4) keeps small behind it.
TEST(SimulateTest, StrictFifoNamespaceMismatchDoesNotBlockButQuotaDoes) {
  const std::string ns =
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns-a, labels: {team: a}}\n---\n"
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns-b}\n---\n";
  const std::string cq =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n"
      "  queueingStrategy: StrictFIFO\n  namespaceSelector: {matchLabels: {team: a}}\n"
      "  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n"
      "    - name: default\n      resources:\n      - {name: nvidia.com/gpu, nominalQuota: "
      "4}\n---\n";
  const std::string base =
      Flavor("default") + ns + cq + Lq("ns-a", "lq", "cq") + Lq("ns-b", "lq", "cq");
  auto r = MustSimulate(base + Wl("w-b", "lq", 1, 100, 1, "", "default", 1, "ns-b") +
                        Wl("w-a", "lq", 1, 0, 2, "", "default", 1, "ns-a"));
  EXPECT_EQ(Find(r, "w-a").state, "admitted");
  EXPECT_EQ(Find(r, "w-b").reason, "namespace_mismatch");
  auto blocked = MustSimulate(base + Wl("big", "lq", 5, 0, 1, "", "default", 1, "ns-a") +
                              Wl("small", "lq", 1, 0, 2, "", "default", 1, "ns-a"));
  EXPECT_EQ(Find(blocked, "small").state, "pending");
  EXPECT_EQ(Find(blocked, "small").reason, "blocked_behind_head");
}

// cq-a (4, StrictFIFO, withinClusterQueue LowerPriority, reclaim Never) runs a1 (2, priority
// 100); its head a2 (priority 50) asks 4: it needs preemption but a1 outranks it, so no
// candidates. Its queue cannot always reclaim, so min(4, nominal 4 - usage 2) = 2 GPUs are
// reserved each cycle and cq-b's borrowing b1 (2) never gets the 2 free GPUs. With reclaim Any
// nothing is reserved and b1 is admitted in cycle 1.
TEST(SimulateTest, StuckHeadReservesQuotaUnlessItsQueueCanAlwaysReclaim) {
  auto yaml = [](const std::string& reclaim) {
    return Flavor("default") +
           Cq("cq-a", "co", 4,
              "  queueingStrategy: StrictFIFO\n  preemption: {withinClusterQueue: LowerPriority, "
              "reclaimWithinCohort: " +
                  reclaim + "}\n") +
           Cq("cq-b", "co", 0) + Lq("ns", "a", "cq-a") + Lq("ns", "b", "cq-b") +
           Wl("a1", "a", 2, 100, 1, "cq-a") + Wl("a2", "a", 4, 50, 2) + Wl("b1", "b", 2, 0, 3);
  };
  auto never = MustSimulate(yaml("Never"));
  EXPECT_EQ(Find(never, "b1").state, "pending");
  EXPECT_EQ(Find(never, "a2").state, "pending");
  EXPECT_NE(Find(never, "a2").message.find("no candidates"), std::string::npos);
  auto any = MustSimulate(yaml("Any"), 1);
  EXPECT_EQ(Find(any, "b1").state, "admitted");
}

// Fair sharing; cohort of a (0), b (0) and an idle lender l (4). a already borrows 2 (a1), so 2
// are free. Heads a2 (priority 100, older) and b1 (priority 0, newer) ask 2 each. Share after
// admission: a = 1000 * 4 / 4 = 1000, b = 1000 * 2 / 4 = 500: b1 goes first and takes the 2
// GPUs; a2 no longer fits. Without fair sharing priority decides and a2 would win.
TEST(SimulateTest, FairSharingAdmitsLowestShareAfterAdmission) {
  const std::string base = Flavor("default") + Cq("a", "co", 0) + Cq("b", "co", 0) +
                           Cq("l", "co", 4) + Lq("ns", "a", "a") + Lq("ns", "b", "b") +
                           Wl("a1", "a", 2, 0, 1, "a") + Wl("a2", "a", 2, 100, 2) +
                           Wl("b1", "b", 2, 0, 3);
  const std::string fair =
      "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
      "fairSharing: {enable: true}\n---\n";
  auto r = MustSimulate(base + fair);
  EXPECT_TRUE(r.fair_sharing);
  EXPECT_EQ(Find(r, "b1").state, "admitted");
  EXPECT_EQ(Find(r, "a2").state, "pending");
  auto classic = MustSimulate(base);
  EXPECT_EQ(Find(classic, "a2").state, "admitted");
  EXPECT_EQ(Find(classic, "b1").state, "pending");
}

// Fair sharing in a cohort tree: A (7 GPUs) has child cohorts B (queue b) and C (queues c and
// c2); every queue has 0. c2 already holds 4, so 3 are free. Heads b1 (3 GPUs) and c1 (2, older)
// both fit the snapshot; only one fits after the other. The tournament compares B against C
// under A: B after b1 borrows 3 of A's 7 (share 1000 * 3 / 7 = 428), C after c1 borrows 4 + 2 = 6
// (857): b1 wins. Comparing the queues' own shares (flattened) would pick c1 (2 of 7 = 285 <
// 428).
TEST(SimulateTest, HierarchicalTournamentComparesSubtreesAtEachLevel) {
  auto cohort = [](const std::string& name, const std::string& spec) {
    return "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: " + name +
           "}\nspec:\n" + spec + "---\n";
  };
  const std::string yaml =
      Flavor("default") +
      cohort("A",
             "  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n"
             "    - name: default\n      resources:\n      - {name: nvidia.com/gpu, "
             "nominalQuota: 7}\n") +
      cohort("B", "  parentName: A\n") + cohort("C", "  parentName: A\n") + Cq("b", "B", 0) +
      Cq("c", "C", 0) + Cq("c2", "C", 0) + Lq("ns", "b", "b") + Lq("ns", "c", "c") +
      Lq("ns", "c2", "c2") + Wl("c20", "c2", 4, 0, 1, "c2") + Wl("c1", "c", 2, 0, 2) +
      Wl("b1", "b", 3, 0, 3) +
      "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
      "fairSharing: {enable: true}\n---\n";
  auto r = MustSimulate(yaml, 1);
  EXPECT_EQ(Find(r, "b1").state, "admitted");
  EXPECT_EQ(Find(r, "c1").state, "pending");
  EXPECT_EQ(UsageOf(r, "b", "default", "nvidia.com/gpu"), 3);
}

// Fair sharing; cohort of p (4, reclaim Any), x (0), y (0) and a lender l (6) = 10 GPUs, all
// used: x1 (3, admitted at 0:01) and y1 (3, admitted at 0:02) borrow, p0 holds p's 4. p1 asks 1
// more, which makes p borrow: share after = 1000 * 1 / 10 = 100. x and y tie at 300; the tie
// goes to the queue whose candidate was admitted most recently (y1). S2-a fails (100 <= 0 after
// removing y1 is false), S2-b holds (100 < 300): y1 is preempted (InCohortFairSharing) and p1
// is admitted on the freed quota.
TEST(SimulateTest, FairSharingTieBreakTakesTheNewestAmongEqualShares) {
  const std::string yaml =
      Flavor("default") + Cq("p", "co", 4, "  preemption: {reclaimWithinCohort: Any}\n") +
      Cq("x", "co", 0) + Cq("y", "co", 0) + Cq("l", "co", 6) + Lq("ns", "p", "p") +
      Lq("ns", "x", "x") + Lq("ns", "y", "y") + Wl("x1", "x", 3, 0, 1, "x") +
      Wl("y1", "y", 3, 0, 2, "y") + Wl("p0", "p", 4, 0, 3, "p") + Wl("p1", "p", 1, 0, 4) +
      "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
      "fairSharing: {enable: true}\n---\n";
  auto r = MustSimulate(yaml);
  EXPECT_EQ(Find(r, "y1").state, "preempted");
  EXPECT_EQ(Find(r, "y1").reason, "InCohortFairSharing");
  EXPECT_EQ(Find(r, "x1").state, "admitted");
  EXPECT_EQ(Find(r, "p1").state, "admitted");
}

// weightedShare is reported rounded up: borrowing 1 of 9 lendable GPUs is 111.11 -> 112.
TEST(SimulateTest, WeightedShareIsReportedRoundedUp) {
  EXPECT_EQ(ReportedWeightedShare(111.11), 112);
  EXPECT_EQ(ReportedWeightedShare(250.0), 250);
  EXPECT_EQ(ReportedWeightedShare(0.0), 0);
  const std::string yaml = Flavor("default") + Cq("a", "co", 0) + Cq("l", "co", 9) +
                           Lq("ns", "a", "a") + Wl("a1", "a", 1, 0, 1, "a") +
                           "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
                           "fairSharing: {enable: true}\n---\n";
  auto r = MustSimulate(yaml);
  bool seen = false;
  for (const auto& q : r.cluster_queues) {
    if (q.name != "a") continue;
    seen = true;
    EXPECT_EQ(q.weighted_share, 112);
  }
  EXPECT_TRUE(seen);
}

// Files laid over a cluster's objects (policy simulate --kubeconfig FILE): the cluster's queue
// holds 4 GPUs, the file's copy 8. w (8 GPUs) is pending against the cluster alone and
// admitted with the file's queue; the cluster's other objects (flavor, LocalQueue, w) stay,
// and exactly the replaced object is reported.
TEST(SimulateTest, FilesLaidOverTheClusterReplaceObjectsOfTheSameName) {
  SimulationInput cluster = testing::MustInput(Flavor("default") + Cq("cq", "", 4) +
                                               Lq("ns", "lq", "cq") + Wl("w", "lq", 8, 0, 0));
  auto alone = Simulate(cluster, {});
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(Find(*alone, "w").state, "pending");
  SimulationInput file;
  ASSERT_TRUE(ImportSimulationYaml(Cq("cq", "", 8), "raise.yaml", &file).ok());
  const std::vector<std::string> replaced = OverlaySimulationInput(&cluster, std::move(file));
  EXPECT_EQ(replaced, std::vector<std::string>{"ClusterQueue cq"});
  ASSERT_TRUE(FinishSimulationInput(&cluster).ok());
  ASSERT_EQ(cluster.policy.cluster_queues.size(), 1u);
  auto raised = Simulate(cluster, {});
  ASSERT_TRUE(raised.ok());
  EXPECT_EQ(Find(*raised, "w").state, "admitted");
  EXPECT_EQ(UsageOf(*raised, "cq", "default", "nvidia.com/gpu"), 8);
}

// Required node affinity picks the flavor as Kueue's flavorSelector does: flavors a (zone=x)
// and b (zone=y) of 4 GPUs each. w1 asks zone In [y] (only b matches); w2's terms are ORed,
// and its first term names only a key no flavor labels (dropped, so the term is empty): any
// flavor, the first (a). w3 asks zone NotIn [x, y]: no flavor, pending.
TEST(SimulateTest, RequiredNodeAffinityChoosesTheFlavorLikeKueue) {
  auto flavor = [](const std::string& name, const std::string& zone) {
    return "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: " + name +
           "}\nspec: {nodeLabels: {zone: " + zone + "}}\n---\n";
  };
  const std::string cq =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n"
      "  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n"
      "    flavors:\n    - {name: a, resources: [{name: nvidia.com/gpu, nominalQuota: 4}]}\n"
      "    - {name: b, resources: [{name: nvidia.com/gpu, nominalQuota: 4}]}\n---\n";
  auto wl = [](const std::string& name, int second, const std::string& terms) {
    return "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: " + name +
           ", namespace: ns, creationTimestamp: \"2024-01-01T00:00:0" + std::to_string(second) +
           "Z\"}\nspec:\n  queueName: lq\n  podSets:\n  - name: main\n    count: 1\n"
           "    template:\n      spec:\n        affinity: {nodeAffinity: "
           "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: " +
           terms +
           "}}}\n        containers:\n        - resources: {requests: {nvidia.com/gpu: \"1\"}}\n"
           "---\n";
  };
  const std::string yaml =
      flavor("a", "x") + flavor("b", "y") + cq + Lq("ns", "lq", "cq") +
      wl("w1", 1, "[{matchExpressions: [{key: zone, operator: In, values: [y]}]}]") +
      wl("w2", 2,
         "[{matchExpressions: [{key: rack, operator: In, values: [r1]}]}, "
         "{matchExpressions: [{key: zone, operator: In, values: [y]}]}]") +
      wl("w3", 3, "[{matchExpressions: [{key: zone, operator: NotIn, values: [x, y]}]}]");
  auto r = MustSimulate(yaml);
  EXPECT_EQ(Find(r, "w1").state, "admitted");
  ASSERT_EQ(Find(r, "w1").flavors.size(), 1u);
  EXPECT_EQ(Find(r, "w1").flavors[0].flavors.at("nvidia.com/gpu"), "b");
  ASSERT_EQ(Find(r, "w2").flavors.size(), 1u);
  EXPECT_EQ(Find(r, "w2").flavors[0].flavors.at("nvidia.com/gpu"), "a");
  EXPECT_EQ(Find(r, "w3").state, "pending");
  EXPECT_EQ(Find(r, "w3").reason, "no_matching_flavor");
}

// A ClusterQueue that covers `pods` counts one per pod (Kueue's flavorassigner): nominal 3 pods
// and 100 GPUs; w1 (2 pods) fits, w2 (2 pods) does not (2 + 2 > 3) although GPUs are plenty.
TEST(SimulateTest, PodsAreCountedWhenTheQueueCoversThem) {
  const std::string cq =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n"
      "  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [nvidia.com/gpu, pods]\n"
      "    flavors:\n    - {name: default, resources: [{name: nvidia.com/gpu, nominalQuota: 100},"
      " {name: pods, nominalQuota: 3}]}\n---\n";
  auto r = MustSimulate(Flavor("default") + cq + Lq("ns", "lq", "cq") +
                        Wl("w1", "lq", 1, 0, 1, "", "default", 2) +
                        Wl("w2", "lq", 1, 0, 2, "", "default", 2));
  EXPECT_EQ(Find(r, "w1").state, "admitted");
  EXPECT_EQ(Find(r, "w2").state, "pending");
  EXPECT_EQ(UsageOf(r, "cq", "default", "pods"), 2);
}

}  // namespace
}  // namespace steward::govern

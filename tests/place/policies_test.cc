// Each policy on a small hand-built cluster, with the expected node and GPUs computed by hand
// from the scoring rules in fgd-protocol.md §6 (the arithmetic is in the comments).
#include <gtest/gtest.h>

#include "place/placer.h"
#include "place/policy_registry.h"
#include "test_util.h"

namespace steward::place {
namespace {

using testing::Bind;
using testing::MakeCluster;
using testing::Node;
using testing::Pod;

struct PolicyRun {
  ClusterState cluster;
  std::unique_ptr<PlacementPolicy> policy;
  Rng rng{1};
  std::vector<PodRequest> population;

  PolicyRun(ClusterState c, std::string_view name, std::vector<PodRequest> pop = {})
      : cluster(std::move(c)), population(std::move(pop)) {
    auto p = NewPolicy(name);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    policy = std::move(p).value();
    PolicyContext ctx{&cluster, population};
    EXPECT_TRUE(policy->Prepare(ctx).ok());
  }
  Decision Decide(const PodRequest& pod) {
    Placer placer(&cluster, policy.get(), &rng);
    return placer.Decide(pod);
  }
};

// A(64 cores, 8 GPUs), B(32 cores, 2 GPUs), C(16 cores, 4 GPUs), all idle.
ClusterState ThreeNodes() {
  return MakeCluster({Node("A", 64, 8), Node("B", 32, 2), Node("C", 16, 4)});
}

TEST(BestFitTest, PicksLeastWeightedLeftover) {
  // Pod 4 cores + 1 GPU. Leftover 0.5·cpu/128000 + 0.5·gpu/8000:
  // A 0.2344+0.4375 -> score 32; B 0.1094+0.0625 -> 82; C 0.0469+0.1875 -> 76. B wins.
  PolicyRun r(ThreeNodes(), "bestfit");
  Decision d = r.Decide(Pod(4000, 1, 1000));
  ASSERT_TRUE(d.fits());
  EXPECT_EQ(r.cluster.name(d.node), "B");
  EXPECT_EQ(d.gpus.count, 1);
  EXPECT_EQ(d.gpus.index[0], 0);
}

TEST(DotProductTest, PicksSmallestAlignment) {
  // Pod 4 cores + 1 GPU: dot = cpu/128k·4k/128k + gpu/8k·1k/8k.
  // A 0.0156+0.125=0.1406 -> 92; B 0.0078+0.03125 -> 98; C 0.0039+0.0625 -> 96. B wins.
  PolicyRun r(ThreeNodes(), "dotprod");
  Decision d = r.Decide(Pod(4000, 1, 1000));
  ASSERT_TRUE(d.fits());
  EXPECT_EQ(r.cluster.name(d.node), "B");
  // A CPU-heavy pod that B cannot hold (40 cores): only A fits.
  d = r.Decide(Pod(40000, 0, 0));
  ASSERT_TRUE(d.fits());
  EXPECT_EQ(r.cluster.name(d.node), "A");
}

TEST(GpuPackingTest, PrefersPartlyUsedGpusThenUsedNodes) {
  ClusterState c = ThreeNodes();
  Bind(c, 1, Pod(1000, 1, 500), {1});   // B: GPUs [1000, 500].
  Bind(c, 2, Pod(1000, 1, 1000), {0});  // C: GPUs [0, 1000, 1000, 1000].
  PolicyRun r(std::move(c), "packing");
  // Share 300: A idle -> max(33-8, 8) = 25; B uses the 500 GPU -> 100 - 50/10 = 95;
  // C needs a free GPU on a used node -> 50 - 1 = 49. B, on GPU 1 (tightest).
  Decision d = r.Decide(Pod(1000, 1, 300));
  ASSERT_TRUE(d.fits());
  EXPECT_EQ(r.cluster.name(d.node), "B");
  EXPECT_EQ(d.gpus.index[0], 1);
  // 2 whole GPUs: A 25; B has one free GPU (infeasible); C 50 - 2 = 48. C on GPUs 1, 2.
  d = r.Decide(Pod(1000, 2, 1000));
  ASSERT_TRUE(d.fits());
  EXPECT_EQ(r.cluster.name(d.node), "C");
  ASSERT_EQ(d.gpus.count, 2);
  EXPECT_EQ(d.gpus.index[0], 1);
  EXPECT_EQ(d.gpus.index[1], 2);
}

TEST(GpuClusteringTest, KeepsShapesTogether) {
  ClusterState c =
      MakeCluster({Node("A", 64, 8), Node("B", 64, 2), Node("C", 64, 4), Node("D", 64, 8)});
  Bind(c, 1, Pod(1000, 1, 500), {0});   // B: one sharing pod, idle 1500.
  Bind(c, 2, Pod(1000, 1, 1000), {0});  // C: one 1-GPU pod, idle 3000.
  Bind(c, 3, Pod(1000, 1, 500), {0});   // D: both shapes, idle 6500.
  Bind(c, 3, Pod(1000, 1, 1000), {1});
  PolicyRun r(std::move(c), "clustering");
  // Share pod: fill = 25·(8000 - idle)/8000 (integer). A 0+25 = 25; B 20+75 = 95;
  // C 15+0 = 15; D 4+50 = 54. B.
  Decision d = r.Decide(Pod(1000, 1, 200));
  ASSERT_TRUE(d.fits());
  EXPECT_EQ(r.cluster.name(d.node), "B");
  // 1-GPU pod: A 25; B 20 (other shape only); C 15+75 = 90; D 54. C.
  d = r.Decide(Pod(1000, 1, 1000));
  ASSERT_TRUE(d.fits());
  EXPECT_EQ(r.cluster.name(d.node), "C");
}

TEST(FgdTest, PicksTheGpuThatReducesFragmentation) {
  // Typical pods: 50% <1 CPU, 1x500m>, 50% <1 CPU, 1x1000m>.
  std::vector<PodRequest> pop = {Pod(1000, 1, 500), Pod(1000, 1, 1000)};
  ClusterState c = MakeCluster({Node("N0", 64, 2), Node("N1", 64, 2)});
  Bind(c, 1, Pod(1000, 1, 500), {0});  // N1: GPUs [500, 1000]; F = 0.5·500 = 250.
  PolicyRun r(std::move(c), "fgd", pop);
  // Share 500 on N0 -> [500, 1000]: F 0 -> 250, score int(100·σ(-0.25)) = 43.
  // On N1 GPU0 -> [0, 1000]: F 250 -> 0, score int(100·σ(0.25)) = 56.
  // On N1 GPU1 -> [500, 500]: the 1000m typical pod no longer fits, F -> 500, score 43.
  Decision d = r.Decide(Pod(1000, 1, 500));
  ASSERT_TRUE(d.fits());
  EXPECT_EQ(r.cluster.name(d.node), "N1");
  EXPECT_EQ(d.gpus.index[0], 0);
  EXPECT_EQ(r.policy->Score(r.cluster.node(1), Pod(1000, 1, 500)), 56);
  EXPECT_EQ(r.policy->Score(r.cluster.node(0), Pod(1000, 1, 500)), 43);
}

TEST(FgdTest, NeedsAPopulation) {
  auto p = NewPolicy("fgd");
  ASSERT_TRUE(p.ok());
  ClusterState c = ThreeNodes();
  EXPECT_FALSE((*p)->Prepare(PolicyContext{&c, {}}).ok());
}

TEST(RandomTest, DrawsUniformlyAmongFeasibleNodesOnly) {
  ClusterState c = MakeCluster({Node("a", 8, 1), Node("b", 8, 1), Node("c", 1, 1)});
  PolicyRun r(std::move(c), "random");
  int counts[3] = {0, 0, 0};
  Placer placer(&r.cluster, r.policy.get(), &r.rng);
  for (int i = 0; i < 2000; ++i) {
    Decision d = placer.Decide(Pod(4000, 1, 300));  // c lacks CPU.
    ASSERT_TRUE(d.fits());
    ++counts[d.node];
  }
  EXPECT_EQ(counts[2], 0);
  EXPECT_GT(counts[0], 850);
  EXPECT_GT(counts[1], 850);
}

TEST(PlacerTest, TiesGoToTheSmallestRank) {
  ClusterState c = MakeCluster({Node("a", 8, 1), Node("b", 8, 1)});
  PolicyRun r(std::move(c), "bestfit");
  EXPECT_EQ(r.Decide(Pod(1000, 1, 1000)).node, 0);
  r.cluster.SetRanks({1, 0});
  EXPECT_EQ(r.Decide(Pod(1000, 1, 1000)).node, 1);
}

TEST(PlacerTest, RescoresOnlyChangedNodes) {
  std::vector<NodeSpec> specs;
  for (int i = 0; i < 100; ++i) specs.push_back(Node("n" + std::to_string(i), 64, 8));
  PolicyRun r(MakeCluster(specs), "bestfit");
  Placer placer(&r.cluster, r.policy.get(), &r.rng);
  PodRequest pod = Pod(1000, 1, 1000);
  ASSERT_TRUE(placer.Place(pod).fits());
  EXPECT_EQ(placer.rescored_leaves(), 100);  // First use of the shape: one full build.
  ASSERT_TRUE(placer.Place(pod).fits());
  EXPECT_EQ(placer.rescored_leaves(), 101);  // Then only the node that changed.
  // Best-fit keeps filling the same node: 8 pods on node 0, the 9th goes elsewhere.
  for (int i = 0; i < 6; ++i) EXPECT_EQ(placer.Place(pod).node, 0);
  EXPECT_NE(placer.Place(pod).node, 0);
}

TEST(PlacerTest, NoFitSaysWhy) {
  PolicyRun r(ThreeNodes(), "fgd", {Pod(1000, 1, 1000)});
  Decision d = r.Decide(Pod(20000, 8, 1000));  // Only A has 8 GPUs.
  ASSERT_TRUE(d.fits());
  EXPECT_EQ(r.cluster.name(d.node), "A");
  d = r.Decide(Pod(1000, 16, 1000));
  ASSERT_FALSE(d.fits());
  EXPECT_EQ(d.why.nodes, 3);
  EXPECT_EQ(d.why.gpu, 3);
  EXPECT_NE(d.Reason(Pod(1000, 16, 1000)).find("3 lack free GPUs"), std::string::npos);
}

TEST(RegistryTest, ListsPaperPoliciesOursAndBest) {
  std::vector<std::string> names = PolicyNames();
  for (const char* n : {"random", "dotprod", "clustering", "packing", "bestfit", "fgd", "best"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  EXPECT_EQ(names.back(), "best");
  auto best = NewPolicy("best");
  ASSERT_TRUE(best.ok());
  EXPECT_EQ((*best)->Name(), ResolvePolicyAlias("best"));
  auto bad = NewPolicy("nope");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("valid: random"), std::string::npos);
}

// Contract suite: every registered policy places a simple pod on a feasible node and
// returns GPUs that fit it.
class PolicyContractTest : public ::testing::TestWithParam<std::string> {};

TEST_P(PolicyContractTest, PlacesOnlyWhereThePodFits) {
  ClusterState c =
      MakeCluster({Node("a", 4, 2, "T4"), Node("b", 32, 4, "V100M32"), Node("d", 32, 8, "G2")});
  Bind(c, 2, Pod(1000, 1, 900), {3});
  std::vector<PodRequest> pop = {Pod(1000, 1, 500), Pod(2000, 1, 1000), Pod(500, 0, 0)};
  PolicyRun r(std::move(c), GetParam(), pop);
  Placer placer(&r.cluster, r.policy.get(), &r.rng);
  PodRequest spec = Pod(8000, 1, 700);
  spec.allowed_models = r.cluster.ParseModelList("T4|V100M32");
  for (int i = 0; i < 4; ++i) {
    Decision d = placer.Decide(spec);
    ASSERT_TRUE(d.fits());
    EXPECT_EQ(r.cluster.name(d.node), "b");  // a lacks CPU, d has the wrong model.
    ASSERT_EQ(d.gpus.count, 1);
    EXPECT_GE(r.cluster.node(d.node).gpu_free[d.gpus.index[0]], 700);
    r.cluster.Apply(d.node, spec, d.gpus);
  }
  EXPECT_FALSE(placer.Decide(spec).fits());  // b has 4 GPUs and 32 cores: 4 pods, then CPU.
}

INSTANTIATE_TEST_SUITE_P(All, PolicyContractTest, ::testing::ValuesIn([] {
                           std::vector<std::string> n = PolicyNames();
                           return n;
                         }()));

}  // namespace
}  // namespace steward::place

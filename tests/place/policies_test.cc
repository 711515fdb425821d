// Each policy on a small hand-built cluster, with the expected node and GPUs computed by hand
// from the scoring rules in fgd-protocol.md §6 (the arithmetic is in the comments).
#include <gtest/gtest.h>

#include <cctype>
#include <string>

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

TEST(FgdBestFitTest, BreaksFgdTiesByBestFitInsteadOfNodeOrder) {
  // One typical pod, <1 CPU, 1x1000m>. A 1-GPU pod on an idle node leaves every other GPU
  // fully free: F stays 0, Δ = 0, FGD score 50 on both nodes, so FGD takes the smallest rank.
  std::vector<PodRequest> pop = {Pod(1000, 1, 1000)};
  PolicyRun fgd(MakeCluster({Node("N0", 64, 4), Node("N1", 64, 2)}), "fgd", pop);
  EXPECT_EQ(fgd.cluster.name(fgd.Decide(Pod(1000, 1, 1000)).node), "N0");
  // fgd-bf keeps 50 as the high key and adds (1 − leftover) · 4095, leftover =
  // 0.5·cpu_left/128000 + 0.5·gpu_left/8000:
  // N0: 0.5·63000/128000 + 0.5·3000/8000 = 0.24609 + 0.1875 = 0.43359 -> int(2319.4) = 2319;
  // N1: 0.24609 + 0.5·1000/8000 = 0.30859 -> int(2831.3) = 2831. N1 wins.
  PolicyRun bf(MakeCluster({Node("N0", 64, 4), Node("N1", 64, 2)}), "fgd-bf", pop);
  Decision d = bf.Decide(Pod(1000, 1, 1000));
  ASSERT_TRUE(d.fits());
  EXPECT_EQ(bf.cluster.name(d.node), "N1");
  EXPECT_EQ(d.gpus.index[0], 0);
  EXPECT_EQ(bf.policy->Score(bf.cluster.node(0), Pod(1000, 1, 1000)), 50 * 4096 + 2319);
  EXPECT_EQ(bf.policy->Score(bf.cluster.node(1), Pod(1000, 1, 1000)), 50 * 4096 + 2831);
}

TEST(FgdBestFitTest, KeepsFgdOrderWhenScoresDiffer) {
  // The FGD example above (N1 scores 56, N0 43): the high key decides, whatever the leftover.
  std::vector<PodRequest> pop = {Pod(1000, 1, 500), Pod(1000, 1, 1000)};
  ClusterState c = MakeCluster({Node("N0", 64, 2), Node("N1", 64, 2)});
  Bind(c, 1, Pod(1000, 1, 500), {0});
  PolicyRun r(std::move(c), "fgd-bf", pop);
  Decision d = r.Decide(Pod(1000, 1, 500));
  ASSERT_TRUE(d.fits());
  EXPECT_EQ(r.cluster.name(d.node), "N1");
  EXPECT_EQ(d.gpus.index[0], 0);
  // Within a node the leftover is the same for every GPU, so tied GPUs go to the lowest
  // index as in FGD, not to the tightest: typical pods all CPU-only -> F = idle, Δ = −300 on
  // either GPU of [1000, 600]: int(100/(1 + e^−0.3)) = 57 both; GPU 0.
  ClusterState one = MakeCluster({Node("N", 64, 2)});
  Bind(one, 0, Pod(1000, 1, 400), {1});
  PolicyRun cpu(std::move(one), "fgd-bf", {Pod(1000, 0, 0)});
  d = cpu.Decide(Pod(1000, 1, 300));
  ASSERT_TRUE(d.fits());
  EXPECT_EQ(d.gpus.index[0], 0);
  EXPECT_EQ(cpu.policy->Score(cpu.cluster.node(0), Pod(1000, 1, 300)) >> 12, 57);
}

// The fgd-cpu example: population two <10 CPU, 1x1000m, 1 GiB> pods and one <20 CPU> pod.
// Typical pods 2/3 <10 CPU, 1x1000m>, 1/3 CPU-only; CPU per milli-GPU c = 20000/2000 = 10,
// memory per milli-GPU m = 2048/2000 = 1.024 MiB. A: 96 cores, 8 GPUs; B: 104 cores, 2 GPUs
// (the Alibaba G2 and T4 shapes), 256 GiB each.
std::vector<PodRequest> CpuExamplePods() {
  return {Pod(10000, 1, 1000), Pod(10000, 1, 1000), Pod(20000, 0, 0)};
}
ClusterState GpuDenseAndCpuRich() { return MakeCluster({Node("A", 96, 8), Node("B", 104, 2)}); }

TEST(FgdCpuTest, KeepsCpuOnlyPodsOffNodesWhoseCpuTheGpusNeed) {
  const PodRequest cpu_pod = Pod(20000, 0, 0);
  // FGD: the CPU-only pod leaves 76 (A) or 84 (B) cores, enough for the 10-core typical pod,
  // so F is unchanged on both: score 50, tie, A by rank.
  PolicyRun fgd(GpuDenseAndCpuRich(), "fgd", CpuExamplePods());
  EXPECT_EQ(fgd.cluster.name(fgd.Decide(cpu_pod).node), "A");
  // fgd-cpu adds S = max(0, gpu_free − cpu_free/c, gpu_free − mem_free/m). A before:
  // 8000 − 96000/10 < 0 -> 0; after: 8000 − 76000/10 = 400 (memory: 8000 − 261120/1.024 < 0).
  // Δ = 400 -> int(100/(1 + e^0.4)) = int(40.13) = 40. B: 2000 − 84000/10 < 0, S stays 0,
  // score 50. B wins.
  PolicyRun ours(GpuDenseAndCpuRich(), "fgd-cpu", CpuExamplePods());
  EXPECT_EQ(ours.policy->Score(ours.cluster.node(0), cpu_pod), 40);
  EXPECT_EQ(ours.policy->Score(ours.cluster.node(1), cpu_pod), 50);
  Decision d = ours.Decide(cpu_pod);
  ASSERT_TRUE(d.fits());
  EXPECT_EQ(ours.cluster.name(d.node), "B");
  // A GPU pod at the workload's ratio strands nothing: on A, 7000 − 86000/10 < 0. Its F is
  // unchanged too (7 free GPUs fit the 1-GPU typical pod; the CPU-only one counts idle
  // 8000 -> 7000: Δ = −1000/3), so A scores int(100/(1 + e^−0.3333)) = int(58.26) = 58.
  EXPECT_EQ(ours.policy->Score(ours.cluster.node(0), Pod(10000, 1, 1000)), 58);
}

TEST(FgdCpuTest, StrandingByMemoryCountsToo) {
  // Same workload; A has 16 GiB free only: m = 1.024 MiB per milli, so 16384 MiB feed 16000
  // milli, more than A's 8000: S = 0. A pod taking 12 GiB leaves 4096 MiB -> feeds 4000 milli,
  // S = 8000 − 4000 = 4000 (CPU: 8000 − 95000/10 < 0). Δ = 4000 -> int(100/(1 + e^4)) = 1.
  ClusterState c = MakeCluster({Node("A", 96, 8, "G2", 16), Node("B", 104, 2, "G2", 256)});
  PolicyRun r(std::move(c), "fgd-cpu", CpuExamplePods());
  const PodRequest memory_pod = Pod(1000, 0, 0, 12288);
  EXPECT_EQ(r.policy->Score(r.cluster.node(0), memory_pod), 1);
  EXPECT_EQ(r.cluster.name(r.Decide(memory_pod).node), "B");
}

TEST(FgdCpuTest, NeedsAPopulationUnlessOnline) {
  ClusterState c = ThreeNodes();
  for (const char* name : {"fgd-cpu", "fgd-cpu-online", "fgd-online"}) {
    auto p = NewPolicy(name);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ((*p)->Prepare(PolicyContext{&c, {}}).ok(), std::string(name) != "fgd-cpu") << name;
  }
}

TEST(FgdCpuOnlineTest, LearnsOnlyFromArrivedPodsAtPowersOfSixteen) {
  const PodRequest cpu_pod = Pod(20000, 0, 0);
  // The whole workload is ignored: nothing learned yet, F = S = 0 everywhere, score 50.
  PolicyRun r(GpuDenseAndCpuRich(), "fgd-cpu-online", CpuExamplePods());
  EXPECT_EQ(r.policy->Score(r.cluster.node(0), cpu_pod), 50);
  EXPECT_EQ(r.policy->Score(r.cluster.node(1), cpu_pod), 50);
  // 16 arrivals, 8 <10 CPU, 1x1000m, 1 GiB> then 8 CPU-only <20 CPU>. Relearns (a new
  // ScoreEpoch) when the 1st and the 16th arrive, not in between.
  std::vector<PodRequest> arrivals(8, Pod(10000, 1, 1000));
  arrivals.insert(arrivals.end(), 8, cpu_pod);
  std::vector<int> relearned_at;
  for (size_t i = 0; i < arrivals.size(); ++i) {
    uint64_t before = r.policy->ScoreEpoch();
    r.policy->Observe(arrivals[i]);
    if (r.policy->ScoreEpoch() != before) relearned_at.push_back(static_cast<int>(i) + 1);
  }
  EXPECT_EQ(relearned_at, (std::vector<int>{1, 16}));
  // Learned from the 16: typical pods 1/2 <10 CPU, 1x1000m>, 1/2 CPU-only; c = 80000/8000 = 10
  // and m = 8192/8000 = 1.024 as for fgd-cpu's workload, so the CPU-only pod scores 40 on A
  // (S 0 -> 400, F unchanged) and 50 on B, as with fgd-cpu.
  EXPECT_EQ(r.policy->Score(r.cluster.node(0), cpu_pod), 40);
  EXPECT_EQ(r.policy->Score(r.cluster.node(1), cpu_pod), 50);
  EXPECT_EQ(r.cluster.name(r.Decide(cpu_pod).node), "B");
}

TEST(FgdOnlineTest, ScoresAsFgdOnceItHasSeenTheSameWorkload) {
  // 16 pods observed = relearns at 1 and 16: the same typical pods as FGD's from those 16
  // (1/2 <1 CPU, 500m>, 1/4 <1 CPU, 1000m>, 1/4 CPU-only).
  std::vector<PodRequest> pop(8, Pod(1000, 1, 500));
  pop.insert(pop.end(), 4, Pod(1000, 1, 1000));
  pop.insert(pop.end(), 4, Pod(2000, 0, 0));
  ClusterState c = MakeCluster({Node("N0", 64, 2), Node("N1", 64, 4)});
  Bind(c, 1, Pod(1000, 1, 500), {0});
  PolicyRun fgd(c, "fgd", pop);
  PolicyRun online(c, "fgd-online", {});
  for (const PodRequest& p : pop) online.policy->Observe(p);
  for (const PodRequest& pod : {Pod(1000, 1, 500), Pod(1000, 1, 300), Pod(1000, 2, 1000)})
    for (NodeId id : {0, 1})
      EXPECT_EQ(online.policy->Score(online.cluster.node(id), pod),
                fgd.policy->Score(fgd.cluster.node(id), pod));
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
  for (const char* n : {"random", "dotprod", "clustering", "packing", "bestfit", "fgd", "fgd-bf",
                        "fgd-cpu", "fgd-cpu-online", "fgd-online", "best"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  EXPECT_EQ(names.back(), "best");
  auto best = NewPolicy("best");
  ASSERT_TRUE(best.ok());
  EXPECT_EQ((*best)->Name(), ResolvePolicyAlias("best"));
  EXPECT_EQ(ResolvePolicyAlias("best"), "fgd-cpu-online");
  // What each FGD variant knows: the whole workload (as the paper's FGD) or arrived pods only.
  EXPECT_TRUE(FindPolicy("fgd")->knows_workload);
  EXPECT_TRUE(FindPolicy("fgd-cpu")->knows_workload);
  EXPECT_FALSE(FindPolicy("best")->knows_workload);
  EXPECT_FALSE(FindPolicy("fgd-online")->knows_workload);
  EXPECT_EQ(FindPolicy("nope"), nullptr);
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

INSTANTIATE_TEST_SUITE_P(All, PolicyContractTest, ::testing::ValuesIn(PolicyNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace steward::place

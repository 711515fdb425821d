#include "place/mig.h"

#include <gtest/gtest.h>

#include "place/placer.h"
#include "place/policy_registry.h"
#include "test_util.h"

namespace steward::place {
namespace {

using testing::MakeCluster;

PodRequest Mig(MigProfile p) {
  PodRequest r;
  r.num_gpu = 1;
  r.gpu_milli = MigMilli(p);
  r.mig_profile = p;
  return r;
}

NodeSpec MigNode(std::string name, int gpus) {
  NodeSpec s{std::move(name), 64000, 512 * 1024, gpus, "H100"};
  s.mig_capable = true;
  return s;
}

TEST(MigTest, ProfilesFollowTheH100Table) {
  // NVIDIA's table: (compute slices of 7, memory slices of 8, instances per GPU).
  struct Row {
    const char* name;
    int compute, memory, instances;
  };
  for (Row row : {Row{"1g.10gb", 1, 1, 7}, Row{"1g.20gb", 1, 2, 4}, Row{"2g.20gb", 2, 2, 3},
                  Row{"3g.40gb", 3, 4, 2}, Row{"4g.40gb", 4, 4, 1}, Row{"7g.80gb", 7, 8, 1}}) {
    const MigProfile p = ParseMigProfile(row.name);
    ASSERT_NE(p, kNoMig) << row.name;
    EXPECT_EQ(MigInfo(p).compute_slices, row.compute) << row.name;
    EXPECT_EQ(MigInfo(p).memory_slices, row.memory) << row.name;
    EXPECT_EQ(MigInfo(p).max_instances, row.instances) << row.name;
    // Packing one profile alone on an empty GPU reaches the table's instance count.
    EXPECT_EQ(MigInstancesThatFit(0, p), row.instances) << row.name;
  }
  EXPECT_EQ(ParseMigProfile("1g.5gb"), kNoMig);
  EXPECT_DOUBLE_EQ(MigGpuShare(kMig1g10gb), 1.0 / 7);
  EXPECT_EQ(MigMilli(kMig1g10gb), 142);
  EXPECT_EQ(MigMilli(kMig7g80gb), 1000);
}

TEST(MigTest, PlacementsNeverExceedSevenComputeSlices) {
  // Every mix of instances the start rules allow uses at most 7 compute slices: walk all
  // reachable slice masks depth-first, tracking compute.
  int reachable = 0;
  std::vector<std::pair<uint8_t, int>> stack = {{0, 0}};
  std::vector<bool> seen(256 * 8, false);
  while (!stack.empty()) {
    auto [used, compute] = stack.back();
    stack.pop_back();
    ASSERT_LE(compute, kMigComputeSlices);
    if (seen[used * 8 + compute]) continue;
    seen[used * 8 + compute] = true;
    ++reachable;
    for (int p = kMig1g10gb; p <= kMig7g80gb; ++p)
      for (int s = 0; s < kMigMemorySlices; ++s)
        if ((MigInfo(p).starts >> s & 1) && (used & MigMask(p, s)) == 0)
          stack.push_back(
              {static_cast<uint8_t>(used | MigMask(p, s)), compute + MigInfo(p).compute_slices});
  }
  EXPECT_GT(reachable, 20);
}

TEST(MigTest, SmallInstancesFillFromTheTopLeavingRoomForBigOnes) {
  EXPECT_EQ(MigStart(0, kMig1g10gb), 6);
  EXPECT_EQ(MigStart(0b0100'0000, kMig1g10gb), 5);
  // Two 1g.10gb at 6 and 5 leave slices 0-3 whole: a 4g.40gb still fits at 0.
  EXPECT_EQ(MigStart(0b0110'0000, kMig4g40gb), 0);
  EXPECT_EQ(MigStart(0b0110'0000, kMig3g40gb), 0);  // 4..7 is taken.
  EXPECT_EQ(MigStart(0b0000'0001, kMig7g80gb), -1);
  EXPECT_EQ(MigStart(0, kMig1g20gb), 6);
}

TEST(MigTest, PodsPackOneGpuBeforeCarvingTheNext) {
  ClusterState c = MakeCluster({MigNode("a", 2)});
  auto policy = NewPolicy("binpack");
  ASSERT_TRUE(policy.ok());
  Rng rng(1);
  Placer placer(&c, policy->get(), &rng);
  // Seven 1g.10gb instances fill GPU 0 (slices 6, 5, ..., 0); the eighth carves GPU 1.
  for (int i = 0; i < 7; ++i) {
    Decision d = placer.Place(Mig(kMig1g10gb));
    ASSERT_TRUE(d.fits());
    EXPECT_EQ(d.gpus.index[0], 0);
    EXPECT_EQ(d.gpus.mig_start, 6 - i);
  }
  EXPECT_EQ(c.node(0).mig_used[0], 0b0111'1111);
  EXPECT_EQ(c.node(0).gpu_free[0], 0);  // In MIG mode: no whole or fractional pod lands there.
  Decision eighth = placer.Place(Mig(kMig1g10gb));
  ASSERT_TRUE(eighth.fits());
  EXPECT_EQ(eighth.gpus.index[0], 1);
  // A 4g.40gb fits next to it on GPU 1 (slices 0-3), not on the full GPU 0.
  Decision big = placer.Place(Mig(kMig4g40gb));
  ASSERT_TRUE(big.fits());
  EXPECT_EQ(big.gpus.index[0], 1);
  EXPECT_EQ(big.gpus.mig_start, 0);
  EXPECT_EQ(c.node(0).mig_used[1], 0b0100'1111);
  // Nothing whole is left: a 7g.80gb and a whole-GPU pod do not fit; a 2g.20gb does (at 4).
  EXPECT_FALSE(placer.Decide(Mig(kMig7g80gb)).fits());
  EXPECT_FALSE(placer.Decide(testing::Pod(0, 1, 1000, 0)).fits());
  Decision mid = placer.Decide(Mig(kMig2g20gb));
  ASSERT_TRUE(mid.fits());
  EXPECT_EQ(mid.gpus.mig_start, 4);
  // Releasing the last instance of a GPU makes it whole again.
  c.Release(0, Mig(kMig4g40gb), big.gpus);
  c.Release(0, Mig(kMig1g10gb), eighth.gpus);
  EXPECT_EQ(c.node(0).mig_used[1], 0);
  EXPECT_EQ(c.node(0).gpu_free[1], 1000);
  EXPECT_TRUE(placer.Decide(testing::Pod(0, 1, 1000, 0)).fits());
}

TEST(MigTest, NeedsAMigCapableNodeAndIsNotMixedWithFractionalSharing) {
  NodeSpec plain{"plain", 64000, 512 * 1024, 1, "H100"};
  ClusterState c = MakeCluster({plain, MigNode("mig", 1)});
  EXPECT_FALSE(Fits(c.node(0), Mig(kMig1g10gb)));
  EXPECT_TRUE(Fits(c.node(1), Mig(kMig1g10gb)));
  // A GPU shared by fractional pods takes no MIG instance, and a MIG GPU no fractional pod.
  testing::Bind(c, 1, testing::Pod(0, 1, 300, 0), {0});
  EXPECT_FALSE(Fits(c.node(1), Mig(kMig1g10gb)));
  c.Release(1, testing::Pod(0, 1, 300, 0), [] {
    GpuList g;
    g.Add(0);
    return g;
  }());
  GpuList slot = TightestGpus(c.node(1), Mig(kMig1g10gb));
  c.Apply(1, Mig(kMig1g10gb), slot);
  EXPECT_FALSE(Fits(c.node(1), testing::Pod(0, 1, 100, 0)));
  EXPECT_EQ(PodsThatFit(c.node(1), Mig(kMig1g10gb)), 6);
  EXPECT_EQ(PodsThatFit(c.node(1), Mig(kMig3g40gb)), 1);  // 4-7 half is broken by slot 6.
}

}  // namespace
}  // namespace steward::place

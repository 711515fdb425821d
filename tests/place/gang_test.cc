// Whole-gang topology placement, node-range decisions, pools and occupancy counters on small
// hand-built clusters (place/placer.h, place/cluster_state.h).
#include <gtest/gtest.h>

#include "place/placer.h"
#include "place/policy_registry.h"
#include "test_util.h"

namespace steward::place {
namespace {

using testing::Bind;
using testing::MakeCluster;
using testing::Pod;

// 8 nodes of 4 GPUs: NVLink domains of 2 nodes (0-1, 2-3, 4-5, 6-7), leaves of 4 (0-3, 4-7).
std::vector<NodeSpec> Racks() {
  std::vector<NodeSpec> specs;
  for (int i = 0; i < 8; ++i) {
    NodeSpec s = testing::Node("n" + std::to_string(i), 64, 4);
    s.nvlink_domain = i / 2;
    s.leaf = i / 4;
    specs.push_back(s);
  }
  return specs;
}

struct RackRun {
  explicit RackRun(const std::string& policy_name) : cluster(MakeCluster(Racks())), rng(1) {
    policy = std::move(NewPolicy(policy_name)).value();
    placer = std::make_unique<Placer>(&cluster, policy.get(), &rng);
    // 2-GPU pods each node could take: n0 2, n1 2 | n2 1, n3 1 | n4 2, n5 1 | n6 0, n7 0.
    Bind(cluster, 2, Pod(0, 2, 1000, 0), {0, 1});
    Bind(cluster, 3, Pod(0, 2, 1000, 0), {0, 1});
    Bind(cluster, 5, Pod(0, 2, 1000, 0), {0, 1});
    Bind(cluster, 6, Pod(0, 4, 1000, 0), {0, 1, 2, 3});
    Bind(cluster, 7, Pod(0, 4, 1000, 0), {0, 1, 2, 3});
  }
  PodRequest Gang(model::TopologyPreference topology) {
    PodRequest p = Pod(0, 2, 1000, 0);
    p.topology = topology;
    return p;
  }
  std::vector<NodeId> Nodes(const std::vector<Decision>& ds) {
    std::vector<NodeId> out;
    for (const Decision& d : ds) out.push_back(d.node);
    return out;
  }
  ClusterState cluster;
  Rng rng;
  std::unique_ptr<PlacementPolicy> policy;
  std::unique_ptr<Placer> placer;
};

using model::TopologyPreference;

TEST(GangTest, CapacityCountsPodsPerNodeAndGroup) {
  RackRun r("binpack");
  PodRequest p = r.Gang(TopologyPreference::kSameNvlinkDomain);
  EXPECT_EQ(r.placer->Capacity(p), 2 + 2 + 1 + 1 + 2 + 1);
  // Domain capacities 4, 2, 3, 0; leaf capacities 6, 3.
  EXPECT_EQ(r.placer->FindGroup(p, TopologyLevel::kNvlinkDomain, 3), 2);  // Tightest with 3.
  EXPECT_EQ(r.placer->FindGroup(p, TopologyLevel::kNvlinkDomain, 5), -1);
  EXPECT_EQ(r.placer->FindGroup(p, TopologyLevel::kLeaf, 4), 0);
  RackRun f("first-fit");
  EXPECT_EQ(f.placer->FindGroup(p, TopologyLevel::kNvlinkDomain, 3), 0);  // Lowest with 3.
}

TEST(GangTest, WholeGangInTheTightestNvlinkDomain) {
  RackRun r("binpack");
  std::vector<Decision> out;
  ASSERT_TRUE(r.placer->PlaceGang(r.Gang(TopologyPreference::kSameNvlinkDomain), 3, &out));
  // Domain 2 (nodes 4-5) holds exactly 3: binpack fills n5 (2 free) first, then n4 twice.
  EXPECT_EQ(r.Nodes(out), (std::vector<NodeId>{5, 4, 4}));
  EXPECT_EQ(r.cluster.node(4).FullyFreeGpus(), 0);
}

TEST(GangTest, FirstFitTakesTheLowestDomainThatHoldsTheGang) {
  RackRun r("first-fit");
  std::vector<Decision> out;
  ASSERT_TRUE(r.placer->PlaceGang(r.Gang(TopologyPreference::kSameNvlinkDomain), 3, &out));
  EXPECT_EQ(r.Nodes(out), (std::vector<NodeId>{0, 0, 1}));
}

TEST(GangTest, LeafWhenNoDomainHoldsIt) {
  RackRun r("binpack");
  std::vector<Decision> out;
  // 5 pods: no domain holds 5 (at most 4), leaf 0 holds 6: all five in nodes 0-3.
  ASSERT_TRUE(r.placer->PlaceGang(r.Gang(TopologyPreference::kSameNvlinkDomain), 5, &out));
  EXPECT_EQ(r.Nodes(out), (std::vector<NodeId>{2, 3, 0, 0, 1}));
  // A leaf preference skips the domain level: 3 pods go to leaf 1 (capacity 3, the tightest).
  RackRun s("binpack");
  ASSERT_TRUE(s.placer->PlaceGang(s.Gang(TopologyPreference::kSameLeaf), 3, &out));
  EXPECT_EQ(s.Nodes(out), (std::vector<NodeId>{5, 4, 4}));
}

TEST(GangTest, SpreadsLeafByLeafWhenNoGroupHoldsIt) {
  RackRun r("binpack");
  std::vector<Decision> out;
  // 8 pods of a capacity of 9: no leaf holds 8. Pods go one by one, each preferring the leaf
  // of the pod before: leaf 0's six slots first (binpack: fullest first), then leaf 1.
  ASSERT_TRUE(r.placer->PlaceGang(r.Gang(TopologyPreference::kSameLeaf), 8, &out));
  EXPECT_EQ(r.Nodes(out), (std::vector<NodeId>{2, 3, 0, 0, 1, 1, 5, 4}));
  EXPECT_EQ(r.placer->Capacity(r.Gang(TopologyPreference::kSameLeaf)), 1);
}

TEST(GangTest, AllOrNothing) {
  RackRun r("binpack");
  const int64_t used = r.cluster.used_gpu_milli();
  std::vector<Decision> out;
  EXPECT_FALSE(r.placer->PlaceGang(r.Gang(TopologyPreference::kNone), 10, &out));
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(r.cluster.used_gpu_milli(), used);
  // Without a preference pods go where the policy says, one by one.
  ASSERT_TRUE(r.placer->PlaceGang(r.Gang(TopologyPreference::kNone), 2, &out));
  EXPECT_EQ(r.Nodes(out), (std::vector<NodeId>{2, 3}));
}

TEST(PlacerRangeTest, DecidesInsideANodeRange) {
  RackRun r("binpack");
  const PodRequest p = Pod(0, 2, 1000, 0);
  EXPECT_EQ(r.placer->Decide(p).node, 2);
  EXPECT_EQ(r.placer->DecideIn(p, NodeRange{4, 8}).node, 5);
  EXPECT_EQ(r.placer->DecideIn(p, NodeRange{0, 2}).node, 0);
  EXPECT_FALSE(r.placer->DecideIn(p, NodeRange{6, 8}).fits());
  // Random draws only inside the range too.
  ClusterState c = MakeCluster(Racks());
  auto random = std::move(NewPolicy("random")).value();
  Rng rng(3);
  Placer placer(&c, random.get(), &rng);
  for (int i = 0; i < 50; ++i) {
    const NodeId n = placer.DecideIn(p, NodeRange{3, 6}).node;
    EXPECT_GE(n, 3);
    EXPECT_LT(n, 6);
  }
}

TEST(FirstFitBinpackTest, PickLowestAndFullest) {
  ClusterState c = MakeCluster({testing::Node("a", 64, 8), testing::Node("b", 64, 8),
                                testing::Node("c", 64, 8), testing::Node("d", 64, 8)});
  Bind(c, 2, Pod(0, 6, 1000, 0), {0, 1, 2, 3, 4, 5});  // c: 2 free.
  Bind(c, 3, Pod(0, 4, 1000, 0), {0, 1, 2, 3});        // d: 4 free.
  Rng rng(1);
  auto first = std::move(NewPolicy("first-fit")).value();
  auto pack = std::move(NewPolicy("binpack")).value();
  Placer ff(&c, first.get(), &rng), bp(&c, pack.get(), &rng);
  EXPECT_EQ(ff.Decide(Pod(0, 1, 1000, 0)).node, 0);
  EXPECT_EQ(bp.Decide(Pod(0, 1, 1000, 0)).node, 2);
  EXPECT_EQ(bp.Decide(Pod(0, 3, 1000, 0)).node, 3);
  EXPECT_EQ(bp.Decide(Pod(0, 8, 1000, 0)).node, 0);
  // A fractional pod binpacks onto the GPU/node with the least room left after it.
  Bind(c, 1, Pod(0, 1, 700, 0), {0});  // b: 7 whole + 300 milli.
  const Decision d = bp.Decide(Pod(0, 1, 300, 0));
  EXPECT_EQ(d.node, 2);  // c: 2000 milli free -> 1700 left; b would keep 7000.
  EXPECT_EQ(bp.Decide(Pod(0, 7, 1000, 0)).node, 1);
}

TEST(OccupancyTest, CountsPerPoolAndFollowsCordons) {
  std::vector<NodeSpec> specs = {testing::Node("a", 64, 8), testing::Node("b", 64, 8),
                                 testing::Node("c", 64, 8)};
  specs[2].pool = 1;
  ClusterState c = MakeCluster(specs);
  EXPECT_EQ(c.num_pools(), 2);
  Bind(c, 0, Pod(0, 3, 1000, 0), {0, 1, 2});
  Bind(c, 2, Pod(0, 1, 500, 0), {7});
  Occupancy p0 = c.occupancy(0), p1 = c.occupancy(1), all = c.occupancy();
  EXPECT_EQ(p0.free_gpus, 5 + 8);
  EXPECT_EQ(p0.whole_free_nodes, 1);
  EXPECT_EQ(p0.stranded_free_gpus(), 5);
  EXPECT_EQ(p0.largest_free_block(), 8);
  EXPECT_EQ(p1.free_gpus, 7);  // A GPU shared by a fractional pod is not free.
  EXPECT_EQ(p1.largest_free_block(), 7);
  EXPECT_EQ(all.free_gpus, 20);
  EXPECT_EQ(c.largest_whole_node_gpus(), 8);
  EXPECT_EQ(c.largest_whole_node_gpus(1), 0);
  EXPECT_EQ(c.busy_gpus(), 4);
  // A pod of pool 1 does not fit pool 0's nodes; a cordoned node fits nothing.
  PodRequest in1 = Pod(0, 1, 1000, 0);
  in1.pool = 1;
  EXPECT_FALSE(Fits(c.node(1), in1));
  EXPECT_TRUE(Fits(c.node(2), in1));
  c.SetSchedulable(1, false);
  EXPECT_FALSE(Fits(c.node(1), Pod(0, 1, 1000, 0)));
  EXPECT_EQ(c.occupancy(0).free_gpus, 5);
  EXPECT_EQ(c.occupancy(0).whole_free_nodes, 0);
  EXPECT_EQ(c.busy_gpus(), 4);  // Cordoning frees or takes nothing.
}

TEST(ClusterStateTest, GroupsMustBeContiguousAndLogIsTrimmed) {
  std::vector<NodeSpec> specs = Racks();
  specs[3].leaf = 1;
  specs[4].leaf = 0;  // Leaf 0 is nodes 0-2 and 4: not contiguous.
  EXPECT_FALSE(ClusterState::Build(specs).ok());
  ClusterState c = MakeCluster(Racks());
  EXPECT_EQ(c.num_groups(TopologyLevel::kNvlinkDomain), 4);
  EXPECT_EQ(c.group_range(TopologyLevel::kLeaf, 1).begin, 4);
  EXPECT_EQ(c.group_of(TopologyLevel::kNvlinkDomain, 5), 2);
  // A long run keeps the log bounded; a Placer that fell behind rebuilds and stays right.
  auto policy = std::move(NewPolicy("binpack")).value();
  Rng rng(1);
  Placer placer(&c, policy.get(), &rng);
  const PodRequest p = Pod(0, 4, 1000, 0);
  EXPECT_EQ(placer.Decide(p).node, 0);
  GpuList all;
  for (int i = 0; i < 4; ++i) all.Add(i);
  for (int i = 0; i < 100000; ++i) {
    c.Apply(0, p, all);
    c.Release(0, p, all);
  }
  EXPECT_GT(c.log_begin(), 0u);
  EXPECT_LE(c.log_end() - c.log_begin(), size_t{1} << 16);
  c.Apply(0, p, all);
  EXPECT_EQ(placer.Decide(p).node, 1);
}

}  // namespace
}  // namespace steward::place

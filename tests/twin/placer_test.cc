// The twin's placement: pool rules, binpack inside a pool, whole-gang topology, MIG pods and
// defragmenting preemption, on small hand-built scenarios.
#include "twin/placer.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "twin/build_cluster.h"
#include "twin/defrag.h"
#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

using testing::MakeTwin;
using testing::MustParse;
using testing::Once;
using testing::SmallScenarioYaml;

// The scenario's cluster, its state and placer, owned together.
struct PlacementSetup {
  explicit PlacementSetup(const std::string& yaml)
      : scenario(MustParse(yaml)), cluster(std::move(BuildCluster(scenario)).value()) {
    state = std::make_unique<ClusterState>(cluster);
    placer = std::move(Placer::Create(scenario, state.get(), {}, 1)).value();
  }
  std::vector<model::NodeId> Place(const model::Workload& w, int count) {
    std::vector<PodPlacement> out;
    if (!placer->Place(w, w.pod_sets[0], count, &out)) return {};
    std::vector<model::NodeId> nodes;
    for (const PodPlacement& p : out) nodes.push_back(p.node);
    return nodes;
  }
  Scenario scenario;
  model::Cluster cluster;
  std::unique_ptr<ClusterState> state;
  std::unique_ptr<Placer> placer;
};

model::Workload Job(model::WorkloadKind kind, int gpus, int pods = 1,
                    model::TopologyPreference topology = model::TopologyPreference::kNone) {
  model::Workload w;
  w.kind = kind;
  w.topology = topology;
  w.pod_sets = {{"main", pods, gpus}};
  return w;
}

// 6 nodes: whole-node pool (nodes 0-1), small pool (2-3, binpack), general (4-5).
const char* kPools =
    "policies:\n"
    "  placement: first-fit\n"
    "  pools:\n"
    "    - {name: whole-node, nodes: 2, accepts: {kinds: [training], min_gpus_per_pod: 8}}\n"
    "    - {name: small, nodes: 2, placement: binpack, accepts: {max_gpus_per_pod: 2}}\n"
    "    - {name: general}\n";

TEST(PoolRulesTest, NodesGoToPoolsInOrderAndPodsAreRoutedBySizeAndKind) {
  PlacementSetup s(SmallScenarioYaml(6, "a:48", kPools));
  EXPECT_EQ(s.cluster.node(1).placement_pool, 0);
  EXPECT_EQ(s.cluster.node(2).placement_pool, 1);
  EXPECT_EQ(s.cluster.node(5).placement_pool, 2);
  EXPECT_EQ(s.cluster.node(3).labels.at("steward.io/placement-pool"), "small");
  EXPECT_EQ(s.placer->Name(), "pools(whole-node=first-fit, small=binpack, general=first-fit)");
  using K = model::WorkloadKind;
  auto route = [&](const model::Workload& w) { return s.placer->Route(w, w.pod_sets[0]); };
  EXPECT_EQ(route(Job(K::kTraining, 8, 2)), (std::vector<int>{0, 2}));
  EXPECT_EQ(route(Job(K::kBatch, 8)), (std::vector<int>{2}));  // Not training: not whole-node.
  EXPECT_EQ(route(Job(K::kTraining, 4)), (std::vector<int>{2}));
  EXPECT_EQ(route(Job(K::kNotebook, 1)), (std::vector<int>{1, 2}));
  EXPECT_EQ(route(Job(K::kBatch, 4)), (std::vector<int>{2}));
  model::Workload mig = Job(K::kNotebook, 1);
  mig.pod_sets[0].mig_profile = "1g.10gb";
  EXPECT_EQ(route(mig), (std::vector<int>{1, 2}));

  // Training gangs fill the whole-node pool, then overflow to general; notebooks go small.
  EXPECT_EQ(s.Place(Job(K::kTraining, 8), 2), (std::vector<model::NodeId>{0, 1}));
  EXPECT_EQ(s.Place(Job(K::kTraining, 8), 1), (std::vector<model::NodeId>{4}));
  EXPECT_EQ(s.Place(Job(K::kNotebook, 1), 1), (std::vector<model::NodeId>{2}));
  EXPECT_EQ(s.Place(Job(K::kBatch, 4), 1), (std::vector<model::NodeId>{5}));
  // A gang goes into one pool or none: 2 more 8-GPU pods do not fit general (one whole
  // node left there) nor whole-node (full).
  EXPECT_TRUE(s.Place(Job(K::kTraining, 8), 2).empty());
  EXPECT_EQ(s.state->free_gpus(-1, 0), 0);
  EXPECT_EQ(s.state->free_gpus(-1, 2), 4);
  EXPECT_EQ(s.state->largest_free_block(-1, 1), 8);
  EXPECT_EQ(s.state->stranded_free_gpus(-1, 1), 7);
}

TEST(PoolRulesTest, BinpackInsideThePoolFirstFitElsewhere) {
  PlacementSetup s(SmallScenarioYaml(6, "a:48", kPools));
  s.state->Allocate(3, 6);  // Small pool: node 2 empty, node 3 with 2 free.
  s.state->Allocate(5, 6);  // General: node 4 empty, node 5 with 2 free.
  using K = model::WorkloadKind;
  // binpack in the small pool fills node 3 first; first-fit in general takes node 4.
  EXPECT_EQ(s.Place(Job(K::kNotebook, 1), 1), (std::vector<model::NodeId>{3}));
  EXPECT_EQ(s.Place(Job(K::kNotebook, 1), 1), (std::vector<model::NodeId>{3}));
  EXPECT_EQ(s.Place(Job(K::kNotebook, 1), 1), (std::vector<model::NodeId>{2}));
  EXPECT_EQ(s.Place(Job(K::kBatch, 1), 1), (std::vector<model::NodeId>{2}));  // batch 1-GPU: small.
  EXPECT_EQ(s.Place(Job(K::kBatch, 2, 1), 1), (std::vector<model::NodeId>{2}));
  EXPECT_EQ(s.Place(Job(K::kBatch, 3), 1), (std::vector<model::NodeId>{4}));  // general, first-fit.
}

TEST(PoolRulesTest, ErrorsNameFileLineAndField) {
  auto error = [](const std::string& policies) {
    Result<Scenario> s = ParseScenario(SmallScenarioYaml(4, "a:8", policies), "bad.yaml");
    if (!s.ok()) return s.status().message();
    Result<model::Cluster> c = BuildCluster(*s);
    return c.ok() ? std::string("ok") : c.status().message();
  };
  // `policies:` is the first line after SmallScenarioYaml's cluster and team.
  const std::string base = SmallScenarioYaml(4, "a:8", "");
  const int l = static_cast<int>(std::count(base.begin(), base.end(), '\n')) + 1;
  auto at = [&](int offset, int column) {
    return "bad.yaml:" + std::to_string(l + offset) + ":" + std::to_string(column) + ": ";
  };
  EXPECT_EQ(error("policies:\n  pools:\n    - {name: a, nodes: 3}\n"),
            at(2, 7) +
                "policies.pools: 1 node is in no placement pool (leave out 'nodes' on the "
                "last pool to give it the rest)");
  EXPECT_EQ(error("policies:\n  pools:\n    - {name: a, nodes: 3}\n    - {name: b, nodes: 2}\n"),
            at(3, 7) + "policies.pools[1].nodes: asks for 2 nodes but only 1 left");
  EXPECT_NE(error("policies:\n  pools:\n    - {name: a, placement: best-effort}\n")
                .find(at(2, 28) + "policies.pools[0].placement: unknown placement policy "
                                  "'best-effort' (valid: random"),
            std::string::npos);
  EXPECT_NE(error("policies:\n  pools:\n    - {name: a, accepts: {kinds: [gaming]}}\n")
                .find("policies.pools[0].accepts.kinds[0]: unknown kind 'gaming'"),
            std::string::npos);
  EXPECT_NE(error("policies:\n  pools:\n    - {name: a}\n    - {name: a}\n")
                .find("policies.pools[1].name: duplicate placement pool 'a'"),
            std::string::npos);
  EXPECT_NE(error("policies:\n  placement: tetris\n").find(at(1, 14) + "policies.placement"),
            std::string::npos);
  EXPECT_NE(error("policies:\n  defrag: {victim_tiers: [production]}\n")
                .find("policies.defrag.victim_tiers[0]: 'production' cannot be a defrag victim"),
            std::string::npos);
  EXPECT_EQ(error("policies:\n  pools:\n    - {name: a, nodes: 3}\n    - {name: b}\n"), "ok");
}

TEST(GangTopologyTest, WholeGangInOneNvlinkDomainThenOneLeaf) {
  // NVL72-style: 4-GPU nodes, an NVLink domain per rack of 2 nodes, leaves of 4 nodes.
  const std::string yaml =
      "name: nvl\nseed: 1\ncluster:\n  gpu_models: [{name: GB200}]\n  pools:\n"
      "    - {name: r, nodes: 8, gpus_per_node: 4, gpu_model: GB200, nodes_per_rack: 2,"
      " nodes_per_leaf: 4, nvlink_domain: rack}\n"
      "teams: [{name: a, quota_gpus: 32}]\n";
  PlacementSetup s(yaml);
  s.state->Allocate(0, 1);  // Rack 0 can take one more 4-GPU pod (on node 1).
  using K = model::WorkloadKind;
  using T = model::TopologyPreference;
  // First-fit alone would start at node 1 and split the gang across racks; the whole gang goes
  // to the lowest rack that holds it.
  EXPECT_EQ(s.Place(Job(K::kTraining, 4, 2, T::kSameNvlinkDomain), 2),
            (std::vector<model::NodeId>{2, 3}));
  // Three pods fit no rack (each holds two): the lowest leaf that holds three (nodes 4-7).
  EXPECT_EQ(s.Place(Job(K::kTraining, 4, 3, T::kSameNvlinkDomain), 3),
            (std::vector<model::NodeId>{4, 5, 6}));
  // Without a preference pods go one by one: node 1 first.
  EXPECT_EQ(s.Place(Job(K::kTraining, 4, 2), 2), (std::vector<model::NodeId>{1, 7}));
}

TEST(MigTwinTest, SevenSlicesShareOneGpuAndAllocationChargesASeventhEach) {
  auto t = MakeTwin(SmallScenarioYaml(
      1, "a:8",
      "generators:\n" + Once("nb", "a", "notebook", 7, 0,
                             "mig_profile: 1g.10gb, duration_hours: 2, usage: {sm_active: 0.5}")));
  t->RunUntil(kSimStart + Hours(1));
  EXPECT_EQ(t->state().allocated_gpus(), 1);  // Seven 1g.10gb instances on GPU 0.
  EXPECT_EQ(t->state().free_gpus(), 7);
  EXPECT_EQ(t->state().placement().node(0).mig_used[0], 0b0111'1111);
  Report r = t->Run();
  // 7 x 1/7 GPU x (2 h + 90 s startup): one GPU's worth.
  EXPECT_NEAR(r.allocated_gpu_hours, 2 + 90.0 / 3600, 1e-9);
  EXPECT_NEAR(r.sm_active_gpu_hours, 0.5 * 2, 1e-9);
  EXPECT_EQ(r.workloads_completed, 7);
  EXPECT_EQ(r.queue_wait_seconds_by_pod_size.at("shared").count, 7);
  EXPECT_EQ(t->state().placement().node(0).mig_used[0], 0);  // Released: whole again.
}

TEST(MigTwinTest, FractionalPodsShareAGpuUpTo1000Milli) {
  auto t = MakeTwin(SmallScenarioYaml(1, "a:8",
                                      "generators:\n" + Once("ci", "a", "batch", 5, 0,
                                                             "gpu_milli: 250, "
                                                             "duration_hours: 1")));
  t->RunUntil(kSimStart + Hours(0.5));
  EXPECT_EQ(t->state().allocated_gpus(), 2);  // 4 x 250 on GPU 0, the fifth on GPU 1.
  Report r = t->Run();
  EXPECT_NEAR(r.allocated_gpu_hours, 5 * 0.25 * (1 + 90.0 / 3600), 1e-9);
}

TEST(PlanDefragTest, CheapestNodesFirstWithinTheVictimBound) {
  const std::vector<DefragCandidate> c = {{10, {1}}, {11, {2, 3}}, {12, {4}}, {13, {2}}};
  auto lost = [](model::WorkloadId w) { return w == 1 ? 5.0 : w == 4 ? 3.0 : 1.0; };
  // Costs: node 13 = 1 (victim 2), node 11 = 2 (2 and 3), node 12 = 3, node 10 = 5.
  DefragPlan p = PlanDefrag(c, 2, 3, lost);
  EXPECT_EQ(p.nodes, (std::vector<model::NodeId>{13, 11}));
  EXPECT_EQ(p.victims, (std::vector<model::WorkloadId>{2, 3}));  // Victim 2 counted once.
  EXPECT_DOUBLE_EQ(p.lost_gpu_hours, 2);
  // One victim allowed: node 13 alone; node 11 needs victim 3 too, 12 and 10 one more each.
  EXPECT_FALSE(PlanDefrag(c, 2, 1, lost).ok());
  p = PlanDefrag(c, 1, 1, lost);
  EXPECT_EQ(p.nodes, (std::vector<model::NodeId>{13}));
  // Two victims, three nodes: 13 + 11 use both; 12 and 10 would be a third.
  EXPECT_FALSE(PlanDefrag(c, 3, 2, lost).ok());
  EXPECT_EQ(PlanDefrag(c, 3, 4, lost).nodes, (std::vector<model::NodeId>{13, 11, 12}));
  // Equal cost: fewer victims, then the lower node.
  auto flat = [](model::WorkloadId) { return 1.0; };
  EXPECT_EQ(PlanDefrag({{7, {1, 2}}, {9, {3}}, {8, {4}}}, 1, 5, flat).nodes,
            (std::vector<model::NodeId>{8}));
  EXPECT_FALSE(PlanDefrag(c, 0, 5, lost).ok());
}

// Four nodes, each holding one 5-GPU dev job (first-fit): 12 GPUs free, no whole node. Two
// 8-GPU training jobs arrive at hour 1.
std::string FragmentedYaml(const std::string& defrag) {
  return SmallScenarioYaml(
      4, "a:20,b:16",
      "generators:\n" + Once("small", "a", "batch", 4, 0, "gpus_per_pod: 5, duration_hours: 48") +
          Once("big", "b", "training", 2, 1, "gpus_per_pod: 8, duration_hours: 48") +
          "policies:\n  defrag: " + defrag + "\n");
}

TEST(DefragTwinTest, EvictsTheCheapestSmallJobsWithinTheHourlyBound) {
  auto t = MakeTwin(FragmentedYaml("{max_victims_per_cycle: 4, max_victims_per_hour: 1}"));
  Report r = t->Run();
  // Hour 1: one victim (all cost the same: node 0's job, the lowest node); the first training
  // job takes node 0. The second waits for the hourly bound, then at hour 2 evicts node 1's.
  EXPECT_EQ(r.defrag.victims, 2);
  EXPECT_EQ(r.defrag.attempts, 2);
  EXPECT_EQ(r.defrag.nodes_freed, 2);
  EXPECT_EQ(r.defrag.jobs_placed, 2);
  EXPECT_EQ(r.preemptions.at("dev"), 2);
  // Work lost: 5 GPUs x (1 h − 90 s startup) and 5 GPUs x (2 h − 90 s), no checkpoints.
  EXPECT_NEAR(r.defrag.lost_gpu_hours, 5 * (1 - 90.0 / 3600) + 5 * (2 - 90.0 / 3600), 1e-9);
  const Percentiles& w = r.queue_wait_seconds_by_pod_size.at("8");
  EXPECT_EQ(w.count, 2);
  EXPECT_DOUBLE_EQ(w.max, 3600);  // The second training job waited one hour.
  EXPECT_EQ(t->FindRun("big-000000")->state, RunState::kRunning);
  EXPECT_EQ(t->FindRun("big-000001")->state, RunState::kRunning);
  EXPECT_EQ(t->FindRun("small-000000")->state, RunState::kPending);
}

TEST(DefragTwinTest, OffWhenDisabledAndOnlyForEligibleVictims) {
  auto t = MakeTwin(FragmentedYaml("{enabled: false}"));
  Report r = t->Run();
  EXPECT_EQ(r.defrag.victims, 0);
  EXPECT_EQ(r.pending_by_reason.at("no_fit_fragmentation"), 1);  // The head of team b's queue;
  EXPECT_EQ(r.pending_by_reason.at("waiting_in_queue"), 1);      // the other waits behind it.
  // Tier-dev victims only by default: training (without checkpoints here) is not evicted.
  auto u = MakeTwin(SmallScenarioYaml(
      3, "a:15,b:8",
      "generators:\n" + Once("tr", "a", "training", 3, 0, "gpus_per_pod: 5, duration_hours: 48") +
          Once("big", "b", "training", 1, 1, "gpus_per_pod: 8, duration_hours: 4") +
          "policies:\n  defrag: {}\n"));
  Report ru = u->Run();
  EXPECT_EQ(ru.defrag.victims, 0);
  EXPECT_EQ(ru.pending_by_reason.at("no_fit_fragmentation"), 1);
}

// Policies that learn typical pods online (fgd-cpu-online) see every arriving pod once.
TEST(OnlinePolicyTest, ArrivalsTeachTheTypicalPods) {
  PlacementSetup s(SmallScenarioYaml(2, "a:16", "policies: {placement: fgd-cpu-online}\n"));
  const uint64_t before = s.placer->policy(0).ScoreEpoch();
  s.placer->Observe(Job(model::WorkloadKind::kBatch, 1));
  EXPECT_GT(s.placer->policy(0).ScoreEpoch(), before);  // It relearns at the first pod.
}

}  // namespace
}  // namespace steward::twin

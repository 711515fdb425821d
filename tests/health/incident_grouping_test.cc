// Anomaly grouping: faults clustered by rack, leaf switch and time window, so a shared-
// component failure is one incident and one ticket. Defaults: window 10 min, rack 3 nodes,
// leaf 4 nodes over 2 racks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <set>
#include <string>

#include "health/incidents/incident_grouper.h"
#include "health/remediation/recording_actuator.h"
#include "health/remediation/remediation_controller.h"
#include "model/cluster.h"

namespace steward::health {
namespace {

using ::testing::ElementsAre;

SimTime At(int64_t seconds) { return kSimStart + Seconds(seconds); }

GroupedFault F(const std::string& node, int rack, int leaf, const std::string& cat, int64_t t) {
  return {node, rack, leaf, cat, At(t), 0};
}

std::set<IncidentId> Roots(const IncidentGrouper& g) {
  std::set<IncidentId> roots;
  for (const auto& [id, inc] : g.incidents()) roots.insert(g.Root(id));
  return roots;
}

TEST(IncidentGroupingTest, TwelveNodesInOneRackAreOneRackIncident) {
  IncidentGrouper g;
  // r0-n0 .. r0-n11, one every 30 s: the last at 330 s, inside 10 min of the first.
  IncidentId last = 0;
  for (int i = 0; i < 12; ++i) {
    last = g.Add(F("r0-n" + std::to_string(i), 0, 0, "nvlink", 30 * i)).incident;
  }
  // #1, #2 are node incidents; the third fault makes rack incident #3 and absorbs them.
  ASSERT_EQ(g.incidents().size(), 3u);
  EXPECT_EQ(last, 3);
  const Incident* rack = g.Find(3);
  EXPECT_EQ(rack->scope, IncidentScope::kRack);
  EXPECT_EQ(rack->subject, "rack-0");
  EXPECT_EQ(rack->nodes.size(), 12u);
  EXPECT_EQ(rack->first_fault, At(0));
  EXPECT_EQ(rack->last_fault, At(330));
  EXPECT_EQ(g.Find(1)->parent, 3);
  EXPECT_EQ(g.Find(2)->parent, 3);
  EXPECT_THAT(Roots(g), ElementsAre(3));
  EXPECT_EQ(rack->SuspectedCause(), "rack power, top-of-rack or NVLink switch");
}

TEST(IncidentGroupingTest, DifferentFamiliesOrRacksDoNotGroup) {
  IncidentGrouper g;
  g.Add(F("a", 0, 0, "xid79", 0));
  g.Add(F("b", 0, 0, "xid48", 10));
  g.Add(F("c", 0, 0, "nvlink", 20));
  g.Add(F("d", 1, 1, "nvlink", 30));
  g.Add(F("e", 2, 2, "nvlink", 40));
  EXPECT_EQ(Roots(g).size(), 5u);
  for (const auto& [id, inc] : g.incidents()) EXPECT_EQ(inc.scope, IncidentScope::kNode);
}

TEST(IncidentGroupingTest, FaultsOutsideTheWindowDoNotGroup) {
  IncidentGrouper g;
  g.Add(F("a", 0, 0, "nvlink", 0));
  g.Add(F("b", 0, 0, "nvlink", 360));
  // At 720 s the window is [120 s, 720 s]: only b and c are in it.
  g.Add(F("c", 0, 0, "nvlink", 720));
  EXPECT_EQ(Roots(g).size(), 3u);
  // d at 900 s: b, c, d are within 10 min -> rack incident absorbing b's and c's.
  IncidentId id = g.Add(F("d", 0, 0, "nvlink", 900)).incident;
  EXPECT_EQ(g.Find(id)->scope, IncidentScope::kRack);
  EXPECT_EQ(g.Find(id)->nodes, (std::vector<std::string>{"b", "c", "d"}));
  EXPECT_EQ(g.Find(1)->parent, 0);  // a stays on its own.
}

TEST(IncidentGroupingTest, TwoRacksUnderOneLeafMakeALeafIncident) {
  IncidentGrouper g;
  g.Add(F("r0a", 0, 7, "ib", 0));
  g.Add(F("r0b", 0, 7, "ib", 10));
  g.Add(F("r1a", 1, 7, "ib", 20));  // 3 nodes, 2 racks: below the 4-node leaf threshold.
  EXPECT_EQ(Roots(g).size(), 3u);
  IncidentId id = g.Add(F("r1b", 1, 7, "ib", 30)).incident;
  const Incident* leaf = g.Find(id);
  EXPECT_EQ(leaf->scope, IncidentScope::kLeaf);
  EXPECT_EQ(leaf->subject, "leaf-7");
  EXPECT_EQ(leaf->nodes.size(), 4u);
  EXPECT_THAT(Roots(g), ElementsAre(id));
  // A later fault in a third rack of the leaf joins it.
  EXPECT_EQ(g.Add(F("r2a", 2, 7, "ib", 40)).incident, id);
}

TEST(IncidentGroupingTest, RackIncidentIsAbsorbedWhenTheLeafQualifies) {
  IncidentGrouper g;
  g.Add(F("r0a", 0, 0, "nvlink", 0));
  g.Add(F("r0b", 0, 0, "nvlink", 1));
  EXPECT_EQ(g.Add(F("r0c", 0, 0, "nvlink", 2)).incident, 3);  // Rack incident.
  IncidentId leaf = g.Add(F("r1a", 1, 0, "nvlink", 3)).incident;
  EXPECT_EQ(leaf, 4);
  EXPECT_EQ(g.Find(3)->parent, 4);
  EXPECT_EQ(g.Root(1), 4);
  EXPECT_THAT(Roots(g), ElementsAre(4));
}

TEST(IncidentGroupingTest, ThresholdsAreConfigurable) {
  IncidentOptions o;
  o.rack_min_nodes = 0;  // Rack grouping off.
  o.leaf_min_nodes = 0;
  IncidentGrouper g(o);
  for (int i = 0; i < 5; ++i) g.Add(F("n" + std::to_string(i), 0, 0, "nvlink", i));
  EXPECT_EQ(Roots(g).size(), 5u);
  o = {};
  o.rack_min_nodes = 2;
  o.window = Minutes(1);
  IncidentGrouper g2(o);
  g2.Add(F("a", 0, 0, "nvlink", 0));
  g2.Add(F("b", 0, 0, "nvlink", 61));  // Outside 1 min.
  EXPECT_EQ(Roots(g2).size(), 2u);
  EXPECT_EQ(g2.Find(g2.Add(F("c", 0, 0, "nvlink", 62)).incident)->scope, IncidentScope::kRack);
}

TEST(IncidentGroupingTest, ClosedIncidentsAreNotJoined) {
  IncidentGrouper g;
  for (int i = 0; i < 3; ++i) g.Add(F("n" + std::to_string(i), 0, 0, "nvlink", i));
  auto closed = g.Close(3);
  EXPECT_EQ(closed.size(), 3u);  // The rack incident and the two node incidents in it.
  IncidentId id = g.Add(F("n3", 0, 0, "nvlink", 10)).incident;
  EXPECT_NE(g.Root(id), 3);
}

// ---- Through the controller: one ticket for the rack, not twelve ----

class TempDb {
 public:
  explicit TempDb(const std::string& tag)
      : path_(::testing::TempDir() + "incident_" + tag + "_" + std::to_string(::getpid()) + ".db") {
    Cleanup();
  }
  ~TempDb() { Cleanup(); }
  const std::string& path() const { return path_; }

 private:
  void Cleanup() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path_ + suffix).c_str());
  }
  std::string path_;
};

// 120 nodes in one pool: racks of 12 (node i in rack i / 12), leaves of 4 racks (i / 48).
model::Cluster Cluster120() {
  model::Cluster c;
  int m = c.AddGpuModel({"H100", "NVIDIA-H100-80GB-HBM3", 81559, true});
  int pool = c.AddPool("h100", m);
  for (int i = 0; i < 120; ++i) {
    model::Node n;
    n.name = "gpu-" + std::to_string(i);
    n.pool = pool;
    n.rack = i / 12;
    n.leaf = i / 48;
    n.model = m;
    n.gpu_capacity = 8;
    c.AddNode(n);
  }
  return c;
}

TEST(IncidentGroupingTest, ControllerOpensOneRackTicketForTwelveNodesAtDefaultBudget) {
  TempDb db("controller_default");
  RecordingActuator act;
  auto made = RemediationController::Open(db.path(), NodeTopology::FromCluster(Cluster120()), &act);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  auto c = std::move(made).value();
  ASSERT_EQ(c->MaxOutInPool(0), 12);  // ceil(120 * 0.1): exactly the rack.
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(c->OnXid("gpu-" + std::to_string(i), MakeXid(74, XidAction::kResetGpu, "nvlink"),
                         At(30 * i))
                    .ok());
  }
  ASSERT_TRUE(c->Tick(At(340)).ok());
  EXPECT_EQ(act.tickets_filed(), 1);
  EXPECT_EQ(c->CountInState(NodeState::kInRepair), 12);
  // A 13th faulty node in the pool waits: the budget is full.
  ASSERT_TRUE(c->OnXid("gpu-60", MakeXid(79, XidAction::kReboot), At(400)).ok());
  EXPECT_EQ(c->state("gpu-60"), NodeState::kSuspect);
}

TEST(IncidentGroupingTest, ControllerOpensOneRackTicketForTwelveNodes) {
  TempDb db("controller");
  RecordingActuator act;
  RemediationOptions o;
  o.max_out_fraction = 0.2;  // 24 nodes: room for the rack and an unrelated node.
  auto made =
      RemediationController::Open(db.path(), NodeTopology::FromCluster(Cluster120()), &act, o);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  auto c = std::move(made).value();
  ASSERT_EQ(c->MaxOutInPool(0), 24);
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(c->OnXid("gpu-" + std::to_string(i), MakeXid(74, XidAction::kResetGpu, "nvlink"),
                         At(30 * i))
                    .ok());
    // An unrelated fault in rack 5, between the rack's 4th (90 s) and 5th (120 s) fault.
    if (i == 3) {
      ASSERT_TRUE(c->OnXid("gpu-60", MakeXid(79, XidAction::kReboot), At(100)).ok());
    }
  }
  ASSERT_TRUE(c->Tick(At(340)).ok());
  // The third node to fail (60 s) made the rack incident and opened its ticket; the first two,
  // held for grouping, adopted it; the other nine joined it.
  ASSERT_EQ(act.tickets_filed(), 1);
  const Ticket& t = c->tickets().at(1);
  EXPECT_EQ(t.scope, IncidentScope::kRack);
  EXPECT_EQ(t.subject, "rack-0");
  EXPECT_EQ(t.kind, RepairKind::kInvestigate);
  EXPECT_EQ(t.nodes.size(), 12u);
  EXPECT_EQ(t.opened_at, At(60));
  for (int i = 0; i < 12; ++i) {
    const NodeRecord* n = c->Find("gpu-" + std::to_string(i));
    EXPECT_EQ(n->state, NodeState::kInRepair);
    EXPECT_EQ(n->ticket, 1) << n->name;
  }
  // gpu-60's own ticket waits for its hold (100 + 600 s).
  EXPECT_EQ(c->Find("gpu-60")->state, NodeState::kInRepair);
  EXPECT_EQ(c->Find("gpu-60")->ticket, 0);
  ASSERT_TRUE(c->Tick(At(700)).ok());
  EXPECT_EQ(act.tickets_filed(), 2);
  EXPECT_EQ(c->tickets().at(2).subject, "gpu-60");

  // Fixing the rack validates all twelve.
  act.ClearLog();
  ASSERT_TRUE(c->OnTicketResolved(1, At(1000)).ok());
  EXPECT_EQ(c->CountInState(NodeState::kValidating), 12);
  EXPECT_EQ(act.log().size(), 12u);  // 12 x "diag gpu-i".
  EXPECT_TRUE(c->incidents().Find(t.incident)->closed);
  EXPECT_EQ(c->incidents().Find(t.incident)->scope, IncidentScope::kRack);
}

TEST(IncidentGroupingTest, GroupingSurvivesRestart) {
  TempDb db("restart");
  NodeTopology topo = NodeTopology::FromCluster(Cluster120());
  {
    RecordingActuator act;
    auto c = RemediationController::Open(db.path(), topo, &act);
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE((*c)->OnXid("gpu-0", MakeXid(74, XidAction::kResetGpu, "nvlink"), At(0)).ok());
    ASSERT_TRUE((*c)->OnXid("gpu-1", MakeXid(74, XidAction::kResetGpu, "nvlink"), At(60)).ok());
  }
  RecordingActuator act;
  auto c = RemediationController::Open(db.path(), topo, &act);
  ASSERT_TRUE(c.ok());
  // The window continued across the restart: the third fault makes the rack incident.
  ASSERT_TRUE((*c)->OnXid("gpu-2", MakeXid(74, XidAction::kResetGpu, "nvlink"), At(120)).ok());
  ASSERT_TRUE((*c)->Tick(At(130)).ok());
  EXPECT_EQ(act.tickets_filed(), 1);
  EXPECT_EQ((*c)->tickets().at(1).subject, "rack-0");
  EXPECT_EQ((*c)->Find("gpu-0")->ticket, 1);
}

}  // namespace
}  // namespace steward::health

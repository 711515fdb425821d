// The cluster-wide disruption budget: never more than ceil(pool size * max_out_fraction)
// nodes of a pool out at once; the rest wait as suspects, FIFO, until capacity returns.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "health/remediation/recording_actuator.h"
#include "health/remediation/remediation_controller.h"

namespace steward::health {
namespace {

using ::testing::ElementsAre;

class TempDb {
 public:
  explicit TempDb(const std::string& tag)
      : path_(::testing::TempDir() + "remediation_" + tag + "_" + std::to_string(::getpid()) +
              ".db") {
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

SimTime At(int64_t seconds) { return kSimStart + Seconds(seconds); }

// Pool 0: a0..a19, one rack and leaf each, so incident grouping never merges their tickets;
// pool 1: b0..b4 in rack 100, leaf 100.
NodeTopology TwoPools() {
  NodeTopology t;
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(t.Add("a" + std::to_string(i), {0, i, i}).ok());
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(t.Add("b" + std::to_string(i), {1, 100, 100}).ok());
  return t;
}

std::unique_ptr<RemediationController> OpenOrDie(const std::string& path, NodeTopology topo,
                                                 NodeActuator* act, RemediationOptions o = {}) {
  auto c = RemediationController::Open(path, std::move(topo), act, o);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(c).value() : nullptr;
}

TEST(RemediationBudgetTest, MaxOutRoundsUpAndIsAtLeastOne) {
  TempDb db("budget_round");
  RecordingActuator act;
  NodeTopology t;
  int pool_sizes[] = {120, 21, 5, 1, 10};
  int pool = 0;
  for (int size : pool_sizes) {
    for (int i = 0; i < size; ++i) {
      ASSERT_TRUE(t.Add("p" + std::to_string(pool) + "-" + std::to_string(i), {pool, 0, 0}).ok());
    }
    ++pool;
  }
  auto c = OpenOrDie(db.path(), t, &act);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->MaxOutInPool(0), 12);  // 120 * 0.1 = 12 exactly (no float round-up to 13).
  EXPECT_EQ(c->MaxOutInPool(1), 3);   // ceil(2.1).
  EXPECT_EQ(c->MaxOutInPool(2), 1);   // ceil(0.5).
  EXPECT_EQ(c->MaxOutInPool(3), 1);
  EXPECT_EQ(c->MaxOutInPool(7), 0);  // No such pool.
  c.reset();
  RemediationOptions quarter;
  quarter.max_out_fraction = 0.25;
  TempDb db2("budget_round2");
  auto c2 = OpenOrDie(db2.path(), t, &act, quarter);
  ASSERT_NE(c2, nullptr);
  EXPECT_EQ(c2->MaxOutInPool(4), 3);  // ceil(2.5).
}

TEST(RemediationBudgetTest, FurtherNodesWaitQueuedUntilCapacityReturns) {
  TempDb db("budget_queue");
  RecordingActuator act;
  auto c = OpenOrDie(db.path(), TwoPools(), &act);
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->MaxOutInPool(0), 2);  // ceil(20 * 0.1).
  ASSERT_EQ(c->MaxOutInPool(1), 1);  // ceil(5 * 0.1).
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(c->OnXid("a" + std::to_string(i), MakeXid(79, XidAction::kReboot), At(i)).ok());
    EXPECT_LE(c->OutInPool(0), 2);
  }
  EXPECT_EQ(c->state("a0"), NodeState::kInRepair);
  EXPECT_EQ(c->state("a1"), NodeState::kInRepair);
  EXPECT_EQ(c->state("a2"), NodeState::kSuspect);
  EXPECT_EQ(c->state("a3"), NodeState::kSuspect);
  EXPECT_THAT(c->Queued(0), ElementsAre("a2", "a3"));
  EXPECT_FALSE(act.cordoned("a2"));
  // Pool 1 has its own budget.
  ASSERT_TRUE(c->OnXid("b0", MakeXid(79, XidAction::kReboot), At(4)).ok());
  EXPECT_EQ(c->state("b0"), NodeState::kInRepair);
  EXPECT_EQ(c->OutInPool(1), 1);
  ASSERT_TRUE(c->OnXid("b1", MakeXid(79, XidAction::kReboot), At(5)).ok());
  EXPECT_EQ(c->state("b1"), NodeState::kSuspect);

  // Tickets for the out nodes (hold: first fault + 600 s), sorted by node name.
  ASSERT_TRUE(c->Tick(At(700)).ok());
  ASSERT_EQ(c->tickets().size(), 3u);
  EXPECT_EQ(c->tickets().at(1).subject, "a0");
  EXPECT_EQ(c->tickets().at(2).subject, "a1");
  EXPECT_EQ(c->tickets().at(3).subject, "b0");
  // Validating still counts as out: nothing admitted yet.
  ASSERT_TRUE(c->OnTicketResolved(1, At(800)).ok());
  EXPECT_EQ(c->state("a0"), NodeState::kValidating);
  EXPECT_EQ(c->OutInPool(0), 2);
  EXPECT_THAT(c->Queued(0), ElementsAre("a2", "a3"));
  // a0 back in service: the head of the queue goes.
  ASSERT_TRUE(c->OnDiagnosticResult("a0", true, "", At(900)).ok());
  EXPECT_EQ(c->state("a0"), NodeState::kHealthy);
  EXPECT_EQ(c->state("a2"), NodeState::kInRepair);
  EXPECT_EQ(c->state("a3"), NodeState::kSuspect);
  EXPECT_THAT(c->Queued(0), ElementsAre("a3"));
  EXPECT_EQ(c->OutInPool(0), 2);
  auto ts = c->Transitions("a2");
  ASSERT_TRUE(ts.ok());
  ASSERT_EQ(ts->size(), 4u);
  EXPECT_EQ((*ts)[0].to, NodeState::kSuspect);
  EXPECT_EQ((*ts)[0].at, At(2));
  EXPECT_EQ((*ts)[1].to, NodeState::kCordoned);
  EXPECT_EQ((*ts)[1].at, At(900));
  EXPECT_EQ((*ts)[1].reason, "cordoned (pool 0: 2 of 2 out)");
  EXPECT_EQ(c->state("b1"), NodeState::kSuspect);  // Pool 1 unaffected.
}

TEST(RemediationBudgetTest, AStormNeverTakesMoreThanTheBudget) {
  TempDb db("budget_storm");
  RecordingActuator act;
  act.set_hold_evicted(true);
  for (int i = 0; i < 20; ++i) {
    act.SetWorkloads("a" + std::to_string(i),
                     {{"w" + std::to_string(i), model::Tier::kDev, false}});
  }
  auto c = OpenOrDie(db.path(), TwoPools(), &act);
  ASSERT_NE(c, nullptr);
  // 10 nodes fail at the same instant (a bad driver push): ties queue by name.
  for (int i = 9; i >= 0; --i) {
    ASSERT_TRUE(c->OnXid("a" + std::to_string(i), MakeXid(119, XidAction::kResetGpu), At(0)).ok());
    EXPECT_LE(c->OutInPool(0), 2);
  }
  // The first two to arrive (a9, a8) went out; the rest queue in (time, name) order.
  EXPECT_EQ(c->state("a9"), NodeState::kDraining);
  EXPECT_EQ(c->state("a8"), NodeState::kDraining);
  EXPECT_THAT(c->Queued(0), ElementsAre("a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"));
  EXPECT_EQ(c->CountInState(NodeState::kSuspect), 8);
  for (int t = 0; t <= 3600; t += 60) {
    ASSERT_TRUE(c->Tick(At(t)).ok());
    EXPECT_LE(c->OutInPool(0), 2);
  }
  int cordons = 0;
  for (const std::string& line : act.log()) cordons += line.rfind("cordon ", 0) == 0;
  EXPECT_EQ(cordons, 2);
}

}  // namespace
}  // namespace steward::health

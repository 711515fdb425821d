// Each transition of the remediation state machine, with hand-computed times and actuator
// calls. Defaults: budget ceil(10 * 0.1) = 1 node out, tier_step 60 s, checkpoint grace 300 s,
// eviction grace 30 s, drain timeout 900 s, ticket hold 600 s, diagnostic timeout 1800 s.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "health/remediation/recording_actuator.h"
#include "health/remediation/remediation_controller.h"

namespace steward::health {
namespace {

using model::Tier;
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

// Pool 0: n0..n9, racks of 5, one leaf.
NodeTopology TenNodes() {
  NodeTopology t;
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(t.Add("n" + std::to_string(i), {0, i / 5, 0}).ok());
  return t;
}

std::vector<std::string> Path(RemediationController& c, const std::string& node) {
  auto ts = c.Transitions(node);
  EXPECT_TRUE(ts.ok()) << ts.status().ToString();
  std::vector<std::string> out;
  for (const TransitionRecord& t : *ts) {
    out.push_back(std::string(NodeStateName(t.to)) + "@" +
                  std::to_string(t.at.micros() / 1'000'000));
  }
  return out;
}

class TransitionsTest : public ::testing::Test {
 protected:
  void Open(RemediationOptions o = {}) {
    auto c = RemediationController::Open(db_.path(), TenNodes(), &act_, o);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    c_ = std::move(c).value();
  }
  TempDb db_{"transitions"};
  RecordingActuator act_;
  std::unique_ptr<RemediationController> c_;
};

TEST_F(TransitionsTest, FullLoopOnAnEmptyNode) {
  Open();
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(79, XidAction::kReboot, "", 3), At(0)).ok());
  // No workloads: suspect -> cordoned -> draining -> in-repair within the same call.
  EXPECT_EQ(c_->state("n0"), NodeState::kInRepair);
  EXPECT_TRUE(act_.cordoned("n0"));
  EXPECT_EQ(c_->tickets().size(), 0u);  // Held until the first fault + 600 s.
  EXPECT_EQ(c_->NextDeadline(), At(600));

  ASSERT_TRUE(c_->Tick(At(599)).ok());
  EXPECT_EQ(c_->tickets().size(), 0u);
  ASSERT_TRUE(c_->Tick(At(600)).ok());
  ASSERT_EQ(c_->tickets().size(), 1u);
  const Ticket& t = c_->tickets().at(1);
  EXPECT_EQ(t.subject, "n0");
  EXPECT_EQ(t.kind, RepairKind::kReboot);
  EXPECT_TRUE(t.delivered);
  EXPECT_EQ(t.external_ref, "EXT-1");
  EXPECT_EQ(c_->Find("n0")->ticket, 1);

  ASSERT_TRUE(c_->OnTicketResolved(1, At(700)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kValidating);
  EXPECT_EQ(c_->NextDeadline(), At(700 + 1800));
  ASSERT_TRUE(c_->OnDiagnosticResult("n0", true, "dcgmi diag -r 3 PASS", At(1500)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kHealthy);
  EXPECT_FALSE(act_.cordoned("n0"));

  EXPECT_THAT(Path(*c_, "n0"), ElementsAre("suspect@0", "cordoned@0", "draining@0", "in-repair@0",
                                           "validating@700", "healthy@1500"));
  EXPECT_THAT(act_.log(), ElementsAre("cordon n0", "ticket #1 n0", "diag n0", "uncordon n0"));
  EXPECT_EQ(c_->CountInState(NodeState::kInRepair), 0);
  EXPECT_EQ(c_->OutInPool(0), 0);
}

TEST_F(TransitionsTest, DrainSavesCheckpointsFirstThenEvictsDevTrainingProduction) {
  Open();
  act_.set_hold_evicted(true);  // Workloads leave only when the test says their grace is over.
  act_.SetWorkloads("n0", {{"prod-a", Tier::kProduction, false},
                           {"train-b", Tier::kTraining, true},
                           {"train-c", Tier::kTraining, false},
                           {"dev-d", Tier::kDev, false},
                           {"prod-e", Tier::kProduction, true}});
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(48, XidAction::kResetGpu), At(0)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kDraining);
  // t=0: both checkpointers (training before production), then dev.
  EXPECT_THAT(act_.log(), ElementsAre("cordon n0", "evict n0 train-b 300s", "evict n0 prod-e 300s",
                                      "evict n0 dev-d 30s"));
  EXPECT_EQ(c_->NextDeadline(), At(60));  // Training tier.
  act_.ClearLog();
  act_.Remove("n0", "dev-d");
  ASSERT_TRUE(c_->Tick(At(60)).ok());
  EXPECT_THAT(act_.log(), ElementsAre("evict n0 train-c 30s"));
  act_.ClearLog();
  act_.Remove("n0", "train-c");
  EXPECT_EQ(c_->NextDeadline(), At(120));
  ASSERT_TRUE(c_->Tick(At(120)).ok());
  EXPECT_THAT(act_.log(), ElementsAre("evict n0 prod-a 30s"));
  act_.Remove("n0", "prod-a");
  // Checkpointers were given until 300 s.
  EXPECT_EQ(c_->NextDeadline(), At(300));
  ASSERT_TRUE(c_->Tick(At(200)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kDraining);
  act_.Remove("n0", "train-b");
  act_.Remove("n0", "prod-e");
  ASSERT_TRUE(c_->Tick(At(300)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kInRepair);
  EXPECT_THAT(Path(*c_, "n0"),
              ElementsAre("suspect@0", "cordoned@0", "draining@0", "in-repair@300"));
  auto ev = c_->Evictions("n0");
  ASSERT_TRUE(ev.ok());
  ASSERT_EQ(ev->size(), 5u);
  EXPECT_EQ((*ev)[0].workload, "train-b");
  EXPECT_TRUE((*ev)[0].checkpoint);
  EXPECT_EQ((*ev)[0].grace, Seconds(300));
  EXPECT_EQ((*ev)[4].workload, "prod-a");
  EXPECT_EQ((*ev)[4].at, At(120));
}

TEST_F(TransitionsTest, ZeroTierStepStillEvictsInTierOrder) {
  RemediationOptions o;
  o.tier_step = SimDuration();
  Open(o);
  act_.SetWorkloads(
      "n0",
      {{"p", Tier::kProduction, false}, {"t", Tier::kTraining, false}, {"d", Tier::kDev, false}});
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(79, XidAction::kReboot), At(0)).ok());
  EXPECT_THAT(act_.log(),
              ElementsAre("cordon n0", "evict n0 d 30s", "evict n0 t 30s", "evict n0 p 30s"));
  // The node is seen empty on the next look (evictions are requests, never assumed done).
  EXPECT_EQ(c_->state("n0"), NodeState::kDraining);
  ASSERT_TRUE(c_->Tick(At(0)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kInRepair);
}

TEST_F(TransitionsTest, StuckDrainIsForcedAtTheTimeout) {
  Open();
  act_.set_hold_evicted(true);
  act_.SetWorkloads("n0", {{"stuck", Tier::kDev, false}});
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(79, XidAction::kReboot), At(0)).ok());
  ASSERT_TRUE(c_->Tick(At(899)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kDraining);
  EXPECT_EQ(c_->NextDeadline(), At(900));
  ASSERT_TRUE(c_->Tick(At(900)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kInRepair);
  // The ticket hold (first fault + 600 s) is over, so the ticket opens at once.
  EXPECT_THAT(act_.log(),
              ElementsAre("cordon n0", "evict n0 stuck 30s", "evict n0 stuck 0s", "ticket #1 n0"));
  EXPECT_EQ(c_->stats().forced_evictions, 1);
  auto ts = c_->Transitions("n0");
  ASSERT_TRUE(ts.ok());
  EXPECT_EQ(ts->back().reason, "drain timed out: 1 workload(s) force-evicted");
}

TEST_F(TransitionsTest, XidActionsNoneAndRestartWorkloadEscalateOnlyOnRepeats) {
  Open();
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(43, XidAction::kNone), At(0)).ok());
  EXPECT_EQ(c_->stats().ignored_xids, 1);
  // Three restart-workload XIDs within 1 h: the third makes the node suspect.
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(13, XidAction::kRestartWorkload), At(0)).ok());
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(13, XidAction::kRestartWorkload), At(1200)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kHealthy);
  // Another node's XIDs never count for n0.
  ASSERT_TRUE(c_->OnXid("n1", MakeXid(13, XidAction::kRestartWorkload), At(1300)).ok());
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(31, XidAction::kRestartWorkload), At(2400)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kInRepair);
  EXPECT_EQ(c_->Find("n0")->severity, RepairKind::kInvestigate);
  EXPECT_EQ(c_->state("n1"), NodeState::kHealthy);
  // Spread over more than an hour they do not escalate: 0 s, 3700 s, 7400 s.
  ASSERT_TRUE(c_->OnXid("n2", MakeXid(13, XidAction::kRestartWorkload), At(0)).ok());
  ASSERT_TRUE(c_->OnXid("n2", MakeXid(13, XidAction::kRestartWorkload), At(3700)).ok());
  ASSERT_TRUE(c_->OnXid("n2", MakeXid(13, XidAction::kRestartWorkload), At(7400)).ok());
  EXPECT_EQ(c_->state("n2"), NodeState::kHealthy);
}

TEST_F(TransitionsTest, LaterFaultEscalatesTheRepairKind) {
  Open();
  act_.set_hold_evicted(true);
  act_.SetWorkloads("n0", {{"d", Tier::kDev, false}});
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(48, XidAction::kResetGpu), At(0)).ok());
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(64, XidAction::kDrainAndRma), At(10)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kDraining);  // No new transition, only escalation.
  act_.Remove("n0", "d");
  ASSERT_TRUE(c_->Tick(At(700)).ok());
  ASSERT_EQ(c_->tickets().size(), 1u);
  EXPECT_EQ(c_->tickets().begin()->second.kind, RepairKind::kRma);
  EXPECT_THAT(Path(*c_, "n0"),
              ElementsAre("suspect@0", "cordoned@0", "draining@0", "in-repair@700"));
}

TEST_F(TransitionsTest, NpdConditionIsAFaultOnceAndClearsWhileQueued) {
  Open();
  ASSERT_TRUE(
      c_->OnXid("n0", MakeXid(79, XidAction::kReboot), At(0)).ok());  // Uses the 1-node budget.
  ASSERT_TRUE(c_->OnCondition("n1", {"GPUXidFatal", true, "Xid79"}, At(5)).ok());
  EXPECT_EQ(c_->state("n1"), NodeState::kSuspect);
  EXPECT_THAT(c_->Queued(0), ElementsAre("n1"));
  // NPD re-reports the permanent condition every period: no new fault.
  ASSERT_TRUE(c_->OnCondition("n1", {"GPUXidFatal", true, "Xid79"}, At(35)).ok());
  ASSERT_TRUE(c_->OnCondition("n1", {"GPUXidFatal", false, ""}, At(60)).ok());
  EXPECT_EQ(c_->state("n1"), NodeState::kHealthy);
  EXPECT_TRUE(c_->Queued(0).empty());
  EXPECT_THAT(Path(*c_, "n1"), ElementsAre("suspect@5", "healthy@60"));
}

TEST_F(TransitionsTest, FailedOutOfBandDiagnosticIsAFault) {
  Open();
  ASSERT_TRUE(c_->OnDiagnosticResult("n3", true, "", At(0)).ok());
  EXPECT_EQ(c_->state("n3"), NodeState::kHealthy);
  ASSERT_TRUE(c_->OnDiagnosticResult("n3", false, "memory bandwidth", At(10)).ok());
  EXPECT_EQ(c_->state("n3"), NodeState::kInRepair);
  EXPECT_EQ(c_->Find("n3")->reason, "diagnostic failed: memory bandwidth");
}

TEST_F(TransitionsTest, FailedActuatorCallsAreRetriedOnTick) {
  Open();
  act_.FailNext("cordon");
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(79, XidAction::kReboot), At(0)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kSuspect);
  EXPECT_EQ(c_->stats().actuator_errors, 1);
  act_.FailNext("list");
  ASSERT_TRUE(c_->Tick(At(10)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kDraining);
  ASSERT_TRUE(c_->Tick(At(20)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kInRepair);
  act_.FailNext("ticket");
  ASSERT_TRUE(c_->Tick(At(600)).ok());
  EXPECT_FALSE(c_->tickets().at(1).delivered);
  ASSERT_TRUE(c_->Tick(At(610)).ok());
  EXPECT_TRUE(c_->tickets().at(1).delivered);
  EXPECT_EQ(act_.tickets_filed(), 1);
  act_.FailNext("diag");
  ASSERT_TRUE(c_->OnTicketResolved(1, At(700)).ok());
  EXPECT_FALSE(c_->Find("n0")->diag_requested);
  ASSERT_TRUE(c_->Tick(At(720)).ok());
  EXPECT_TRUE(c_->Find("n0")->diag_requested);
  act_.FailNext("uncordon");
  ASSERT_TRUE(c_->OnDiagnosticResult("n0", true, "", At(800)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kValidating);
  ASSERT_TRUE(c_->Tick(At(810)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kHealthy);
  EXPECT_FALSE(act_.cordoned("n0"));
  EXPECT_THAT(Path(*c_, "n0"), ElementsAre("suspect@0", "cordoned@10", "draining@10",
                                           "in-repair@20", "validating@700", "healthy@810"));
}

TEST_F(TransitionsTest, RejectsUnknownNodesAndBadOptions) {
  Open();
  EXPECT_EQ(c_->OnXid("nope", MakeXid(79, XidAction::kReboot), At(0)).code(),
            Status::Code::kNotFound);
  EXPECT_EQ(c_->OnTicketResolved(42, At(0)).code(), Status::Code::kNotFound);
  EXPECT_EQ(c_->ReleaseQuarantine("n0", "ops", At(0)).code(), Status::Code::kFailedPrecondition);
  RemediationOptions bad;
  bad.drain_timeout = Minutes(5);  // < 2 * 60 s + 300 s.
  TempDb other("badopts");
  EXPECT_EQ(RemediationController::Open(other.path(), TenNodes(), &act_, bad).status().code(),
            Status::Code::kInvalidArgument);
  bad = {};
  bad.max_out_fraction = 0;
  EXPECT_FALSE(RemediationController::Open(other.path(), TenNodes(), &act_, bad).ok());
}

}  // namespace
}  // namespace steward::health

// Durability: constructing the controller again on the same SQLite file resumes every node
// where it was (mid-drain included) with no duplicate evictions, tickets or transitions.
// Each "restart" destroys the controller and uses a fresh actuator, so its call log shows
// exactly what the resumed controller did.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "health/remediation/recording_actuator.h"
#include "health/remediation/remediation_controller.h"

namespace steward::health {
namespace {

using model::Tier;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

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

NodeTopology TenNodes() {
  NodeTopology t;
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(t.Add("n" + std::to_string(i), {0, i / 5, 0}).ok());
  return t;
}

std::unique_ptr<RemediationController> Open(const TempDb& db, NodeActuator* act) {
  auto c = RemediationController::Open(db.path(), TenNodes(), act);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(c).value() : nullptr;
}

std::vector<std::string> Path(RemediationController& c, const std::string& node) {
  auto ts = c.Transitions(node);
  EXPECT_TRUE(ts.ok());
  std::vector<std::string> out;
  for (const TransitionRecord& t : *ts) {
    out.push_back(std::string(NodeStateName(t.to)) + "@" +
                  std::to_string(t.at.micros() / 1'000'000));
  }
  return out;
}

const std::vector<NodeWorkload> kStillRunning = {{"train-ckpt", Tier::kTraining, true},
                                                 {"train-batch", Tier::kTraining, false},
                                                 {"prod-infer", Tier::kProduction, false}};

TEST(RemediationRestartTest, RestartMidDrainResumesCorrectly) {
  TempDb db("restart_drain");
  {
    RecordingActuator act;
    act.set_hold_evicted(true);
    std::vector<NodeWorkload> all = kStillRunning;
    all.push_back({"dev-nb", Tier::kDev, false});
    act.SetWorkloads("n0", all);
    auto c = Open(db, &act);
    ASSERT_NE(c, nullptr);
    ASSERT_TRUE(c->OnXid("n0", MakeXid(79, XidAction::kReboot), At(0)).ok());
    EXPECT_THAT(act.log(),
                ElementsAre("cordon n0", "evict n0 train-ckpt 300s", "evict n0 dev-nb 30s"));
  }  // The controller process dies at t=0, mid-drain (phase 0 issued, 1 and 2 not).

  // dev-nb has left by 30 s; the checkpointing job is still saving.
  RecordingActuator act2;
  act2.set_hold_evicted(true);
  act2.SetWorkloads("n0", kStillRunning);
  {
    auto c = Open(db, &act2);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->state("n0"), NodeState::kDraining);
    EXPECT_EQ(c->Find("n0")->drain_phase, 1);
    EXPECT_EQ(c->OutInPool(0), 1);
    EXPECT_EQ(c->NextDeadline(), At(60));
    ASSERT_TRUE(c->Tick(At(30)).ok());
    EXPECT_THAT(act2.log(), IsEmpty());  // Nothing re-evicted, nothing re-cordoned.
    ASSERT_TRUE(c->Tick(At(60)).ok());
    EXPECT_THAT(act2.log(), ElementsAre("evict n0 train-batch 30s"));
  }  // Dies again between the training and production phases.

  RecordingActuator act3;
  act3.set_hold_evicted(true);
  act3.SetWorkloads("n0", kStillRunning);
  act3.Remove("n0", "train-batch");
  auto c = Open(db, &act3);
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Tick(At(120)).ok());
  EXPECT_THAT(act3.log(), ElementsAre("evict n0 prod-infer 30s"));
  act3.Remove("n0", "prod-infer");
  ASSERT_TRUE(c->Tick(At(150)).ok());
  EXPECT_EQ(c->state("n0"), NodeState::kDraining);  // train-ckpt saves until 300 s.
  act3.Remove("n0", "train-ckpt");
  ASSERT_TRUE(c->Tick(At(300)).ok());
  EXPECT_EQ(c->state("n0"), NodeState::kInRepair);

  EXPECT_THAT(Path(*c, "n0"),
              ElementsAre("suspect@0", "cordoned@0", "draining@0", "in-repair@300"));
  auto count = c->CountTransitions();
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 4);
  auto ev = c->Evictions("n0");
  ASSERT_TRUE(ev.ok());
  std::vector<std::string> evicted;
  for (const EvictionRecord& e : *ev) {
    evicted.push_back(e.workload + "@" + std::to_string(e.at.micros() / 1'000'000));
  }
  EXPECT_THAT(evicted, ElementsAre("train-ckpt@0", "dev-nb@0", "train-batch@60", "prod-infer@120"));
}

TEST(RemediationRestartTest, RestartInRepairAndValidatingOpensNoSecondTicketOrDiagnostic) {
  TempDb db("restart_repair");
  {
    RecordingActuator act;
    auto c = Open(db, &act);
    ASSERT_TRUE(c->OnXid("n0", MakeXid(79, XidAction::kReboot), At(0)).ok());
    ASSERT_TRUE(c->Tick(At(600)).ok());
    EXPECT_EQ(act.tickets_filed(), 1);
  }
  {
    RecordingActuator act;
    auto c = Open(db, &act);
    EXPECT_EQ(c->state("n0"), NodeState::kInRepair);
    ASSERT_EQ(c->tickets().size(), 1u);
    EXPECT_TRUE(c->tickets().at(1).delivered);
    ASSERT_TRUE(c->Tick(At(650)).ok());
    EXPECT_THAT(act.log(), IsEmpty());
    ASSERT_TRUE(c->OnTicketResolved(1, At(700)).ok());
    EXPECT_THAT(act.log(), ElementsAre("diag n0"));
  }
  RecordingActuator act;
  auto c = Open(db, &act);
  EXPECT_EQ(c->state("n0"), NodeState::kValidating);
  EXPECT_TRUE(c->Find("n0")->diag_requested);
  ASSERT_TRUE(c->Tick(At(750)).ok());
  EXPECT_THAT(act.log(), IsEmpty());  // The diagnostic already running is not started again.
  // A re-delivered resolution is a no-op.
  ASSERT_TRUE(c->OnTicketResolved(1, At(760)).ok());
  ASSERT_TRUE(c->OnDiagnosticResult("n0", true, "", At(800)).ok());
  EXPECT_THAT(act.log(), ElementsAre("uncordon n0"));
  EXPECT_THAT(Path(*c, "n0"), ElementsAre("suspect@0", "cordoned@0", "draining@0", "in-repair@0",
                                          "validating@700", "healthy@800"));
}

TEST(RemediationRestartTest, UndeliveredTicketIsSentOnceAfterRestart) {
  TempDb db("restart_outbox");
  {
    RecordingActuator act;
    act.FailNext("ticket");  // The ticket system is down when the ticket is due.
    auto c = Open(db, &act);
    ASSERT_TRUE(c->OnXid("n0", MakeXid(79, XidAction::kReboot), At(0)).ok());
    ASSERT_TRUE(c->Tick(At(600)).ok());
    EXPECT_EQ(act.tickets_filed(), 0);
    EXPECT_FALSE(c->tickets().at(1).delivered);
  }
  {
    RecordingActuator act;
    auto c = Open(db, &act);
    ASSERT_TRUE(c->Tick(At(601)).ok());
    EXPECT_THAT(act.log(), ElementsAre("ticket #1 n0"));  // Same id: the idempotency key.
    ASSERT_TRUE(c->Tick(At(602)).ok());
    EXPECT_EQ(act.tickets_filed(), 1);
  }
  RecordingActuator act;
  auto c = Open(db, &act);
  ASSERT_TRUE(c->Tick(At(603)).ok());
  EXPECT_THAT(act.log(), IsEmpty());
  EXPECT_EQ(c->tickets().size(), 1u);
  EXPECT_EQ(c->tickets().at(1).external_ref, "EXT-1");
}

TEST(RemediationRestartTest, QueueBudgetAndFlapHistorySurviveRestart) {
  TempDb db("restart_queue");
  {
    RecordingActuator act;
    auto c = Open(db, &act);
    // Different XIDs so they are three node incidents, not one rack incident.
    ASSERT_TRUE(c->OnXid("n0", MakeXid(79, XidAction::kReboot), At(0)).ok());
    ASSERT_TRUE(c->OnXid("n1", MakeXid(48, XidAction::kResetGpu), At(5)).ok());
    ASSERT_TRUE(c->OnXid("n2", MakeXid(74, XidAction::kResetGpu), At(6)).ok());
    EXPECT_THAT(c->Queued(0), ElementsAre("n1", "n2"));
  }
  RecordingActuator act;
  auto c = Open(db, &act);
  EXPECT_THAT(c->Queued(0), ElementsAre("n1", "n2"));
  EXPECT_EQ(c->OutInPool(0), 1);
  EXPECT_EQ(c->CountInState(NodeState::kSuspect), 2);
  EXPECT_EQ(c->CountInState(NodeState::kInRepair), 1);
  ASSERT_TRUE(c->Tick(At(600)).ok());
  ASSERT_TRUE(c->OnTicketResolved(1, At(700)).ok());
  ASSERT_TRUE(c->OnDiagnosticResult("n0", true, "", At(800)).ok());
  EXPECT_EQ(c->state("n1"), NodeState::kInRepair);  // Admitted when n0 came back.
  EXPECT_THAT(c->Queued(0), ElementsAre("n2"));
  // n0's failure at 0 was persisted: a new fault within 7 days quarantines it.
  c.reset();
  RecordingActuator act2;
  c = Open(db, &act2);
  ASSERT_TRUE(c->OnXid("n0", MakeXid(79, XidAction::kReboot), At(900)).ok());
  EXPECT_TRUE(c->Find("n0")->quarantine_pending);
}

TEST(RemediationRestartTest, ReplayedSignalsAreNoOps) {
  TempDb db("restart_replay");
  {
    RecordingActuator act;
    auto c = Open(db, &act);
    ASSERT_TRUE(c->OnXid("n0", MakeXid(79, XidAction::kReboot), At(0)).ok());
    ASSERT_TRUE(c->OnXid("n3", MakeXid(13, XidAction::kRestartWorkload), At(0)).ok());
    ASSERT_TRUE(c->OnXid("n3", MakeXid(13, XidAction::kRestartWorkload), At(10)).ok());
  }
  RecordingActuator act;
  auto c = Open(db, &act);
  // A live controller re-reads the last minutes of XIDs after a restart.
  ASSERT_TRUE(c->OnXid("n0", MakeXid(79, XidAction::kReboot), At(0)).ok());
  ASSERT_TRUE(c->OnXid("n3", MakeXid(13, XidAction::kRestartWorkload), At(0)).ok());
  ASSERT_TRUE(c->OnXid("n3", MakeXid(13, XidAction::kRestartWorkload), At(10)).ok());
  EXPECT_EQ(c->stats().duplicate_signals, 3);
  EXPECT_EQ(c->state("n3"), NodeState::kHealthy);  // Still 2 restarts, not 4.
  auto count = c->CountTransitions();
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 4);
  EXPECT_THAT(act.log(), IsEmpty());
  // The restart counter survived: a third one within the hour escalates.
  ASSERT_TRUE(c->OnXid("n3", MakeXid(13, XidAction::kRestartWorkload), At(20)).ok());
  EXPECT_EQ(c->state("n3"), NodeState::kSuspect);  // Budget used by n0.
}

TEST(RemediationRestartTest, ForeignFileIsAnErrorNotACrash) {
  TempDb db("restart_foreign");
  {
    std::ofstream f(db.path());
    f << "this is not a database, just some text long enough to have a header page\n";
  }
  RecordingActuator act;
  auto c = RemediationController::Open(db.path(), TenNodes(), &act);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Status::Code::kIoError);
}

}  // namespace
}  // namespace steward::health

// The flap guard: a node that fails twice within flap_window (default 7 days) is quarantined,
// kept out (and counted against the budget) until a human releases it.
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

using ::testing::ElementsAre;
using ::testing::HasSubstr;

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

constexpr int64_t kDay = 86400;
SimTime At(int64_t seconds) { return kSimStart + Seconds(seconds); }

NodeTopology TenNodes() {
  NodeTopology t;
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(t.Add("n" + std::to_string(i), {0, i / 5, 0}).ok());
  return t;
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

class FlapTest : public ::testing::Test {
 protected:
  void Open(RemediationOptions o = {}) {
    auto c = RemediationController::Open(db_.path(), TenNodes(), &act_, o);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    c_ = std::move(c).value();
  }
  // One complete loop for a fault at `t`: ticket at t+600, resolved t+700, pass at t+800.
  void Cycle(const std::string& node, int64_t t) {
    ASSERT_TRUE(c_->OnXid(node, MakeXid(79, XidAction::kReboot), At(t)).ok());
    ASSERT_TRUE(c_->Tick(At(t + 600)).ok());
    TicketId id = c_->Find(node)->ticket;
    ASSERT_NE(id, 0);
    ASSERT_TRUE(c_->OnTicketResolved(id, At(t + 700)).ok());
    ASSERT_TRUE(c_->OnDiagnosticResult(node, true, "", At(t + 800)).ok());
    ASSERT_EQ(c_->state(node), NodeState::kHealthy);
  }
  TempDb db_{"flap"};
  RecordingActuator act_;
  std::unique_ptr<RemediationController> c_;
};

TEST_F(FlapTest, SecondFailureWithinTheWindowQuarantinesUntilAHumanReleases) {
  Open();
  Cycle("n0", 0);
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(79, XidAction::kReboot), At(2 * kDay)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kQuarantined);
  EXPECT_THAT(Path(*c_, "n0"),
              ElementsAre("suspect@0", "cordoned@0", "draining@0", "in-repair@0", "validating@700",
                          "healthy@800", "suspect@172800", "cordoned@172800", "draining@172800",
                          "quarantined@172800"));
  // It was drained like any faulty node, then got a needs-human ticket at once.
  const Ticket& t = c_->tickets().at(2);
  EXPECT_TRUE(t.needs_human);
  EXPECT_TRUE(t.delivered);
  EXPECT_EQ(t.subject, "n0");
  EXPECT_EQ(c_->OutInPool(0), 1);  // Quarantined capacity is out.
  ASSERT_TRUE(c_->Tick(At(30 * kDay)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kQuarantined);  // Automation never lets it back.
  EXPECT_TRUE(act_.cordoned("n0"));

  ASSERT_TRUE(c_->ReleaseQuarantine("n0", "alice", At(31 * kDay)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kValidating);
  EXPECT_TRUE(c_->tickets().at(2).resolved());
  EXPECT_EQ(act_.log().back(), "diag n0");
  ASSERT_TRUE(c_->OnDiagnosticResult("n0", true, "", At(31 * kDay + 900)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kHealthy);
  auto ts = c_->Transitions("n0");
  ASSERT_TRUE(ts.ok());
  EXPECT_EQ((*ts)[10].reason, "released from quarantine by alice");
}

TEST_F(FlapTest, FailuresFurtherApartThanTheWindowAreRepairedNormally) {
  Open();
  Cycle("n0", 0);
  // 8 days later: the first failure (at 0) is outside the 7-day window.
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(79, XidAction::kReboot), At(8 * kDay)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kInRepair);
  EXPECT_FALSE(c_->Find("n0")->quarantine_pending);
}

TEST_F(FlapTest, WindowAndCountAreConfigurable) {
  RemediationOptions o;
  o.flap_window = Hours(1);
  Open(o);
  Cycle("n0", 0);
  Cycle("n5", 1000);
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(79, XidAction::kReboot), At(3600)).ok());  // 0 is in.
  EXPECT_EQ(c_->state("n0"), NodeState::kQuarantined);
  // 4601 - 1000 > 3600 s: n5's first failure is outside the window.
  ASSERT_TRUE(c_->OnXid("n5", MakeXid(79, XidAction::kReboot), At(4601)).ok());
  EXPECT_EQ(c_->state("n5"), NodeState::kSuspect);  // Budget (1 node) is used by n0.
  EXPECT_FALSE(c_->Find("n5")->quarantine_pending);
}

TEST_F(FlapTest, FailedValidationIsTheSecondFailure) {
  Open();
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(48, XidAction::kResetGpu), At(0)).ok());
  ASSERT_TRUE(c_->Tick(At(600)).ok());
  ASSERT_TRUE(c_->OnTicketResolved(1, At(700)).ok());
  ASSERT_TRUE(c_->OnDiagnosticResult("n0", false, "GPU 3 memory test", At(800)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kQuarantined);
  EXPECT_EQ(c_->Find("n0")->reason, "diagnostic failed: GPU 3 memory test");
  EXPECT_TRUE(c_->tickets().at(2).needs_human);
  EXPECT_EQ(c_->tickets().at(2).kind, RepairKind::kInvestigate);
}

TEST_F(FlapTest, DiagnosticTimeoutCountsAsAFailedValidation) {
  Open();
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(48, XidAction::kResetGpu), At(0)).ok());
  ASSERT_TRUE(c_->Tick(At(600)).ok());
  ASSERT_TRUE(c_->OnTicketResolved(1, At(700)).ok());
  EXPECT_EQ(c_->NextDeadline(), At(2500));  // 700 + 1800.
  ASSERT_TRUE(c_->Tick(At(2499)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kValidating);
  ASSERT_TRUE(c_->Tick(At(2500)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kQuarantined);
  auto ts = c_->Transitions("n0");
  ASSERT_TRUE(ts.ok());
  EXPECT_THAT(ts->back().reason, HasSubstr("diagnostic timed out"));
}

TEST_F(FlapTest, WithThreeAllowedAFailedValidationGoesBackToRepair) {
  RemediationOptions o;
  o.flap_max_failures = 3;
  Open(o);
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(48, XidAction::kResetGpu), At(0)).ok());
  ASSERT_TRUE(c_->Tick(At(600)).ok());
  ASSERT_TRUE(c_->OnTicketResolved(1, At(700)).ok());
  ASSERT_TRUE(c_->OnDiagnosticResult("n0", false, "", At(800)).ok());
  // Second failure of 3 allowed: straight back to repair, with a new ticket at once (no hold).
  EXPECT_EQ(c_->state("n0"), NodeState::kInRepair);
  ASSERT_EQ(c_->tickets().size(), 2u);
  EXPECT_FALSE(c_->tickets().at(2).needs_human);
  EXPECT_EQ(c_->tickets().at(2).kind, RepairKind::kInvestigate);
  ASSERT_TRUE(c_->OnTicketResolved(2, At(900)).ok());
  // A fault while validating fails the validation: the third failure.
  ASSERT_TRUE(c_->OnXid("n0", MakeXid(79, XidAction::kReboot), At(950)).ok());
  EXPECT_EQ(c_->state("n0"), NodeState::kQuarantined);
  EXPECT_THAT(Path(*c_, "n0"),
              ElementsAre("suspect@0", "cordoned@0", "draining@0", "in-repair@0", "validating@700",
                          "in-repair@800", "validating@900", "quarantined@950"));
}

}  // namespace
}  // namespace steward::health

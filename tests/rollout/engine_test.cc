// The engine's per-node state machine, batch states, budgets, rollback and durability, on an
// in-memory cluster whose clock the test moves. Expectations are worked out by hand from the
// plan: tick 1 min, restart 5 min, validation timeout 10 min, pod-deletion 5 min, drain 30 min.
#include "rollout/engine.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "fake_control.h"

namespace steward::rollout {
namespace {

using testing::FakeControl;

class FixedMetrics final : public MetricSource {
 public:
  double xids_per_node = 0;  // On every touched node in any window.
  std::set<std::string> bad_nodes;
  std::optional<double> Xids(const std::string& node, SimTime, SimTime) override {
    return bad_nodes.count(node) ? xids_per_node : 0.0;
  }
  std::optional<double> JobFailureRate(const std::vector<std::string>&, SimTime, SimTime) override {
    return 0.0;
  }
};

RolloutPlan Plan(int nodes_in_canary = 1) {
  RolloutPlan p;
  p.file = "plan.yaml";
  p.name = "drv";
  p.version = "570";
  p.previous_version = "550";
  p.max_parallel = 1;
  p.max_unavailable = 2;
  p.soak = Hours(1);
  BatchSpec canary, rest;
  canary.name = "canary";
  canary.size = nodes_in_canary;
  rest.name = "rest";
  rest.rest = true;
  p.batches = {canary, rest};
  GateSpec xids;
  xids.name = "xids";
  xids.metric = "xid_rate_delta";
  xids.success_condition = "result <= 0.5";
  xids.failure_condition = "result > 2";
  p.gates = {xids};
  return p;
}

class rollout_EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 4; ++i) control_.AddNode(fmt::format("n{}", i), 8, {{"pool", "a"}});
  }
  std::unique_ptr<RolloutEngine> Start(RolloutPlan plan, RolloutStore* store = nullptr) {
    auto e = std::make_unique<RolloutEngine>(std::move(plan), "abc123", control_, metrics_, store);
    EXPECT_TRUE(e->Begin().ok());
    return e;
  }
  // One tick: the clock moves a minute, the engine steps.
  void Tick(RolloutEngine& e, int ticks = 1) {
    for (int i = 0; i < ticks; ++i) {
      control_.now = control_.now + Minutes(1);
      ASSERT_TRUE(e.Step().ok());
    }
  }
  NodeState StateOf(RolloutEngine& e, const std::string& node) {
    for (const NodeRun& n : e.run().nodes)
      if (n.name == node) return n.state;
    return NodeState::kUntouched;
  }
  FakeControl control_;
  FixedMetrics metrics_;
};

TEST_F(rollout_EngineTest, NodeWalksTheDriverControllerStates) {
  auto e = Start(Plan());
  // Begin: the canary (n0) is upgrade-required, the rest untouched.
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kUpgradeRequired);
  EXPECT_EQ(StateOf(*e, "n1"), NodeState::kUntouched);
  EXPECT_EQ(control_.LabelOf("n0", kUpgradeStateLabel), "upgrade-required");
  EXPECT_EQ(e->run().batches[0].state, BatchState::kCanary);
  Tick(*e);  // A slot: cordon-required.
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kCordonRequired);
  Tick(*e);  // Cordoned.
  EXPECT_TRUE(control_.nodes["n0"].unschedulable);
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kWaitForJobsRequired);
  Tick(*e);  // No waiting configured.
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kPodDeletionRequired);
  Tick(*e);  // No pods: the version label changes, the driver pod restarts.
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kPodRestartRequired);
  EXPECT_EQ(control_.LabelOf("n0", "steward.io/gpu-driver-version"), "570");
  EXPECT_EQ(e->run().nodes_upgraded, 1);
  Tick(*e, 4);  // Restart takes 5 min.
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kPodRestartRequired);
  Tick(*e);
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kValidationRequired);
  Tick(*e);  // All 8 GPUs advertised, Ready.
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kUncordonRequired);
  Tick(*e);
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kUpgradeDone);
  EXPECT_FALSE(control_.nodes["n0"].unschedulable);
  EXPECT_EQ(control_.LabelOf("n0", kUpgradeStateLabel), "upgrade-done");
  // The batch notices on the same step... and soaks.
  EXPECT_EQ(e->run().batches[0].state, BatchState::kSoak);
  // Every decision carries the commit.
  for (const Decision& d : e->decisions()) EXPECT_EQ(d.commit, "abc123");
}

TEST_F(rollout_EngineTest, DrainIsCheckpointAwareAndTimesOut) {
  control_.AddPod("n0", "ckpt-job", true);
  control_.AddPod("n0", "plain-job", false);
  auto e = Start(Plan());
  Tick(*e, 3);
  ASSERT_EQ(StateOf(*e, "n0"), NodeState::kPodDeletionRequired);
  Tick(*e);  // Evicts both, with their graces.
  ASSERT_EQ(control_.evictions.size(), 2u);
  EXPECT_EQ(control_.evictions[0].grace, Seconds(300));
  EXPECT_EQ(control_.evictions[1].grace, Seconds(30));
  Tick(*e, 3);  // Evicted once only, though the pods are still there.
  EXPECT_EQ(control_.evictions.size(), 2u);
  Tick(*e);  // Pod deletion timeout (5 min in state): drain-required.
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kDrainRequired);
  Tick(*e, 29);
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kDrainRequired);
  Tick(*e);  // Drain timeout (30 min): upgrade-failed, the version never changed ...
  EXPECT_TRUE(std::any_of(e->decisions().begin(), e->decisions().end(), [](const Decision& d) {
    return d.object == "n0" && d.from == "drain-required" && d.to == "upgrade-failed";
  }));
  EXPECT_EQ(control_.LabelOf("n0", "steward.io/gpu-driver-version"), "");
  // ... the batch aborts (no validator gate): the rollback only undoes the cordon.
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kUncordonRequired);
  Tick(*e);
  EXPECT_FALSE(control_.nodes["n0"].unschedulable);
  Tick(*e);
  EXPECT_EQ(e->run().state, RolloutState::kRolledBack);
  EXPECT_EQ(e->run().nodes_rolled_back, 0);
}

TEST_F(rollout_EngineTest, DrainFinishesWhenPodsLeave) {
  control_.AddPod("n0", "job", true);
  auto e = Start(Plan());
  Tick(*e, 4);
  ASSERT_EQ(StateOf(*e, "n0"), NodeState::kPodDeletionRequired);
  control_.pods.clear();  // The pod stopped within its grace.
  Tick(*e);
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kPodRestartRequired);
}

TEST_F(rollout_EngineTest, ValidationTimeoutFailsTheNode) {
  auto e = Start(Plan());
  Tick(*e, 9);
  ASSERT_EQ(StateOf(*e, "n0"), NodeState::kValidationRequired);
  control_.nodes["n0"].gpu_allocatable = 0;  // The device plugin advertises nothing.
  Tick(*e, 9);
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kValidationRequired);
  Tick(*e);  // 10 min in validation-required: upgrade-failed ...
  EXPECT_TRUE(std::any_of(e->decisions().begin(), e->decisions().end(), [](const Decision& d) {
    return d.object == "n0" && d.from == "validation-required" && d.to == "upgrade-failed";
  }));
  // ... and with no validator gate the batch aborts on the same step: the run rolls back.
  EXPECT_EQ(e->run().batches[0].state, BatchState::kRollback);
  EXPECT_TRUE(e->run().rolling_back);
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kUpgradeRequired);  // To go back to 550.
  EXPECT_EQ(e->run().nodes[0].want_version, "550");
}

TEST_F(rollout_EngineTest, AdminCordonedNodesUseTheBudgetAndStayCordoned) {
  // maxUnavailable 2, maxParallel 0 (unlimited); n3 was cordoned by an admin.
  control_.nodes["n3"].unschedulable = true;
  RolloutPlan p = Plan(4);
  p.max_parallel = 0;
  auto e = Start(p);
  Tick(*e);
  // n3 starts without a slot; of the others, one fits (2 - 1 unavailable).
  EXPECT_EQ(StateOf(*e, "n3"), NodeState::kCordonRequired);
  int started = 0;
  for (const char* n : {"n0", "n1", "n2"}) started += StateOf(*e, n) != NodeState::kUpgradeRequired;
  EXPECT_EQ(started, 1);
  for (int i = 0; i < 60; ++i) {
    Tick(*e);
    int unavailable = 0;
    for (const auto& [name, node] : control_.nodes) unavailable += node.unschedulable;
    EXPECT_LE(unavailable, 2) << "at tick " << i;
  }
  EXPECT_EQ(StateOf(*e, "n3"), NodeState::kUpgradeDone);
  EXPECT_TRUE(control_.nodes["n3"].unschedulable);  // Left as the admin had it.
  EXPECT_LE(e->run().max_unavailable_seen, 2);
}

TEST_F(rollout_EngineTest, FailedGateRollsBackEveryTouchedNode) {
  metrics_.bad_nodes = {"n0"};
  metrics_.xids_per_node = 10;  // 10 XIDs in the 1 h window: 10/node-hour > 2.
  auto e = Start(Plan());
  Tick(*e, 11);
  ASSERT_EQ(e->run().batches[0].state, BatchState::kSoak);
  Tick(*e, 60);  // Soak over: the gate measures and fails.
  EXPECT_EQ(e->run().batches[0].gates[0].verdict, Verdict::kFailed);
  EXPECT_EQ(e->run().batches[0].state, BatchState::kRollback);
  EXPECT_EQ(StateOf(*e, "n1"), NodeState::kUntouched);  // The next batch never started.
  Tick(*e, 30);
  EXPECT_EQ(e->run().state, RolloutState::kRolledBack);
  EXPECT_EQ(control_.LabelOf("n0", "steward.io/gpu-driver-version"), "550");
  EXPECT_FALSE(control_.nodes["n0"].unschedulable);
  EXPECT_EQ(e->run().nodes_upgraded, 1);
  EXPECT_EQ(e->run().nodes_rolled_back, 1);
  for (const char* n : {"n1", "n2", "n3"})
    EXPECT_EQ(control_.LabelOf(n, "steward.io/gpu-driver-version"), "") << n;
}

TEST_F(rollout_EngineTest, InconclusiveGatePauses) {
  metrics_.bad_nodes = {"n0"};
  metrics_.xids_per_node = 1;  // 1/node-hour: between 0.5 and 2.
  auto e = Start(Plan());
  Tick(*e, 71);
  EXPECT_EQ(e->run().batches[0].gates[0].verdict, Verdict::kInconclusive);
  EXPECT_EQ(e->run().state, RolloutState::kPaused);
  EXPECT_FALSE(e->Active());
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kUpgradeDone);  // Nothing undone.
}

TEST_F(rollout_EngineTest, HumanAnswersAPause) {
  metrics_.bad_nodes = {"n0"};
  metrics_.xids_per_node = 1;
  auto e = Start(Plan());
  EXPECT_EQ(e->AnswerPause(RolloutEngine::Answer::kResume, "early").code(),
            Status::Code::kFailedPrecondition);  // Not paused yet.
  Tick(*e, 71);
  ASSERT_EQ(e->run().state, RolloutState::kPaused);
  ASSERT_TRUE(e->AnswerPause(RolloutEngine::Answer::kResume, "looked at the XIDs").ok());
  EXPECT_EQ(e->run().state, RolloutState::kRunning);
  EXPECT_EQ(e->run().batches[0].state, BatchState::kDone);
  EXPECT_EQ(e->run().batches[1].state, BatchState::kPromote);
  EXPECT_EQ(e->run().reason, "resumed by a human: looked at the XIDs");
  EXPECT_EQ(StateOf(*e, "n1"), NodeState::kUpgradeRequired);

  auto a = std::make_unique<FakeControl>();
  FakeControl& c = *a;
  for (int i = 0; i < 4; ++i) c.AddNode(fmt::format("n{}", i), 8, {{"pool", "a"}});
  RolloutEngine aborted(Plan(), "abc123", c, metrics_, nullptr);
  ASSERT_TRUE(aborted.Begin().ok());
  for (int i = 0; i < 71; ++i) {
    c.now = c.now + Minutes(1);
    ASSERT_TRUE(aborted.Step().ok());
  }
  ASSERT_EQ(aborted.run().state, RolloutState::kPaused);
  ASSERT_TRUE(aborted.AnswerPause(RolloutEngine::Answer::kAbort, "no").ok());
  for (int i = 0; i < 30; ++i) {
    c.now = c.now + Minutes(1);
    ASSERT_TRUE(aborted.Step().ok());
  }
  EXPECT_EQ(aborted.run().state, RolloutState::kRolledBack);
  EXPECT_EQ(c.LabelOf("n0", "steward.io/gpu-driver-version"), "550");
}

TEST_F(rollout_EngineTest, PassingGatePromotesAndSucceeds) {
  auto e = Start(Plan());
  Tick(*e, 71);
  EXPECT_EQ(e->run().batches[0].state, BatchState::kDone);
  EXPECT_EQ(e->run().batches[1].state, BatchState::kPromote);
  Tick(*e, 200);
  EXPECT_EQ(e->run().state, RolloutState::kSucceeded);
  EXPECT_EQ(e->run().nodes_upgraded, 4);
  for (const auto& [name, node] : control_.nodes)
    EXPECT_EQ(control_.LabelOf(name, "steward.io/gpu-driver-version"), "570") << name;
}

class rollout_EngineStoreTest : public rollout_EngineTest {
 protected:
  void SetUp() override {
    rollout_EngineTest::SetUp();
    // One file per process and test: CTest runs this suite's tests in parallel processes.
    path_ = ::testing::TempDir() + "/rollout_engine_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db";
    std::filesystem::remove(path_);
    std::filesystem::remove(path_ + "-wal");
    std::filesystem::remove(path_ + "-shm");
  }
  void TearDown() override {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }
  std::unique_ptr<RolloutStore> Open() {
    Result<std::unique_ptr<RolloutStore>> s = RolloutStore::Open(path_);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return std::move(s).value();
  }
  std::string path_;
};

TEST_F(rollout_EngineStoreTest, ResumeAfterCrashUpgradesNoNodeTwice) {
  {
    auto store = Open();
    auto e = Start(Plan(), store.get());
    Tick(*e, 6);  // Mid-way: n0 restarted on 570.
    ASSERT_EQ(StateOf(*e, "n0"), NodeState::kPodRestartRequired);
  }  // The process dies: only the store is left.
  auto store = Open();
  auto e = Start(Plan(), store.get());
  EXPECT_EQ(StateOf(*e, "n0"), NodeState::kPodRestartRequired);
  Tick(*e, 300);
  EXPECT_EQ(e->run().state, RolloutState::kSucceeded);
  for (const NodeRun& n : e->run().nodes) EXPECT_EQ(n.upgrades, 1) << n.name;
  Result<std::vector<Decision>> log = store->Decisions();
  ASSERT_TRUE(log.ok());
  for (size_t i = 0; i < log->size(); ++i) EXPECT_EQ((*log)[i].seq, static_cast<int64_t>(i));
}

TEST_F(rollout_EngineStoreTest, RevertedPlanRollsBack) {
  {
    auto store = Open();
    auto e = Start(Plan(), store.get());
    Tick(*e, 300);
    ASSERT_EQ(e->run().state, RolloutState::kSucceeded);
  }
  RolloutPlan reverted = Plan();
  reverted.version = "550";
  reverted.previous_version = "570";
  auto store = Open();
  auto e = Start(reverted, store.get());
  EXPECT_TRUE(e->run().rolling_back);
  Tick(*e, 300);
  EXPECT_EQ(e->run().state, RolloutState::kRolledBack);
  for (const auto& [name, node] : control_.nodes)
    EXPECT_EQ(control_.LabelOf(name, "steward.io/gpu-driver-version"), "550") << name;
  EXPECT_EQ(e->run().nodes_rolled_back, 4);
}

TEST_F(rollout_EngineStoreTest, ReplayChecksTheLog) {
  {
    auto store = Open();
    auto e = Start(Plan(), store.get());
    Tick(*e, 6);
  }
  // A replay that decides the same: accepted, nothing logged twice.
  FakeControl fresh;
  for (int i = 0; i < 4; ++i) fresh.AddNode(fmt::format("n{}", i), 8, {{"pool", "a"}});
  auto store = Open();
  const int64_t logged = *store->Logged();
  RolloutEngine replay(Plan(), "abc123", fresh, metrics_, store.get());
  ASSERT_TRUE(replay.Begin(RolloutEngine::Start::kReplay).ok());
  for (int i = 0; i < 6; ++i) {
    fresh.now = fresh.now + Minutes(1);
    ASSERT_TRUE(replay.Step().ok());
  }
  EXPECT_EQ(*store->Logged(), logged);
  // A replay that decides differently (n0 now has a pod to drain) is refused.
  FakeControl other;
  for (int i = 0; i < 4; ++i) other.AddNode(fmt::format("n{}", i), 8, {{"pool", "a"}});
  other.AddPod("n0", "job", false);
  RolloutEngine diverged(Plan(), "abc123", other, metrics_, store.get());
  ASSERT_TRUE(diverged.Begin(RolloutEngine::Start::kReplay).ok());
  Status s;
  for (int i = 0; i < 12 && s.ok(); ++i) {
    other.now = other.now + Minutes(1);
    s = diverged.Step();
  }
  EXPECT_EQ(s.code(), Status::Code::kAborted) << s.ToString();
}

}  // namespace
}  // namespace steward::rollout

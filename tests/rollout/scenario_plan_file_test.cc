// A gated faults.driver_rollouts entry that takes a full rollout plan file (gated.plan) and a
// pause that waits for a human: the scenario's scripted one (gated.human), an answer through
// PauseAnswerer (steward serve's POST /api/rollouts/NAME/answer), or none until the run ends.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "rollout/scenario_rollouts.h"
#include "twin/scenario.h"
#include "twin/twin.h"

namespace steward::rollout {
namespace {

namespace fs = std::filesystem;

// A scratch directory with a scenario and its plan file side by side.
class rollout_PlanFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("steward_plan_file_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }

  // A plan for driver `version` on the h100 pool: a 2-node canary, then the rest. Its one gate
  // measures the XID delta with conditions no value meets (success below -1, failure above
  // 1e9): always inconclusive, so every batch pauses.
  void WritePlan(const std::string& version = "565") {
    Write("plan.yaml", R"(apiVersion: steward.io/v1
kind: Rollout
name: h100-565
component: driver
version: ")" + version + R"("
selector: {steward.io/pool: h100}
maxParallel: 2
soak: 1h
batches:
  - {name: canary, size: 2}
  - {name: rest, rest: true}
gates:
  - {name: xids, metric: xid_rate_delta, successCondition: "result < -1",
     failureCondition: "result > 1000000000"}
)");
  }

  // 8 nodes on driver 550, no faults but the entry; `gated` is the entry's gated mapping.
  Result<twin::Scenario> Parse(const std::string& gated) {
    const std::string yaml = R"(name: plan-file
seed: 3
horizon_days: 1
cluster:
  gpu_models:
    - {name: H100, product_label: NVIDIA-H100-80GB-HBM3, memory_mib: 81559}
  pools:
    - {name: h100, nodes: 8, gpus_per_node: 8, gpu_model: H100, nodes_per_rack: 4,
       driver_version: "550"}
teams:
  - {name: t, quota_gpus: 64}
faults:
  enabled: true
  xids: [{xid: 13, per_gpu_hour: 0}]
  other_interruptions_per_gpu_hour: 0
  rack_events: {per_rack_day: 0}
  driver_rollouts:
    - {pool: h100, at_hours: 1, driver_version: "565",
       gated: )" + gated + R"(}
remediation: {enabled: false}
)";
    Write("scenario.yaml", yaml);
    return twin::LoadScenario((dir_ / "scenario.yaml").string());
  }

  std::unique_ptr<twin::Twin> Run(const std::string& gated, TwinRollout** rollout) {
    Result<twin::Scenario> s = Parse(gated);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return nullptr;
    Result<std::unique_ptr<twin::Twin>> t = twin::Twin::Create(std::move(s).value());
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    Result<std::vector<TwinRollout*>> attached = AttachScenarioRollouts(**t);
    EXPECT_TRUE(attached.ok()) << attached.status().ToString();
    EXPECT_EQ(attached->size(), 1u);
    *rollout = attached->front();
    return std::move(t).value();
  }

  fs::path dir_;
};

// Decisions of kind "rollout" (state changes of the whole rollout), in order.
std::vector<Decision> RolloutDecisions(const TwinRollout& r) {
  std::vector<Decision> out;
  for (const Decision& d : r.engine()->decisions())
    if (d.kind == "rollout") out.push_back(d);
  return out;
}

TEST_F(rollout_PlanFileTest, ThePlanFileRunsOnTheEntrysBatch) {
  WritePlan();
  Result<twin::Scenario> s = Parse("{plan: plan.yaml}");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  // Relative to the scenario file.
  EXPECT_EQ(s->faults.driver_rollouts[0].gated.plan, dir_ / "plan.yaml");
  Result<std::unique_ptr<twin::Twin>> t = twin::Twin::Create(*s);
  ASSERT_TRUE(t.ok());
  Result<RolloutPlan> plan = PlanForDriverRollout(*s, (*t)->cluster(), 0);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->name, "h100-565");  // The plan's, not one made from the entry.
  EXPECT_EQ(plan->nodes.size(), 8u);  // The entry's batch: the rest of the pool from node 0.
  ASSERT_EQ(plan->batches.size(), 2u);
  EXPECT_EQ(plan->batches[0].size, 2);
  ASSERT_EQ(plan->gates.size(), 1u);
  EXPECT_EQ(plan->gates[0].success_condition, "result < -1");
}

// Without a human the first pause lasts until the run ends: the canary's two nodes are
// upgraded, the rest never start.
TEST_F(rollout_PlanFileTest, APauseWithoutAHumanLastsToTheEnd) {
  WritePlan();
  TwinRollout* r = nullptr;
  auto twin = Run("{plan: plan.yaml}", &r);
  ASSERT_NE(twin, nullptr);
  twin->RunUntil(twin->horizon());
  ASSERT_TRUE(r->status().ok()) << r->status().ToString();
  const RolloutRun& run = r->engine()->run();
  EXPECT_EQ(run.state, RolloutState::kPaused) << run.reason;
  EXPECT_EQ(run.current_batch, 0);
  EXPECT_EQ(run.nodes_upgraded, 2);
  EXPECT_EQ(run.batches[1].state, BatchState::kPending);
}

// gated.human {answer: resume, after_hours: 1.5}: each of the two pauses is answered exactly
// 90 minutes after it began, and the rollout finishes.
TEST_F(rollout_PlanFileTest, TheScenariosHumanResumesEachPauseAfterItsDelay) {
  WritePlan();
  TwinRollout* r = nullptr;
  auto twin = Run("{plan: plan.yaml, human: {answer: resume, after_hours: 1.5}}", &r);
  ASSERT_NE(twin, nullptr);
  twin->RunUntil(twin->horizon());
  ASSERT_TRUE(r->status().ok()) << r->status().ToString();
  const RolloutRun& run = r->engine()->run();
  EXPECT_EQ(run.state, RolloutState::kSucceeded) << run.reason;
  EXPECT_EQ(run.nodes_upgraded, 8);
  EXPECT_EQ(run.nodes_rolled_back, 0);
  std::vector<SimTime> paused, resumed;
  for (const Decision& d : RolloutDecisions(*r)) {
    if (d.to == "paused") paused.push_back(d.at);
    if (d.from == "paused") {
      resumed.push_back(d.at);
      EXPECT_NE(d.reason.find("resumed by a human: the scenario's human, 90 min into the pause"),
                std::string::npos)
          << d.reason;
    }
  }
  ASSERT_EQ(paused.size(), 2u);  // Canary, then rest.
  ASSERT_EQ(resumed.size(), 2u);
  for (size_t i = 0; i < 2; ++i) EXPECT_EQ(resumed[i] - paused[i], Minutes(90));
}

TEST_F(rollout_PlanFileTest, TheScenariosHumanAbortsAndTheCanaryRollsBack) {
  WritePlan();
  TwinRollout* r = nullptr;
  auto twin = Run("{plan: plan.yaml, human: {answer: abort, after_hours: 0}}", &r);
  ASSERT_NE(twin, nullptr);
  twin->RunUntil(twin->horizon());
  ASSERT_TRUE(r->status().ok()) << r->status().ToString();
  const RolloutRun& run = r->engine()->run();
  EXPECT_EQ(run.state, RolloutState::kRolledBack) << run.reason;
  EXPECT_EQ(run.nodes_upgraded, 2);
  EXPECT_EQ(run.nodes_rolled_back, 2);
  EXPECT_EQ(run.batches[1].state, BatchState::kPending);
  for (const model::Node& n : twin->cluster().nodes()) EXPECT_EQ(n.driver_version, "550");
}

// The answer steward serve gives: unknown names and a rollout that is not paused are refused;
// a resume between RunUntil calls wakes the engine (Twin::Rewake) and the rollout moves on.
TEST_F(rollout_PlanFileTest, AnAnswerFromOutsideResumesBetweenSteps) {
  WritePlan();
  TwinRollout* r = nullptr;
  auto twin = Run("{plan: plan.yaml}", &r);
  ASSERT_NE(twin, nullptr);
  auto answer = PauseAnswerer({r});
  EXPECT_EQ(answer(*twin, "h100-565", true, "early").code(), Status::Code::kFailedPrecondition);
  twin->RunUntil(kSimStart + Hours(8));
  ASSERT_EQ(r->engine()->run().state, RolloutState::kPaused);
  EXPECT_EQ(answer(*twin, "no-such", true, "x").code(), Status::Code::kNotFound);
  ASSERT_TRUE(answer(*twin, "h100-565", true, "looked at the canary").ok());
  EXPECT_EQ(r->engine()->run().state, RolloutState::kRunning);
  twin->RunUntil(twin->horizon());
  const RolloutRun& run = r->engine()->run();
  // The rest batch ran and paused on its own inconclusive gate.
  EXPECT_EQ(run.state, RolloutState::kPaused);
  EXPECT_EQ(run.current_batch, 1);
  EXPECT_EQ(run.nodes_upgraded, 8);
  bool found = false;
  for (const Decision& d : RolloutDecisions(*r))
    found = found || (d.from == "paused" && d.at == kSimStart + Hours(8) &&
                      d.reason == "resumed by a human: looked at the canary");
  EXPECT_TRUE(found);
}

TEST_F(rollout_PlanFileTest, ErrorsNameFileLineAndField) {
  WritePlan("570");
  Result<twin::Scenario> s = Parse("{plan: plan.yaml}");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  Result<std::unique_ptr<twin::Twin>> t = twin::Twin::Create(*s);
  ASSERT_TRUE(t.ok());
  Result<RolloutPlan> plan = PlanForDriverRollout(*s, (*t)->cluster(), 0);
  ASSERT_FALSE(plan.ok());
  const std::string m = plan.status().message();
  EXPECT_NE(m.find("scenario.yaml:19"), std::string::npos) << m;
  EXPECT_NE(m.find("faults.driver_rollouts[0].gated.plan"), std::string::npos) << m;
  EXPECT_NE(m.find("rolls out driver 570; the entry's driver_version is 565"), std::string::npos)
      << m;

  s = Parse("{plan: missing.yaml}");
  ASSERT_TRUE(s.ok());
  plan = PlanForDriverRollout(*s, (*t)->cluster(), 0);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("missing.yaml"), std::string::npos);

  for (const char* bad :
       {"{plan: plan.yaml, canary_nodes: 2}", "{plan: plan.yaml, human: {answer: maybe}}",
        "{plan: plan.yaml, human: {answer: resume, after_hours: -1}}",
        "{plan: plan.yaml, human: {after_hours: 1}}"}) {
    SCOPED_TRACE(bad);
    s = Parse(bad);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.status().message().find("scenario.yaml:"), std::string::npos);
    EXPECT_NE(s.status().message().find("faults.driver_rollouts[0].gated."), std::string::npos)
        << s.status().message();
  }
}

}  // namespace
}  // namespace steward::rollout

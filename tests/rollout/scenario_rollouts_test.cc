// A scenario's gated faults.driver_rollouts entries as rollouts the engine runs in the twin
// (rollout/scenario_rollouts.h): the plan built from an entry, the twin applying the entry's
// version to the nodes whose label the engine sets, and whole runs that stop at the canary and
// roll back.
#include "rollout/scenario_rollouts.h"

#include <gtest/gtest.h>

#include "rollout/status.h"
#include "twin/report.h"
#include "twin/scenario.h"
#include "twin/twin.h"

namespace steward::rollout {
namespace {

// 8 nodes h100-0000..h100-0007 on driver 550; XID 13 only, at `base` per GPU-hour; `rollouts`
// is the faults.driver_rollouts list.
std::string Scenario(const std::string& rollouts, double base = 0.0001) {
  return R"(name: gated
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
  xids: [{xid: 13, per_gpu_hour: )" +
         std::to_string(base) + R"(}]
  other_interruptions_per_gpu_hour: 0
  rack_events: {per_rack_day: 0}
  driver_rollouts:
)" + rollouts +
         "remediation: {enabled: false}\n";
}

std::unique_ptr<twin::Twin> MakeTwin(const std::string& yaml) {
  Result<twin::Scenario> s = twin::ParseScenario(yaml, "gated.yaml");
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  Result<std::unique_ptr<twin::Twin>> t = twin::Twin::Create(std::move(s).value());
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return std::move(t).value();
}

// Records XIDs by node name and gives the test a ClusterControl on the twin.
class Probe final : public twin::TwinController {
 public:
  std::map<std::string, int> xids;
  std::string_view Name() const override { return "probe"; }
  Status Attach(twin::TwinOps& ops) override {
    ops_ = &ops;
    control_ = std::make_unique<twin::TwinClusterControl>(ops);
    return Status::Ok();
  }
  void OnSignal(const twin::TwinSignal& s) override {
    if (s.kind == twin::TwinSignal::Kind::kXid) ++xids[ops_->cluster().node(s.node).name];
  }
  twin::TwinClusterControl& control() { return *control_; }

 private:
  twin::TwinOps* ops_ = nullptr;
  std::unique_ptr<twin::TwinClusterControl> control_;
};

Probe* AddProbe(twin::Twin& t) {
  Result<twin::TwinController*> c = t.AddController(std::make_unique<Probe>());
  EXPECT_TRUE(c.ok());
  return static_cast<Probe*>(*c);
}

const NodeRun* FindNode(const RolloutRun& run, const std::string& name) {
  for (const NodeRun& n : run.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(rollout_ScenarioRolloutsTest, PlanFromTheEntry) {
  auto twin = MakeTwin(
      Scenario("    - {pool: h100, at_hours: 1, first_node: 2, nodes: 4, driver_version: \"575\",\n"
               "       gated: {canary_nodes: 1, soak_hours: 2, max_parallel: 2, "
               "max_xid_rate_delta: 1.5}}\n"));
  Result<RolloutPlan> plan = PlanForDriverRollout(twin->scenario(), twin->cluster(), 0);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->name, "h100-driver-575");
  EXPECT_EQ(plan->component, Component::kDriver);
  EXPECT_EQ(plan->version, "575");
  EXPECT_EQ(plan->previous_version, "");  // Each node's own driver.
  EXPECT_EQ(plan->nodes,
            (std::vector<std::string>{"h100-0002", "h100-0003", "h100-0004", "h100-0005"}));
  ASSERT_EQ(plan->batches.size(), 2u);
  EXPECT_EQ(plan->batches[0].name, "canary");
  EXPECT_EQ(plan->batches[0].nodes, std::vector<std::string>{"h100-0002"});
  EXPECT_EQ(plan->batches[1].name, "rest");
  EXPECT_TRUE(plan->batches[1].rest);
  EXPECT_EQ(plan->max_parallel, 2);
  EXPECT_EQ(plan->soak, Hours(2));
  ASSERT_EQ(plan->gates.size(), 3u);
  EXPECT_EQ(plan->gates[0].metric, "xid_rate_delta");
  EXPECT_EQ(plan->gates[0].success_condition, "result <= 1.5");
  EXPECT_EQ(plan->gates[0].failure_condition, "result > 1.5");
  EXPECT_EQ(plan->gates[1].metric, "schedulable_gpus");
  EXPECT_EQ(plan->gates[1].success_condition, "result >= 0.75");
  EXPECT_EQ(plan->gates[1].failure_condition, "result < 0.75");
  EXPECT_EQ(plan->gates[2].metric, "job_failure_rate");
  EXPECT_EQ(plan->gates[2].success_condition, "result <= 0.5");
  EXPECT_EQ(plan->gates[2].failure_condition, "result > 0.5");
}

TEST(rollout_ScenarioRolloutsTest, CanaryAsBigAsTheBatchIsTheOnlyBatch) {
  auto twin =
      MakeTwin(Scenario("    - {pool: h100, at_hours: 1, first_node: 6, driver_version: \"575\",\n"
                        "       gated: {canary_nodes: 3}}\n"));
  Result<RolloutPlan> plan = PlanForDriverRollout(twin->scenario(), twin->cluster(), 0);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  // nodes: the rest of the pool from index 6: two nodes, both canaries.
  EXPECT_EQ(plan->nodes, (std::vector<std::string>{"h100-0006", "h100-0007"}));
  ASSERT_EQ(plan->batches.size(), 1u);
  EXPECT_EQ(plan->batches[0].nodes, plan->nodes);
}

TEST(rollout_ScenarioRolloutsTest, BadGatedFieldNamesFileLineAndField) {
  Result<twin::Scenario> s =
      twin::ParseScenario(Scenario("    - {pool: h100, at_hours: 1, driver_version: \"575\",\n"
                                   "       gated: {canary_nodes: 0}}\n"),
                          "gated.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("gated.yaml:"), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find("faults.driver_rollouts[0].gated.canary_nodes"),
            std::string::npos)
      << s.status().message();
  s = twin::ParseScenario(Scenario("    - {pool: h100, at_hours: 1, driver_version: \"575\",\n"
                                   "       gated: {canary: 2}}\n"),
                          "gated.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("canary"), std::string::npos) << s.status().message();
}

// The twin's side: the gated entry's version acts on a batch node once its label says so, and
// stops when the label goes back; the label on a node outside the batch does nothing.
TEST(rollout_ScenarioRolloutsTest, LabelAppliesTheGatedVersionToBatchNodesOnly) {
  auto twin = MakeTwin(Scenario(
      "    - {pool: h100, at_hours: 1, first_node: 2, nodes: 2, driver_version: \"blind\",\n"
      "       advertises_gpus: false, gated: true}\n"));
  Probe* probe = AddProbe(*twin);
  twin->RunUntil(kSimStart + Hours(2));
  twin::TwinClusterControl& c = probe->control();
  // Not switched at at_hours: the engine (not attached here) would do it.
  EXPECT_EQ(c.Node("h100-0002")->gpu_allocatable, 8);
  EXPECT_EQ(c.Node("h100-0002")->labels.at("nvidia.com/cuda.driver-version.full"), "550");
  ASSERT_TRUE(c.LabelNode("h100-0002", "steward.io/gpu-driver-version", "blind", "t").ok());
  ASSERT_TRUE(c.LabelNode("h100-0005", "steward.io/gpu-driver-version", "blind", "t").ok());
  EXPECT_EQ(c.Node("h100-0002")->gpu_allocatable, 0);
  EXPECT_EQ(c.Node("h100-0005")->gpu_allocatable, 8);  // Not in the entry's batch.
  ASSERT_TRUE(c.LabelNode("h100-0002", "steward.io/gpu-driver-version", "550", "t").ok());
  EXPECT_EQ(c.Node("h100-0002")->gpu_allocatable, 8);
}

// A whole run: the engine starts at at_hours, the canary node fails validation (its device
// plugin advertises nothing on the bad driver), the batch aborts and the node goes back; the
// rest of the batch never gets the driver.
TEST(rollout_ScenarioRolloutsTest, BlindDriverStopsAtTheCanaryAndRollsBack) {
  auto twin = MakeTwin(Scenario(
      "    - {pool: h100, at_hours: 1, first_node: 2, nodes: 4, driver_version: \"blind\",\n"
      "       advertises_gpus: false, gated: true}\n"));
  Probe* probe = AddProbe(*twin);
  Result<std::vector<TwinRollout*>> attached = AttachScenarioRollouts(*twin);
  ASSERT_TRUE(attached.ok()) << attached.status().ToString();
  ASSERT_EQ(attached->size(), 1u);
  const TwinRollout* r = attached->front();
  twin->RunUntil(kSimStart + Minutes(59));
  EXPECT_FALSE(r->begun());
  EXPECT_EQ(probe->control().Node("h100-0002")->labels.count(kUpgradeStateLabel), 0u);
  twin->RunUntil(twin->horizon());
  ASSERT_TRUE(r->status().ok()) << r->status().ToString();
  ASSERT_TRUE(r->begun());
  const RolloutRun& run = r->engine()->run();
  EXPECT_EQ(run.state, RolloutState::kRolledBack) << run.reason;
  ASSERT_FALSE(r->engine()->decisions().empty());
  EXPECT_GE(r->engine()->decisions().front().at, kSimStart + Hours(1));
  ASSERT_EQ(run.batches.size(), 2u);
  EXPECT_EQ(run.batches[0].nodes, std::vector<std::string>{"h100-0002"});
  EXPECT_EQ(run.batches[0].state, BatchState::kRolledBack);
  EXPECT_EQ(run.batches[1].state, BatchState::kPending);
  EXPECT_EQ(run.nodes_upgraded, 1);
  EXPECT_EQ(run.nodes_rolled_back, 1);
  for (const char* name : {"h100-0003", "h100-0004", "h100-0005"}) {
    SCOPED_TRACE(name);
    ASSERT_NE(FindNode(run, name), nullptr);
    EXPECT_EQ(FindNode(run, name)->upgrades, 0);
  }
  // Every node of the pool is back where it was: driver 550, 8 GPUs, schedulable.
  for (const control::NodeInfo& n : probe->control().Nodes()) {
    SCOPED_TRACE(n.name);
    EXPECT_EQ(n.labels.at("nvidia.com/cuda.driver-version.full"), "550");
    EXPECT_EQ(n.gpu_allocatable, 8);
    EXPECT_FALSE(n.unschedulable);
  }
  twin::Report report = twin->BuildReport();
  ASSERT_EQ(report.rollouts.size(), 1u);
  EXPECT_EQ(report.rollouts[0].status["state"], "rolled_back");
  EXPECT_EQ(report.rollouts[0].status["batches"][0]["state"], "rolled-back");
  EXPECT_NE(report.rollouts[0].text.find("state: rolled_back"), std::string::npos);
}

// The XID gate: 10,001 x a base of 1e-4 XID 13 per GPU-hour is about 8 extra per node-hour on
// the canary, far above max_xid_rate_delta 0.5; the gate fails, the canary goes back, and the
// extra XIDs stop with it.
TEST(rollout_ScenarioRolloutsTest, NoisyDriverFailsTheXidGateAndStopsWithTheRollback) {
  auto twin = MakeTwin(Scenario(
      "    - {pool: h100, at_hours: 1, first_node: 2, nodes: 4, driver_version: \"noisy\",\n"
      "       xid_rate_multiplier: 10001, gated: {soak_hours: 1}}\n"));
  Probe* probe = AddProbe(*twin);
  Result<std::vector<TwinRollout*>> attached = AttachScenarioRollouts(*twin);
  ASSERT_TRUE(attached.ok()) << attached.status().ToString();
  const TwinRollout* r = attached->front();
  while (twin->now() < twin->horizon() && r->status().ok() &&
         (!r->begun() || r->engine()->run().state == RolloutState::kRunning))
    twin->RunUntil(std::min(twin->horizon(), twin->now() + Minutes(10)));
  const RolloutRun& run = r->engine()->run();
  ASSERT_EQ(run.state, RolloutState::kRolledBack) << run.reason;
  const GateRun& xids = run.batches[0].gates[0];
  EXPECT_EQ(xids.name, "xids");
  EXPECT_EQ(xids.verdict, Verdict::kFailed);
  ASSERT_FALSE(xids.measurements.empty());
  EXPECT_GT(*xids.measurements.back().value, 0.5);
  EXPECT_EQ(run.batches[1].state, BatchState::kPending);
  const int at_rollback = probe->xids["h100-0002"];
  EXPECT_GT(at_rollback, 4);
  // Back on 550: 8 GPUs x 1e-4 per GPU-hour over the rest of the day, almost surely none.
  twin->RunUntil(twin->horizon());
  EXPECT_LE(probe->xids["h100-0002"] - at_rollback, 1);
  for (const char* name : {"h100-0003", "h100-0004", "h100-0005"})
    EXPECT_EQ(FindNode(run, name)->upgrades, 0) << name;
}

// The dashboard's feed: nothing before the rollout begins; then the statuses, rebuilt only when
// the engine decided something (the same pointer in between).
TEST(rollout_ScenarioRolloutsTest, StatusFeedRebuildsOnlyOnNewDecisions) {
  auto twin = MakeTwin(Scenario(
      "    - {pool: h100, at_hours: 1, first_node: 2, nodes: 4, driver_version: \"blind\",\n"
      "       advertises_gpus: false, gated: true}\n"));
  Result<std::vector<TwinRollout*>> attached = AttachScenarioRollouts(*twin);
  ASSERT_TRUE(attached.ok()) << attached.status().ToString();
  const TwinRollout* r = attached->front();
  auto feed = StatusFeed({r});
  twin->RunUntil(kSimStart + Minutes(30));
  EXPECT_EQ(feed(), nullptr);
  twin->RunUntil(kSimStart + Hours(1) + Minutes(1));
  std::shared_ptr<const nlohmann::json> first = feed();
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0], StatusJson(r->engine()->run(), r->engine()->decisions()));
  EXPECT_EQ(feed(), first);  // Nothing decided since.
  twin->RunUntil(twin->horizon());
  std::shared_ptr<const nlohmann::json> last = feed();
  EXPECT_NE(last, first);
  EXPECT_EQ((*last)[0]["state"], "rolled_back");
  EXPECT_EQ(feed(), last);
}

}  // namespace
}  // namespace steward::rollout

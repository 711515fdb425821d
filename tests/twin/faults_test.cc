// The twin's fault model (twin_faults.cc), scenario faults section, checkpoint events, the
// controller plug-in point and the NodeList export. Faults are scheduled at fixed times so
// every expectation is computed by hand; only the rate calibration is statistical.
#include <gtest/gtest.h>

#include <cmath>

#include "twin/build_cluster.h"
#include "twin/fault_injector.h"
#include "twin/node_list_export.h"
#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

using testing::MakeTwin;
using testing::MustParse;
using testing::SmallScenarioYaml;

// Random faults off; `scheduled` is the faults.scheduled list.
std::string Faults(const std::string& scheduled) {
  return "faults: {enabled: false, scheduled: [" + scheduled + "]}\n";
}

const WorkloadRun& RunOf(const Twin& t, const std::string& name) {
  const WorkloadRun* r = t.FindRun(name);
  if (r == nullptr) throw std::runtime_error("no run " + name);
  return *r;
}

constexpr double kStartup = 90.0 / 3600;

SimTime At(double hours) {
  return kSimStart + SecondsF(hours * 3600);
}  // Hours of startup (policies.startup_seconds).

// A 16-GPU training gang (2 pods) checkpointing hourly with a 6-minute restore, and an 8-GPU
// batch job on another node; the gang lands on p-0000 and p-0001, the batch job on p-0002.
std::string GangAndBatch(const std::string& faults) {
  return SmallScenarioYaml(
      4, "t:16,u:8",
      faults +
          "generators:\n"
          "  - {name: train, team: t, kind: training, arrival: {process: once, count: 1}, pods: 2,"
          " gpus_per_pod: 8, duration_hours: 10, checkpoint_interval_minutes: 60,"
          " restore_minutes: 6}\n"
          "  - {name: batch, team: u, kind: batch, arrival: {process: once, count: 1},"
          " gpus_per_pod: 8, duration_hours: 20}\n");
}

TEST(FaultsTest, ScheduledXidStopsExactlyTheWorkloadsOnTheGpuAndLosesSinceTheCheckpoint) {
  auto t = MakeTwin(GangAndBatch(Faults("{at_hours: 2.5, node: p-0000, gpu: 3, xid: 79}")));
  t->RunUntil(At(2));
  ASSERT_EQ(RunOf(*t, "train-000000").pods.size(), 2u);
  EXPECT_EQ(RunOf(*t, "train-000000").pods[0].node, 0);
  EXPECT_EQ(RunOf(*t, "batch-000000").pods[0].node, 2);
  t->RunUntil(At(2.5));
  // XID 79 (reboot): GPU 3 of p-0000 is out, the gang on it stopped, the batch job did not.
  const model::GpuId g = t->cluster().node(0).first_gpu + 3;
  EXPECT_EQ(t->cluster().gpu(g).health, model::GpuHealth::kFailed);
  EXPECT_EQ(t->gpu_faults()[g].last_xid, 79);
  EXPECT_EQ(t->cluster().node(0).gpu_allocatable, 7);
  EXPECT_EQ(RunOf(*t, "train-000000").interruptions, 1);
  EXPECT_EQ(RunOf(*t, "batch-000000").interruptions, 0);
  EXPECT_EQ(RunOf(*t, "batch-000000").state, RunState::kRunning);
  // The gang started at 90 s and checkpointed at 1 h 1.5 min and 2 h 1.5 min: 28.5 min of 16
  // GPUs are lost, plus the 6-minute restore it pays on restart.
  const double lost = 16 * (2.5 - (2 + kStartup)) + 16 * 0.1;
  Report r = t->BuildReport();
  EXPECT_NEAR(r.faults.lost_gpu_hours_by_cause.at("failure"), lost, 1e-9);
  EXPECT_NEAR(r.lost_gpu_hours, lost, 1e-9);
  EXPECT_EQ(r.faults.xid_events, 1);
  EXPECT_EQ(r.faults.by_xid.at("79"), 1);
  EXPECT_EQ(r.faults.by_source.at("scheduled"), 1);
  EXPECT_EQ(r.faults.gpus_failed, 1);
  EXPECT_EQ(r.faults.workloads_interrupted, 1);
  EXPECT_EQ(r.faults.interruptions, 1);
  EXPECT_EQ(r.faults.incidents_open, -1);  // No remediation controller.
  // Work left: 10 h minus the 2 h saved, plus the restore.
  const WorkloadRun& train = RunOf(*t, "train-000000");
  EXPECT_EQ(train.remaining, Hours(8) + Minutes(6));
  EXPECT_TRUE(train.has_checkpoint);

  // It restarts at once where 8 GPUs are free: not on p-0000 (7 usable GPUs).
  t->RunUntil(At(2.6));
  ASSERT_EQ(train.state, RunState::kRunning);
  for (const PodAllocation& p : train.pods) EXPECT_NE(p.node, 0);
  r = t->Run();
  // Nobody repairs the GPU: it is lost from 2.5 h to the end of the day.
  EXPECT_NEAR(r.faults.capacity_lost_gpu_hours, 1 * (24 - 2.5), 1e-9);
  EXPECT_EQ(r.faults.repairs, 0);
  EXPECT_EQ(r.faults.nodes_out_at_end, 1);
  EXPECT_EQ(r.faults.gpus_faulty_at_end, 1);
  EXPECT_EQ(r.workloads_completed, 2);  // The gang (2.5 + 8.1 h + startups) and the batch job.
}

TEST(FaultsTest, ApplicationXidRestartsTheWorkloadAndKeepsTheGpu) {
  auto t = MakeTwin(GangAndBatch(Faults("{at_hours: 3, node: p-0002, gpu: 5, xid: 94}")));
  Report r = t->Run();
  const model::GpuId g = t->cluster().node(2).first_gpu + 5;
  EXPECT_EQ(t->cluster().gpu(g).health, model::GpuHealth::kHealthy);
  EXPECT_EQ(t->gpu_faults()[g].last_xid, 94);
  EXPECT_EQ(t->gpu_faults()[g].ecc_dbe_volatile, 1);  // A contained ECC error.
  EXPECT_EQ(RunOf(*t, "batch-000000").interruptions, 1);
  EXPECT_EQ(RunOf(*t, "train-000000").interruptions, 0);
  // The batch job never checkpoints: everything since its start is lost.
  EXPECT_NEAR(r.faults.lost_gpu_hours_by_cause.at("failure"), 8 * (3 - kStartup), 1e-9);
  EXPECT_EQ(r.faults.gpus_failed, 0);
  EXPECT_NEAR(r.faults.capacity_lost_gpu_hours, 0, 1e-12);
}

TEST(FaultsTest, InformationalXidOnlyCounts) {
  auto t = MakeTwin(GangAndBatch(Faults("{at_hours: 3, node: p-0002, gpu: 1, xid: 92}")));
  Report r = t->Run();
  const model::GpuId g = t->cluster().node(2).first_gpu + 1;
  EXPECT_EQ(t->gpu_faults()[g].last_xid, 92);
  EXPECT_EQ(t->gpu_faults()[g].ecc_sbe_aggregate, 256);
  EXPECT_EQ(r.faults.xid_events, 1);
  EXPECT_EQ(r.faults.interruptions, 0);
  EXPECT_NEAR(r.lost_gpu_hours, 0, 1e-12);
}

TEST(FaultsTest, RackEventHitsEveryGpuOfTheRack) {
  // Racks of 2 nodes: rack 1 is p-0002 and p-0003.
  auto t = MakeTwin(GangAndBatch(Faults("{at_hours: 4, rack: 1, xid: 74}")));
  t->RunUntil(At(4));
  Report r = t->BuildReport();
  EXPECT_EQ(r.faults.rack_events, 1);
  EXPECT_EQ(r.faults.xid_events, 16);
  EXPECT_EQ(r.faults.gpus_failed, 16);
  EXPECT_EQ(t->cluster().node(2).gpu_allocatable, 0);
  EXPECT_FALSE(t->state().schedulable(2));
  const model::GpuId g = t->cluster().node(3).first_gpu;
  EXPECT_EQ(t->gpu_faults()[g].nvlink_recovery, 1);
  EXPECT_EQ(t->gpu_faults()[g].nvlink_crc_flit, 100);
  EXPECT_EQ(RunOf(*t, "batch-000000").interruptions, 1);
  EXPECT_EQ(RunOf(*t, "train-000000").interruptions, 0);
}

TEST(FaultsTest, InjectXidChecksItsArguments) {
  auto t = MakeTwin(GangAndBatch(Faults("")));
  EXPECT_EQ(t->InjectXid(99, 0, 79).code(), Status::Code::kNotFound);
  EXPECT_EQ(t->InjectXid(0, 0, 12345).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(t->InjectXid(0, 8, 79).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(t->InjectRackEvent(2, 74).code(), Status::Code::kNotFound);
  ASSERT_TRUE(t->InjectXid(1, -1, 79).ok());  // Every GPU of p-0001.
  EXPECT_EQ(t->BuildReport().faults.by_source.at("injected"), 8);
}

TEST(FaultsTest, ServiceReplicaOnAFailedGpuIsReplacedWithoutLostWork) {
  auto t = MakeTwin(SmallScenarioYaml(
      2, "s:16",
      Faults("{at_hours: 1, node: p-0000, gpu: 0, xid: 79}") +
          "generators:\n"
          "  - {name: svc, team: s, kind: inference, arrival: {process: once, count: 1},"
          " gpus_per_pod: 8, min_replicas: 1, max_replicas: 1}\n"));
  t->RunUntil(At(1));
  const WorkloadRun& svc = RunOf(*t, "svc-000000");
  EXPECT_EQ(svc.interruptions, 1);
  t->RunUntil(At(1) + Minutes(5));
  ASSERT_EQ(svc.pods.size(), 1u);
  EXPECT_EQ(svc.pods[0].node, 1);  // p-0000 has only 7 usable GPUs left.
  EXPECT_TRUE(svc.pods[0].running);
  EXPECT_NEAR(t->BuildReport().lost_gpu_hours, 0, 1e-12);
}

TEST(FaultsTest, CheckpointsAreEventsAndBoundTheLoss) {
  // Two interruptions: one at 1.75 h (last checkpoint at 1 h 1.5 min), one 30 min after the
  // restart (restore 6 min, no checkpoint yet in that segment: all of it is lost).
  auto t = MakeTwin(SmallScenarioYaml(
      3, "t:16",
      Faults("{at_hours: 1.75, node: p-0000, gpu: 0, xid: 94}, {at_hours: 2.3, node: p-0000, "
             "gpu: 0, xid: 94}") +
          "generators:\n"
          "  - {name: train, team: t, kind: training, arrival: {process: once, count: 1},"
          " gpus_per_pod: 8, duration_hours: 5, checkpoint_interval_minutes: 60,"
          " restore_minutes: 6}\n"));
  t->RunUntil(At(1.75));
  const WorkloadRun& run = RunOf(*t, "train-000000");
  EXPECT_EQ(run.interruptions, 1);
  double lost = 8 * (1.75 - (1 + kStartup)) + 8 * 0.1;
  EXPECT_NEAR(t->BuildReport().lost_gpu_hours, lost, 1e-9);
  // An application XID keeps the GPU: first-fit restarts the job on p-0000 at once.
  t->RunUntil(At(2.3));
  EXPECT_EQ(run.interruptions, 2);
  // Second segment: running from 1.75 h + 90 s, restoring for 6 min (already counted as lost
  // by the first interruption), no checkpoint before 2.3 h: the work since the restore is
  // lost, and the next restore.
  lost += 8 * (2.3 - (1.75 + kStartup + 0.1)) + 8 * 0.1;
  EXPECT_NEAR(t->BuildReport().lost_gpu_hours, lost, 1e-9);
  // Saved work is still the first hour: 5 h - 1 h + restore left.
  EXPECT_EQ(run.remaining, Hours(4) + Minutes(6));
  Report r = t->Run();
  EXPECT_EQ(r.workloads_completed, 1);
  // Goodput = useful / allocated training GPU-hours, useful = allocated - startup - lost.
  const double allocated = r.allocated_gpu_hours;
  EXPECT_NEAR(r.faults.training_goodput, (allocated - 3 * 8 * kStartup - lost) / allocated, 1e-9);
  // The useful part is exactly the job's 5 hours of 8 GPUs.
  EXPECT_NEAR(allocated - 3 * 8 * kStartup - lost, 8 * 5, 1e-9);
}

// A controller that, on any XID, cordons the node and evicts everything on it after `grace`,
// and repairs and uncordons it `repair` later.
class EvictingController : public TwinController {
 public:
  EvictingController(SimDuration grace, SimDuration repair) : grace_(grace), repair_(repair) {}
  std::string_view Name() const override { return "evict-test"; }
  Status Attach(TwinOps& ops) override {
    ops_ = &ops;
    return Status::Ok();
  }
  void OnSignal(const TwinSignal& s) override {
    ++signals;
    node_ = s.node;
    EXPECT_TRUE(ops_->SetCordoned(s.node, true).ok());
    for (const NodeWorkloadInfo& w : ops_->WorkloadsOn(s.node)) {
      evicted.push_back(w.name);
      EXPECT_TRUE(ops_->Evict(s.node, w.id, grace_).ok());
    }
    wake_ = s.at + repair_;
  }
  void OnWake(SimTime now) override {
    if (now < wake_) return;
    healthy_before_repair = ops_->Healthy(node_);
    EXPECT_TRUE(ops_->Repair(node_).ok());
    EXPECT_TRUE(ops_->Healthy(node_));
    EXPECT_TRUE(ops_->SetCordoned(node_, false).ok());
    wake_ = SimTime::Never();
  }
  SimTime NextDeadline() const override { return wake_; }

  int signals = 0;
  std::vector<std::string> evicted;
  bool healthy_before_repair = true;

 private:
  TwinOps* ops_ = nullptr;
  SimDuration grace_, repair_;
  model::NodeId node_ = model::kNoNode;
  SimTime wake_ = SimTime::Never();
};

TEST(FaultsTest, ControllerEvictsWithGraceAndRepairs) {
  // p-0000 holds a checkpointing job (GPUs 0-3) and a batch job (GPUs 4-7). XID 79 on GPU 0
  // stops the first; the controller evicts the batch job with a 5-minute grace and repairs
  // the node 2 h later.
  auto t = MakeTwin(SmallScenarioYaml(
      2, "a:16",
      Faults("{at_hours: 2.5, node: p-0000, gpu: 0, xid: 79}") +
          "generators:\n"
          "  - {name: ckpt, team: a, kind: training, arrival: {process: once, count: 1},"
          " gpus_per_pod: 4, duration_hours: 10, checkpoint_interval_minutes: 60,"
          " restore_minutes: 6}\n"
          "  - {name: batch, team: a, kind: batch, arrival: {process: once, count: 1},"
          " gpus_per_pod: 4, duration_hours: 10}\n"));
  auto added = t->AddController(std::make_unique<EvictingController>(Minutes(5), Hours(2)));
  ASSERT_TRUE(added.ok());
  auto* c = static_cast<EvictingController*>(*added);
  t->RunUntil(At(2.5));
  EXPECT_EQ(c->signals, 1);
  ASSERT_EQ(c->evicted.size(), 1u);  // The checkpointing job had already stopped on the XID.
  EXPECT_EQ(c->evicted[0], "a/batch-000000");
  EXPECT_TRUE(t->cluster().node(0).cordoned);
  // Within its grace the batch job still holds its GPUs.
  t->RunUntil(At(2.5) + Minutes(4));
  EXPECT_EQ(RunOf(*t, "batch-000000").pods.size(), 1u);
  t->RunUntil(At(2.5) + Minutes(5));
  EXPECT_EQ(RunOf(*t, "batch-000000").interruptions, 1);
  Report r = t->BuildReport();
  EXPECT_NEAR(r.faults.lost_gpu_hours_by_cause.at("drain"), 4 * (2.5 + 5.0 / 60 - kStartup), 1e-9);
  EXPECT_NEAR(r.faults.lost_gpu_hours_by_cause.at("failure"), 4 * (2.5 - (2 + kStartup)) + 4 * 0.1,
              1e-9);
  t->RunUntil(At(4.5));
  EXPECT_FALSE(c->healthy_before_repair);
  EXPECT_FALSE(t->cluster().node(0).cordoned);
  EXPECT_EQ(t->cluster().node(0).gpu_allocatable, 8);
  EXPECT_EQ(t->gpu_faults()[0].last_xid, 0);  // A repair clears the XID.
  r = t->BuildReport();
  EXPECT_EQ(r.faults.repairs, 1);
  EXPECT_NEAR(r.faults.mttr_hours, 2, 1e-9);
  // p-0000 was out for 2 h: 4 GPUs (one broken, three free on a cordoned node) for the first
  // 5 minutes, then all 8.
  EXPECT_NEAR(r.faults.capacity_lost_gpu_hours, 4 * 5.0 / 60 + 8 * (2 - 5.0 / 60), 1e-9);
}

TEST(FaultsTest, CheckpointingJobEvictedWithGraceLosesOnlyItsRestore) {
  auto t = MakeTwin(SmallScenarioYaml(
      2, "a:16",
      Faults("{at_hours: 2.5, node: p-0000, gpu: 7, xid: 92}") +
          "generators:\n"
          "  - {name: ckpt, team: a, kind: training, arrival: {process: once, count: 1},"
          " gpus_per_pod: 4, duration_hours: 10, checkpoint_interval_minutes: 60,"
          " restore_minutes: 6}\n"));
  auto added = t->AddController(std::make_unique<EvictingController>(Minutes(5), Hours(1)));
  ASSERT_TRUE(added.ok());
  Report r = t->Run();
  EXPECT_NEAR(r.faults.lost_gpu_hours_by_cause.at("drain"), 4 * 0.1, 1e-9);
  const WorkloadRun& run = RunOf(*t, "ckpt-000000");
  EXPECT_EQ(run.interruptions, 1);
  EXPECT_EQ(run.state, RunState::kDone);
}

TEST(FaultsTest, BadDriverRolloutStopsAdvertisingGpus) {
  auto t = MakeTwin(SmallScenarioYaml(
      4, "a:32",
      "faults:\n  enabled: true\n  xids: []\n  rack_events: {per_rack_day: 0}\n"
      "  driver_rollouts:\n    - {pool: p, at_hours: 1, first_node: 2, nodes: 2,"
      " driver_version: \"560.1\", advertises_gpus: false}\n"
      "generators:\n"
      "  - {name: batch, team: a, kind: batch, arrival: {process: once, count: 4},"
      " gpus_per_pod: 8, duration_hours: 5}\n"));
  t->RunUntil(At(1));
  for (model::NodeId n : {2, 3}) {
    EXPECT_TRUE(t->gpus_missing(n));
    EXPECT_EQ(t->cluster().node(n).gpu_allocatable, 0);
    EXPECT_FALSE(t->state().schedulable(n));
    EXPECT_EQ(t->cluster().node(n).driver_version, "560.1");
  }
  EXPECT_EQ(t->cluster().node(1).driver_version, "550.90.07");
  Report r = t->BuildReport();
  EXPECT_EQ(r.faults.driver_rollouts, 1);
  EXPECT_EQ(r.faults.interruptions, 2);  // The two jobs on p-0002 and p-0003.
  // The NodeList a `kubectl get nodes -o json` would show.
  const nlohmann::json list = NodeListJson(*t);
  ASSERT_EQ(list["items"].size(), 4u);
  const nlohmann::json& n2 = list["items"][2];
  EXPECT_EQ(n2["metadata"]["name"], "p-0002");
  EXPECT_EQ(n2["status"]["capacity"]["nvidia.com/gpu"], "8");
  EXPECT_EQ(n2["status"]["allocatable"]["nvidia.com/gpu"], "0");
  EXPECT_EQ(n2["metadata"]["labels"]["nvidia.com/cuda.driver-version.full"], "560.1");
  EXPECT_EQ(n2["metadata"]["labels"]["steward.io/pool"], "p");
  EXPECT_EQ(n2["metadata"]["labels"]["nvidia.com/gpu.product"], "NVIDIA-H100");
  EXPECT_EQ(list["items"][0]["status"]["allocatable"]["nvidia.com/gpu"], "8");
}

// With random faults off, a rollout still happens (it crashed the twin before) and brings no
// extra XIDs, however large its multiplier.
TEST(FaultsTest, RolloutHappensWithRandomFaultsOff) {
  auto t = MakeTwin(
      SmallScenarioYaml(4, "a:32",
                        "faults:\n  enabled: false\n"
                        "  driver_rollouts:\n    - {pool: p, at_hours: 1, first_node: 3, nodes: 1,"
                        " driver_version: \"560.1\", xid_rate_multiplier: 1000}\n"));
  t->RunUntil(At(48));
  EXPECT_EQ(t->cluster().node(3).driver_version, "560.1");
  EXPECT_EQ(t->cluster().node(2).driver_version, "550.90.07");
  EXPECT_FALSE(t->gpus_missing(3));
  for (const GpuFaultState& g : t->gpu_faults()) EXPECT_EQ(g.last_xid, 0);
  EXPECT_EQ(t->BuildReport().faults.driver_rollouts, 1);
}

TEST(FaultsTest, ScenarioErrorsNameFileLineAndField) {
  auto err = [](const std::string& faults) {
    Result<Scenario> s = ParseScenario(SmallScenarioYaml(2, "a:8", faults), "f.yaml");
    return s.ok() ? std::string("ok") : s.status().message();
  };
  EXPECT_NE(err("faults: {xids: [{xid: 4242, per_gpu_hour: 1e-6}]}\n").find("faults.xids[0].xid"),
            std::string::npos);
  EXPECT_NE(err("faults: {xids: [{xid: 79, per_gpu_hour: -1}]}\n").find("per_gpu_hour"),
            std::string::npos);
  EXPECT_NE(err("faults: {colour: red}\n").find("faults.colour"), std::string::npos);
  EXPECT_NE(err("faults: {driver_rollouts: [{pool: nope, at_hours: 1, driver_version: x}]}\n")
                .find("unknown pool 'nope'"),
            std::string::npos);
  EXPECT_NE(
      err("faults: {scheduled: [{at_hours: 1, xid: 79}]}\n").find("exactly one of node or rack"),
      std::string::npos);
  EXPECT_NE(err("remediation: {max_out_fraction: 2}\n").find("f.yaml:"), std::string::npos);
  // Node names are checked when the cluster exists, still with the file and line.
  auto t = Twin::Create(MustParse(SmallScenarioYaml(
      2, "a:8", "faults:\n  scheduled:\n    - {at_hours: 1, node: zz, xid: 79}\n")));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("test.yaml:"), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find("faults.scheduled[0].node"), std::string::npos);
}

TEST(FaultsTest, DefaultRatesFollowTheLlama3Split) {
  const FaultSpec spec;
  double xids = 0;
  for (const XidRateSpec& x : spec.xids) xids += x.per_gpu_hour;
  const double llama = 419.0 / (54 * 24 * 16384.0);
  EXPECT_NEAR(xids, 0.587 * llama, 1e-15);
  EXPECT_NEAR(spec.rack_events.per_rack_day / (24 * 32), 35.0 / 419 * llama, 1e-15);
  EXPECT_NEAR(
      xids + spec.other_interruptions_per_gpu_hour + spec.rack_events.per_rack_day / (24 * 32),
      llama, 1e-15);
  // 0.47 per 1,000 GPUs per day.
  EXPECT_NEAR(llama * 24 * 1000, 0.4736, 1e-4);
}

TEST(FaultsTest, InjectedRatesMatchTheSpecOverALongRun) {
  // Statistical: 1,024 GPUs for 8,000 days of the default XID mix -> expected count
  // 1024 * 192000 * 1.158e-5 = 2,277 (sd 48): the draws must land within 10% (4.7 sd), and
  // XID 79's share (34.7%, sd 1.0 point) within 4 points.
  model::Cluster c = std::move(BuildCluster(MustParse(SmallScenarioYaml(128, "a:8", "")))).value();
  FaultSpec spec;
  FaultInjector inj(spec, c, 11);
  double xid_rate = 0;
  for (const XidRateSpec& x : spec.xids) xid_rate += x.per_gpu_hour;
  const SimTime end = kSimStart + Days(8000);
  int count = 0, x79 = 0;
  for (SimTime t = inj.Next(FaultInjector::kGpuXids, kSimStart); t <= end;
       t = inj.Next(FaultInjector::kGpuXids, t)) {
    ++count;
    x79 += inj.DrawXid(FaultInjector::kGpuXids) == 79;
    const model::GpuId g = inj.DrawGpu(FaultInjector::kGpuXids);
    ASSERT_GE(g, 0);
    ASSERT_LT(g, 1024);
  }
  const double expected = 1024 * 8000 * 24 * xid_rate;
  EXPECT_NEAR(count, expected, 0.10 * expected);
  EXPECT_NEAR(static_cast<double>(x79) / count, 0.347, 0.04);
}

TEST(FaultsTest, SameSeedSameRunWithFaultsOn) {
  auto run = [] {
    TwinOptions o;
    o.days = 2;
    auto t = Twin::Create(DefaultScenario(), o);
    return ToJson((*t)->Run()).dump();
  };
  const std::string a = run();
  EXPECT_EQ(a, run());
  EXPECT_NE(a.find("\"faults\""), std::string::npos);
}

}  // namespace
}  // namespace steward::twin

// The twin's control::ClusterControl (twin/twin_cluster_control.h): what a controller written
// for live clusters observes and does on the twin. Expectations are by hand on a 2-node
// scenario: a 2-pod training gang (4 GPUs per pod, both on p-0000 by first fit) and a
// 4-GPU batch job.
#include "twin/twin_cluster_control.h"

#include <gtest/gtest.h>

#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

using testing::MakeTwin;
using testing::SmallScenarioYaml;

using Fixture = testing::ProbedTwin;

Fixture Make() {
  return testing::MakeProbedTwin(SmallScenarioYaml(
      2, "a:16",
      "faults: {enabled: false}\n"
      "generators:\n"
      "  - {name: gang, team: a, kind: training, arrival: {process: once, count: 1},"
      " pods: 2, gpus_per_pod: 2, duration_hours: 10, checkpoint_interval_minutes: 60,"
      " restore_minutes: 6}\n"
      "  - {name: batch, team: a, kind: batch, arrival: {process: once, count: 1},"
      " gpus_per_pod: 4, duration_hours: 10}\n"));
}

TEST(TwinClusterControlTest, ObservesNodesAndPodsByKubernetesNames) {
  Fixture f = Make();
  TwinClusterControl c(*f.probe->ops_);
  EXPECT_EQ(c.Now(), kSimStart + Hours(1));
  ASSERT_EQ(c.Nodes().size(), 2u);
  std::optional<control::NodeInfo> n = c.Node("p-0000");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->gpu_capacity, 8);
  EXPECT_FALSE(n->unschedulable);
  EXPECT_FALSE(c.Node("nope").has_value());

  std::vector<control::PodInfo> pods = c.PodsOnNode("p-0000");
  int gang = 0, batch = 0, gpus = 0;
  for (const control::PodInfo& p : pods) {
    EXPECT_EQ(p.node, "p-0000");
    EXPECT_TRUE(p.running);
    gpus += p.gpus;
    if (p.workload.ends_with("/gang-000000")) {
      ++gang;
      EXPECT_TRUE(p.can_checkpoint);
      EXPECT_EQ(p.kind, model::WorkloadKind::kTraining);
    } else if (p.workload.ends_with("/batch-000000")) {
      ++batch;
      EXPECT_FALSE(p.can_checkpoint);
    }
  }
  EXPECT_EQ(gang, 2);
  EXPECT_EQ(batch, 1);
  EXPECT_EQ(gpus, 8);
  EXPECT_TRUE(c.PodsOnNode("p-0001").empty());
}

TEST(TwinClusterControlTest, CordonLabelTaintReachTheTwin) {
  Fixture f = Make();
  TwinClusterControl c(*f.probe->ops_);
  ASSERT_TRUE(c.Cordon("p-0001", true, "test").ok());
  EXPECT_TRUE(f.twin->cluster().node(1).cordoned);
  EXPECT_TRUE(c.Node("p-0001")->unschedulable);
  ASSERT_TRUE(c.Cordon("p-0001", false, "test").ok());
  EXPECT_FALSE(f.twin->cluster().node(1).cordoned);
  EXPECT_EQ(c.Cordon("nope", true, "test").code(), Status::Code::kNotFound);

  ASSERT_TRUE(c.LabelNode("p-0001", "steward.io/state", std::string("suspect"), "t").ok());
  EXPECT_EQ(f.twin->cluster().node(1).labels.at("steward.io/state"), "suspect");
  ASSERT_TRUE(c.LabelNode("p-0001", "steward.io/state", std::nullopt, "t").ok());
  EXPECT_EQ(f.twin->cluster().node(1).labels.count("steward.io/state"), 0u);

  model::Taint t{"steward.io/maintenance", "true", "NoSchedule"};
  ASSERT_TRUE(c.TaintNode("p-0001", t, false, "t").ok());
  ASSERT_TRUE(c.TaintNode("p-0001", t, false, "t").ok());  // Idempotent: replaced, not added.
  EXPECT_EQ(f.twin->cluster().node(1).taints.size(), 1u);
  ASSERT_TRUE(c.TaintNode("p-0001", t, true, "t").ok());
  EXPECT_TRUE(f.twin->cluster().node(1).taints.empty());

  ASSERT_TRUE(c.Annotate({"Node", "", "p-0001"}, "steward.io/note", std::string("x"), "t").ok());
  EXPECT_EQ(c.Node("p-0001")->annotations.at("steward.io/note"), "x");
  ASSERT_TRUE(c.EmitEvent({"Node", "", "p-0001"}, "Warning", "Cordoned", "why").ok());
  ASSERT_EQ(c.events().size(), 1u);
  EXPECT_EQ(c.events()[0].object.Display(), "node/p-0001");
}

TEST(TwinClusterControlTest, EvictingOneGangPodStopsTheGangOnceAndUnknownPodsAreNotFound) {
  Fixture f = Make();
  TwinClusterControl c(*f.probe->ops_);
  EXPECT_EQ(c.Evict({"a", "gang-000000-0"}, Minutes(5), "t").code(), Status::Code::kNotFound);
  std::vector<control::PodRef> gang;
  for (const control::PodInfo& p : c.PodsOnNode("p-0000"))
    if (p.workload.ends_with("/gang-000000")) gang.push_back(p.ref);
  ASSERT_EQ(gang.size(), 2u);
  ASSERT_TRUE(c.Evict(gang[0], Minutes(5), "t").ok());
  ASSERT_TRUE(c.Evict(gang[1], Minutes(5), "t").ok());  // Same instant: part of the same stop.
  f.twin->RunUntil(kSimStart + Hours(1) + Minutes(5));
  const WorkloadRun* run = f.twin->FindRun("gang-000000");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->interruptions, 1);
  // The checkpointing gang saved within its grace: it loses only its restore (2 pods x 2 GPUs
  // x 6 minutes).
  Report r = f.twin->BuildReport();
  EXPECT_NEAR(r.faults.lost_gpu_hours_by_cause.at("drain"), 4 * 0.1, 1e-9);
}

TEST(TwinClusterControlTest, QueueQuotasAreReadAndPatchedWithTheirVersion) {
  Fixture f = Make();  // fifo-quota: team a's queue, 16 GPUs.
  TwinClusterControl c(*f.probe->ops_);
  std::vector<control::QueueInfo> queues = c.ClusterQueues();
  ASSERT_EQ(queues.size(), 1u);
  EXPECT_EQ(queues[0].name, "a");
  ASSERT_EQ(queues[0].quotas.size(), 1u);
  control::QueueQuota q = queues[0].quotas[0];
  EXPECT_EQ(q.flavor, "default-flavor");
  EXPECT_EQ(q.resource, "nvidia.com/gpu");
  EXPECT_EQ(q.nominal, "16");
  const std::string read_at = queues[0].resource_version;

  q.nominal = "4";
  ASSERT_TRUE(c.PatchQueueQuota("a", read_at, q, "test").ok());
  EXPECT_EQ(f.twin->scenario().teams[0].quota_gpus, 4);
  EXPECT_NE(c.ClusterQueues()[0].resource_version, read_at);
  // The version read before is stale: refused, nothing changes.
  q.nominal = "8";
  EXPECT_EQ(c.PatchQueueQuota("a", read_at, q, "test").code(), Status::Code::kAborted);
  EXPECT_EQ(f.twin->scenario().teams[0].quota_gpus, 4);
  const std::string now = c.ClusterQueues()[0].resource_version;
  EXPECT_EQ(c.PatchQueueQuota("nobody", now, q, "test").code(), Status::Code::kNotFound);
  q.borrowing_limit = "2";  // The twin takes nominal GPU quota only.
  EXPECT_EQ(c.PatchQueueQuota("a", now, q, "test").code(), Status::Code::kInvalidArgument);
  q.borrowing_limit.reset();
  q.lending_limit = "2";  // A fifo-quota team queue has no cohort to lend to.
  EXPECT_EQ(c.PatchQueueQuota("a", now, q, "test").code(), Status::Code::kInvalidArgument);
  q.lending_limit.reset();
  q.nominal = "2.5";
  EXPECT_EQ(c.PatchQueueQuota("a", now, q, "test").code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace steward::twin

// The twin under Kueue policies: the guide's case 2 (examples/case2/) and hand-sized cases.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

std::string Example(const std::string& f) {
  return std::string(STEWARD_SOURCE_DIR) + "/examples/" + f;
}

Report RunCase2(const std::string& policy) {
  Result<Scenario> s = LoadScenario(Example("case2/scenario.yaml"));
  EXPECT_TRUE(s.ok()) << s.status().message();
  TwinOptions o;
  o.policy_files = {Example("case2/" + policy)};
  auto t = Twin::Create(std::move(s).value(), o);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return (*t)->Run();
}

TEST(KueueAdmitterTest, Case2WithoutLimitsTeamBStarvesAndTheAlertFires) {
  Report r = RunCase2("no-limits.yaml");
  EXPECT_EQ(r.admission_policy, "kueue");
  // team-a borrowed the whole cohort overnight and nothing reclaims it.
  ASSERT_EQ(r.tenant_alerts.size(), 1u);
  EXPECT_EQ(r.tenant_alerts[0].team, "team-a");
  EXPECT_DOUBLE_EQ(r.tenant_alerts[0].peak_share, 1.0);
  EXPECT_EQ(r.preemptions.at("training"), 0);
  EXPECT_GT(r.queue_wait_seconds_by_team.at("team-b").p95, 3 * 3600);
}

TEST(KueueAdmitterTest, Case2WithLimitsTeamBIsAdmittedAndTeamALosesOnlyCheckpointedWork) {
  Report r = RunCase2("with-limits.yaml");
  // borrowingLimit 128 caps team-a at 384 of 512 GPUs: never above the 75% alert line.
  EXPECT_TRUE(r.tenant_alerts.empty());
  // team-b reclaims its nominal quota by preempting team-a's borrowed training.
  EXPECT_GT(r.preemptions.at("training"), 0);
  EXPECT_LT(r.queue_wait_seconds_by_team.at("team-b").p99, 1800);
  // Each preempted 32-GPU team-a job loses at most one 30-minute checkpoint interval.
  EXPECT_LE(r.lost_gpu_hours_by_team.at("team-a"), r.preemptions.at("training") * 32 * 0.5 + 1e-9);
  EXPECT_DOUBLE_EQ(r.lost_gpu_hours_by_team.at("team-b"), 0);
  EXPECT_EQ(r.preemptions.at("production"), 0);
}

// Quota is not placement. b borrows 6 GPUs with twelve 1-GPU jobs: eight fill p-0000, four
// share p-0001 with c's 2-GPU job. a's 8-GPU job (within a's nominal 8) needs 6 of b's
// borrowed GPUs back, but no choice of 6 victims empties a node (c's job stays on p-0001,
// b keeps 6 jobs), so the twin must not preempt. Before the check, the victims were evicted,
// a did not fit, the victims were readmitted on the freed GPUs at the same instant and the
// cycle repeated forever.
TEST(KueueAdmitterTest, NoPreemptionThatCannotLeadToAPlacement) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(
      2, "a:8,b:6,c:2",
      "generators:\n"
      "  - {name: b1, team: b, kind: batch, arrival: {process: once, count: 8},"
      " gpus_per_pod: 1, duration_hours: 20}\n"
      "  - {name: c, team: c, kind: batch, arrival: {process: once, count: 1, start_hours: 0.1},"
      " gpus_per_pod: 2, duration_hours: 20}\n"
      "  - {name: b2, team: b, kind: batch, arrival: {process: once, count: 4, start_hours: 0.2},"
      " gpus_per_pod: 1, duration_hours: 20}\n"
      "  - {name: big, team: a, kind: batch, arrival: {process: once, count: 1, start_hours: 1},"
      " gpus_per_pod: 8, duration_hours: 2}\n"));
  TwinOptions o;
  o.policy_files = {std::string(STEWARD_SOURCE_DIR) + "/tests/twin/testdata/three_queues.yaml"};
  auto t = Twin::Create(s, o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  (*t)->RunUntil(kSimStart + Hours(2));
  const WorkloadRun* big = (*t)->FindRun("big-000000");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->state, RunState::kPending);
  EXPECT_EQ(big->reason, "no_fit_fragmentation");
  for (const auto& run : (*t)->runs()) {
    if (run.spec.name != "big-000000") {
      EXPECT_EQ(run.interruptions, 0) << run.spec.name;
    }
  }
  // When b's and c's jobs end at 20 h, a's job runs.
  const Report r = (*t)->Run();
  EXPECT_EQ(r.preemptions.at("dev"), 0);
  EXPECT_EQ((*t)->FindRun("big-000000")->state, RunState::kDone);
}

TEST(KueueAdmitterTest, MissingLocalQueueIsAPendingReason) {
  const std::string policy = std::string(STEWARD_SOURCE_DIR) + "/examples/case2/with-limits.yaml";
  Scenario s = testing::MustParse(
      testing::SmallScenarioYaml(2, "stranger:16",
                                 "generators:\n  - {name: j, team: stranger, kind: batch, arrival: "
                                 "{process: once, count: 1}}\n"));
  TwinOptions o;
  o.policy_files = {policy};
  auto t = Twin::Create(s, o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  Report r = (*t)->Run();
  EXPECT_EQ(r.pending_by_reason.at("misconfigured_queue"), 1);
}

TEST(KueueAdmitterTest, VolcanoQueuesDriveTheTwin) {
  // examples/volcano/queues.yaml: queues training (deserved 64, capability 96), serving
  // (deserved 48) and research (capability 32). Workloads name their Queue directly.
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(
      32, "training:0,research:0",
      "generators:\n"
      "  - {name: t, team: training, kind: training, arrival: {process: once, count: 20},\n"
      "     pods: 1, gpus_per_pod: 8, duration_hours: 10, checkpoint_interval_minutes: 30}\n"
      "  - {name: r, team: research, kind: batch, arrival: {process: once, count: 10},\n"
      "     gpus_per_pod: 8, duration_hours: 10}\n"));
  TwinOptions o;
  o.policy_files = {std::string(STEWARD_SOURCE_DIR) + "/examples/volcano/queues.yaml"};
  auto t = Twin::Create(s, o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  (*t)->RunUntil(kSimStart + Hours(1));
  int training = 0, research = 0;
  for (const auto& run : (*t)->runs()) {
    if (run.state == RunState::kPending) continue;
    (run.spec.team == 0 ? training : research) += run.spec.TotalGpus();
  }
  // Capability caps each queue: training at 96 GPUs (12 jobs), research at 32 (4 jobs).
  EXPECT_EQ(training, 96);
  EXPECT_EQ(research, 32);
}

// queueingStrategy: team-a's head asks 24 GPUs, more than its queue can ever hold (8 own + 8
// borrowable); a 8-GPU job is behind it. BestEffortFIFO looks past the head and admits the small
// job; StrictFIFO keeps it behind the head, with the head's reason.
TEST(KueueAdmitterTest, StrictFifoBlocksBehindItsHeadBestEffortDoesNot) {
  for (const std::string strategy : {"BestEffortFIFO", "StrictFIFO"}) {
    std::string policy = testing::TwoTeamPolicyYaml(8, 8, "{}");
    for (size_t at = 0; (at = policy.find("  cohort: org\n", at)) != std::string::npos; at += 20)
      policy.insert(at + 14, "  queueingStrategy: " + strategy + "\n");
    TwinOptions o;
    o.policy_files = {testing::WriteTempFile("fifo-" + strategy + ".yaml", policy)};
    Scenario s = testing::MustParse(testing::SmallScenarioYaml(
        2, "team-a:0,team-b:0",
        "generators:\n"
        "  - {name: big, team: team-a, kind: batch, arrival: {process: once, count: 1},\n"
        "     pods: 3, gpus_per_pod: 8, duration_hours: 1}\n"
        "  - {name: small, team: team-a, kind: batch, arrival: {process: once, count: 1},\n"
        "     gpus_per_pod: 8, duration_hours: 1}\n"));
    auto t = Twin::Create(std::move(s), o);
    ASSERT_TRUE(t.ok()) << t.status().message();
    (*t)->RunUntil(kSimStart + Minutes(5));
    const WorkloadRun* big = (*t)->FindRun("big-000000");
    const WorkloadRun* small = (*t)->FindRun("small-000000");
    ASSERT_TRUE(big && small);
    EXPECT_EQ(big->state, RunState::kPending);
    EXPECT_EQ(big->reason, "exceeds_max_quota") << big->reason_detail;
    if (strategy == "BestEffortFIFO") {
      EXPECT_NE(small->state, RunState::kPending);
    } else {
      EXPECT_EQ(small->state, RunState::kPending);
      EXPECT_EQ(small->reason, "blocked_behind_head");
      EXPECT_NE(small->reason_detail.find("big-000000"), std::string::npos) << small->reason_detail;
      EXPECT_NE(small->reason_detail.find("exceeds_max_quota"), std::string::npos);
    }
  }
}

// A Volcano PodGroup drives a twin workload: examples/volcano/queues.yaml's llama-70b-ft
// (minMember 4, minResources 32 GPUs, queue training). Its 4 pods are created 60 s apart, so the
// gang is incomplete (Volcano NotEnoughTasks) until t = 180 s, then admitted as a whole.
TEST(KueueAdmitterTest, VolcanoPodGroupGangIsIncompleteUntilItsPodsExist) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(
      8, "training:0",
      "generators:\n"
      "  - {name: ft, team: training, kind: training, arrival: {process: once, count: 1},\n"
      "     pods: 4, gpus_per_pod: 8, duration_hours: 1, pod_group: llama-70b-ft,\n"
      "     pod_creation_seconds: 60}\n"
      "  - {name: lost, team: training, kind: training, arrival: {process: once, count: 1},\n"
      "     pod_group: no-such-group}\n"));
  TwinOptions o;
  o.policy_files = {Example("volcano/queues.yaml")};
  auto t = Twin::Create(std::move(s), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  (*t)->RunUntil(kSimStart + Seconds(150));
  const WorkloadRun* ft = (*t)->FindRun("ft-000000");
  ASSERT_NE(ft, nullptr);
  EXPECT_EQ(ft->state, RunState::kPending);
  EXPECT_EQ(ft->reason, "gang_incomplete");
  EXPECT_NE(ft->reason_detail.find("3/4 pods of the gang exist (minMember 4)"), std::string::npos)
      << ft->reason_detail;
  EXPECT_EQ((*t)->BuildReport().pending_by_reason.at("gang_incomplete"), 1);
  EXPECT_EQ((*t)->FindRun("lost-000000")->reason, "misconfigured_queue");
  // The fourth pod exists at 180 s: the whole gang is admitted and placed then, in one go.
  (*t)->RunUntil(kSimStart + Seconds(179));
  EXPECT_EQ(ft->state, RunState::kPending);
  (*t)->RunUntil(kSimStart + Seconds(180));
  EXPECT_NE(ft->state, RunState::kPending);
  EXPECT_EQ(ft->pods.size(), 4u);
  const SchedulerReport r = (*t)->Scheduler();
  for (const auto& cq : r.cluster_queues)
    if (cq.name == "training") {
      EXPECT_EQ(cq.admitted_workloads_total, 1);
      for (const auto& q : cq.quotas) {
        // minResources is what the group reserves: 32 GPUs and 256 CPU cores.
        if (q.resource == "nvidia.com/gpu") {
          EXPECT_EQ(q.usage, 32);
        }
        if (q.resource == "cpu") {
          EXPECT_EQ(q.usage, 256);
        }
      }
    }
}

}  // namespace
}  // namespace steward::twin

namespace steward::twin {
namespace {

// Flavor assignment reaches placement (issue 6 item 1): ClusterQueue gpus lists flavors a100
// then h100 (nodeLabels nvidia.com/gpu.product), 8 GPUs each; the cluster is one H100 node
// (node 0, listed first, so first-fit alone would pick it) and one A100 node. In arrival order:
// `any1` (any model, t = 0) gets flavor a100, the first in order, and so the A100 node (the
// flavor's label pins its pods; unpinned it would take the H100 node). `h` (needs H100, 6 min)
// skips a100 (its node selector does not match) and gets h100 and the free H100 node. `any2`
// (12 min) finds both flavors full: quota_exhausted. When `h` ends (6 min + 90 s + 1 h), `any2`
// gets flavor h100 and the H100 node.
TEST(KueueAdmitterTest, FlavorsInOrderPinPodsToTheFlavorsGpuModel) {
  const std::string policy = R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: a100}
spec: {nodeLabels: {nvidia.com/gpu.product: NVIDIA-A100}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: h100}
spec: {nodeLabels: {nvidia.com/gpu.product: NVIDIA-H100}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: gpus}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: a100
      resources: [{name: nvidia.com/gpu, nominalQuota: 8}]
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: 8}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: ml, namespace: ml}
spec: {clusterQueue: gpus}
)";
  TwinOptions o;
  o.policy_files = {testing::WriteTempFile("flavors.yaml", policy)};
  Scenario s = testing::MustParse(R"(name: flavors
seed: 1
horizon_days: 1
cluster:
  gpu_models: [{name: H100}, {name: A100}]
  pools:
    - {name: h, nodes: 1, gpus_per_node: 8, gpu_model: H100}
    - {name: a, nodes: 1, gpus_per_node: 8, gpu_model: A100}
teams: [{name: ml, quota_gpus: 0}]
faults: {enabled: false}
generators:
  - {name: any1, team: ml, kind: batch, gpus_per_pod: 8, duration_hours: 3,
     arrival: {process: once, count: 1}}
  - {name: h, team: ml, kind: batch, gpu_model: H100, gpus_per_pod: 8, duration_hours: 1,
     arrival: {process: once, count: 1, start_hours: 0.1}}
  - {name: any2, team: ml, kind: batch, gpus_per_pod: 8, duration_hours: 1,
     arrival: {process: once, count: 1, start_hours: 0.2}}
)");
  auto t = Twin::Create(std::move(s), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  Twin& twin = **t;
  twin.RunUntil(kSimStart + Minutes(30));
  const WorkloadRun* h = twin.FindRun("h-000000");
  const WorkloadRun* any1 = twin.FindRun("any1-000000");
  const WorkloadRun* any2 = twin.FindRun("any2-000000");
  ASSERT_TRUE(h && any1 && any2);
  ASSERT_EQ(h->pods.size(), 1u);
  EXPECT_EQ(twin.cluster().node(h->pods[0].node).model, 0);  // H100.
  ASSERT_EQ(any1->pods.size(), 1u);
  EXPECT_EQ(twin.cluster().node(any1->pods[0].node).model, 1);  // A100: flavor a100 first.
  EXPECT_EQ(any2->state, RunState::kPending);
  EXPECT_EQ(any2->reason, "quota_exhausted") << any2->reason_detail;
  const SchedulerReport r = twin.Scheduler();
  ASSERT_EQ(r.cluster_queues.size(), 1u);
  for (const auto& q : r.cluster_queues[0].quotas) EXPECT_EQ(q.usage, 8) << q.flavor;
  twin.RunUntil(kSimStart + Seconds(360 + 90 + 3600 - 1));
  EXPECT_EQ(any2->state, RunState::kPending);
  twin.RunUntil(kSimStart + Seconds(360 + 90 + 3600));
  ASSERT_EQ(any2->pods.size(), 1u);
  EXPECT_EQ(twin.cluster().node(any2->pods[0].node).model, 0);
}

}  // namespace
}  // namespace steward::twin

namespace steward::twin {
namespace {

// Issue 6 item 7: pending reasons of the governance engine and of placement reach the report.
// Flavor h100 (label nvidia.com/gpu.product NVIDIA-H100); team-a and team-b 16 GPUs each in
// cohort org, team-a with borrowingLimit 0. Cluster: 3 H100 nodes (node 2 cordoned) + 1 A100.
// a1 (8) runs on node 0. a2 (16) would put team-a at 24 > 16 + 0: cohort_borrowing_limit.
// b1 needs A100: h100 does not match its node selector: no_matching_flavor. b2 (2 x 8) fits
// team-b's quota; pinned to H100 by its flavor it finds 8 free H100 GPUs (node 1), and the 8 of
// the cordoned node 2 would make 16: unhealthy_capacity.
TEST(KueueAdmitterTest, PendingReasonsReachTheReport) {
  std::string policy = testing::TwoTeamPolicyYaml(16, 16, "{}");
  policy.replace(policy.find("metadata: {name: h100}\n"), 23,
                 "metadata: {name: h100}\nspec: {nodeLabels: {nvidia.com/gpu.product: "
                 "NVIDIA-H100}}\n");
  policy.replace(policy.find("nominalQuota: 16}"), 17, "nominalQuota: 16, borrowingLimit: 0}");
  TwinOptions o;
  o.policy_files = {testing::WriteTempFile("reasons.yaml", policy)};
  Scenario s = testing::MustParse(R"(name: reasons
seed: 1
horizon_days: 1
cluster:
  gpu_models: [{name: H100}, {name: A100}]
  pools:
    - {name: h, nodes: 3, gpus_per_node: 8, gpu_model: H100}
    - {name: a, nodes: 1, gpus_per_node: 8, gpu_model: A100}
teams: [{name: team-a, quota_gpus: 0}, {name: team-b, quota_gpus: 0}]
faults: {enabled: false}
generators:
  - {name: a1, team: team-a, kind: batch, gpus_per_pod: 8, duration_hours: 5,
     arrival: {process: once, count: 1}}
  - {name: a2, team: team-a, kind: batch, pods: 2, gpus_per_pod: 8, duration_hours: 1,
     arrival: {process: once, count: 1, start_hours: 0.01}}
  - {name: b1, team: team-b, kind: batch, gpu_model: A100, gpus_per_pod: 8, duration_hours: 1,
     arrival: {process: once, count: 1, start_hours: 0.02}}
  - {name: b2, team: team-b, kind: batch, pods: 2, gpus_per_pod: 8, duration_hours: 1,
     arrival: {process: once, count: 1, start_hours: 0.03}}
)");
  auto t = Twin::Create(std::move(s), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_TRUE((*t)->SetNodeCordoned(2, true).ok());
  (*t)->RunUntil(kSimStart + Minutes(10));
  auto reason = [&](const char* name) {
    const WorkloadRun* r = (*t)->FindRun(name);
    return r ? std::string(r->reason) + " | " + r->reason_detail : std::string("missing");
  };
  EXPECT_EQ((*t)->FindRun("a1-000000")->state, RunState::kRunning);
  EXPECT_EQ(reason("a2-000000").rfind("cohort_borrowing_limit", 0), 0u) << reason("a2-000000");
  EXPECT_EQ(reason("b1-000000").rfind("no_matching_flavor", 0), 0u) << reason("b1-000000");
  EXPECT_EQ(reason("b2-000000").rfind("unhealthy_capacity", 0), 0u) << reason("b2-000000");
  const Report r = (*t)->BuildReport();
  EXPECT_EQ(r.pending_by_reason.at("cohort_borrowing_limit"), 1);
  EXPECT_EQ(r.pending_by_reason.at("no_matching_flavor"), 1);
  EXPECT_EQ(r.pending_by_reason.at("unhealthy_capacity"), 1);
}

// BestEffortFIFO with a long queue of one shape: the first 3x8-GPU job can never fit (16 GPUs
// at most); the 40 behind it, of the same shape, are not tried but get its reason ("as ...")
// and count as inadmissible; the small job behind them is admitted. Their reasons are written
// lazily (a pass does not visit dominated workloads), so this also checks they are all there
// when RunUntil returns.
TEST(KueueAdmitterTest, DominatedWorkloadsGetTheFailuresReasonWithoutBeingTried) {
  TwinOptions o;
  o.policy_files = {
      testing::WriteTempFile("dominated.yaml", testing::TwoTeamPolicyYaml(8, 8, "{}"))};
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(
      2, "team-a:0,team-b:0",
      "generators:\n"
      "  - {name: wide, team: team-a, kind: batch, arrival: {process: once, count: 41},\n"
      "     pods: 3, gpus_per_pod: 8, duration_hours: 1}\n"
      "  - {name: small, team: team-a, kind: batch, arrival: {process: once, count: 1},\n"
      "     gpus_per_pod: 8, duration_hours: 1}\n"));
  auto t = Twin::Create(std::move(s), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  (*t)->RunUntil(kSimStart + Minutes(5));
  const WorkloadRun* head = (*t)->FindRun("wide-000000");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->reason, "exceeds_max_quota");
  for (int i = 1; i <= 40; ++i) {
    const WorkloadRun* w = (*t)->FindRun(fmt::format("wide-{:06d}", i));
    ASSERT_TRUE(w);
    EXPECT_EQ(w->state, RunState::kPending);
    EXPECT_EQ(w->reason, "exceeds_max_quota");
    EXPECT_EQ(w->reason_detail.rfind("as wide-000000 (same queue, no smaller request): ", 0), 0u)
        << w->reason_detail;
  }
  EXPECT_NE((*t)->FindRun("small-000000")->state, RunState::kPending);
  const Report r = (*t)->BuildReport();
  EXPECT_EQ(r.pending_by_reason.at("exceeds_max_quota"), 41);
  int inadmissible = 0;
  for (const ClusterQueueReport& q : r.scheduler.cluster_queues)
    inadmissible += q.pending_inadmissible;
  EXPECT_EQ(inadmissible, 41);
}

}  // namespace
}  // namespace steward::twin

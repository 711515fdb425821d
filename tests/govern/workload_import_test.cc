// Reading Workloads as `kubectl get workloads -A -o yaml` prints them (workload_import.h).
#include "govern/workload_import.h"

#include <gtest/gtest.h>

namespace steward::govern {
namespace {

constexpr const char* kList = R"(apiVersion: v1
kind: List
items:
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: Workload
  metadata:
    name: train
    namespace: team-a
    creationTimestamp: "2024-03-01T10:00:00Z"
    labels: {kueue.x-k8s.io/queue-name: from-label}
  spec:
    priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: high}
    podSets:
    - name: launcher
      count: 1
      template:
        spec:
          initContainers:
          - resources: {requests: {cpu: "4"}}
          containers:
          - resources: {requests: {cpu: "500m", memory: 1Gi}}
          - resources: {requests: {cpu: "1", nvidia.com/mig-1g.10gb: "2"}}
    - name: workers
      count: 4
      minCount: 2
      template:
        spec:
          containers:
          - resources: {requests: {nvidia.com/gpu: "8", example.com/ib: "1"}}
  status:
    admission:
      clusterQueue: cq-a
      podSetAssignments:
      - name: launcher
        flavors: {cpu: default, memory: default, nvidia.com/mig-1g.10gb: a100-mig}
      - name: workers
        flavors: {nvidia.com/gpu: h100}
        count: 3
    conditions:
    - {type: QuotaReserved, status: "True", lastTransitionTime: "2024-03-01T10:00:30+01:00"}
- apiVersion: kueue.x-k8s.io/v1beta1
  kind: Workload
  metadata: {name: done, namespace: team-a}
  spec:
    queueName: lq
    priority: 7
    podSets: [{name: main, count: 1, template: {spec: {containers: [{resources: {requests: {cpu: "1"}}}]}}}]
  status:
    conditions: [{type: Finished, status: "True"}]
)";

// Per-pod requests: containers summed, raised to the largest init container (cpu: 0.5 + 1 =
// 1.5 < 4, so 4 cores); the MIG and extended resources kept as counts.
TEST(WorkloadImportTest, ReadsKubectlListWithPodSetsRequestsAndAdmission) {
  SimulationInput in;
  ASSERT_TRUE(ImportSimulationYaml(kList, "wl.yaml", &in).ok());
  ASSERT_EQ(in.workloads.size(), 2u);
  const WorkloadObject& w = in.workloads[0];
  EXPECT_EQ(w.request.name, "train");
  EXPECT_EQ(w.request.namespace_name, "team-a");
  EXPECT_EQ(w.request.local_queue, "from-label");
  EXPECT_EQ(w.request.priority_class, "high");
  EXPECT_EQ(w.request.queue_timestamp.micros(), int64_t{1709287200} * 1'000'000);
  ASSERT_EQ(w.request.pod_sets.size(), 2u);
  std::map<std::string, Amount> launcher;
  for (const auto& r : w.request.pod_sets[0].requests) launcher[r.resource] = r.amount;
  EXPECT_EQ(launcher["cpu"], 4000);
  EXPECT_EQ(launcher["memory"], int64_t{1} << 30);
  EXPECT_EQ(launcher["nvidia.com/mig-1g.10gb"], 2);
  EXPECT_EQ(w.request.pod_sets[1].count, 4);
  EXPECT_EQ(w.min_counts, (std::vector<int32_t>{-1, 2}));
  ASSERT_TRUE(w.admission.has_value());
  EXPECT_EQ(w.admission->cluster_queue, "cq-a");
  EXPECT_EQ(w.admission->pod_sets[1].count, 3);
  EXPECT_EQ(w.admission->pod_sets[1].flavors.at("nvidia.com/gpu"), "h100");
  // 10:00:30 at +01:00 is 09:00:30 UTC.
  EXPECT_EQ(w.quota_reserved_at.micros(), (int64_t{1709287200} - 3600 + 30) * 1'000'000);
  EXPECT_TRUE(in.workloads[1].finished);
  EXPECT_EQ(in.workloads[1].request.priority, 7);
}

TEST(WorkloadImportTest, ErrorsNameFileLineAndField) {
  SimulationInput in;
  Status s = ImportSimulationYaml(
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\n"
      "metadata: {name: w, creationTimestamp: \"yesterday\"}\n"
      "spec: {podSets: [{name: main, count: 1}]}\n",
      "bad.yaml", &in);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("bad.yaml:3:"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("Workload w: metadata.creationTimestamp"), std::string::npos)
      << s.message();
  SimulationInput in2;
  Status s2 = ImportSimulationYaml(
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\n"
      "spec:\n  podSets:\n  - name: main\n    count: 1\nstatus:\n  admission:\n"
      "    clusterQueue: cq\n    podSetAssignments: [{name: other}]\n",
      "bad.yaml", &in2);
  ASSERT_FALSE(s2.ok());
  EXPECT_NE(s2.message().find("status.admission.podSetAssignments[0].name"), std::string::npos)
      << s2.message();
}

TEST(WorkloadImportTest, ParsesRfc3339WithFractionsAndOffsets) {
  EXPECT_EQ(*ParseKubeTimestamp("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(*ParseKubeTimestamp("2024-01-01T00:00:00.123Z"), 1704067200);
  EXPECT_EQ(*ParseKubeTimestamp("2024-01-01T02:00:00+02:00"), 1704067200);
  EXPECT_FALSE(ParseKubeTimestamp("2024-01-01 00:00:00").ok());
  EXPECT_FALSE(ParseKubeTimestamp("2024-13-01T00:00:00Z").ok());
}

}  // namespace
}  // namespace steward::govern

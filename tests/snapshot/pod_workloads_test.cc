#include "snapshot/pod_workloads.h"

#include <gtest/gtest.h>

namespace steward::snapshot {
namespace {

kube::Pod GpuPod(const std::string& ns, const std::string& name, int gpus, const std::string& node,
                 const std::string& owner_kind = "", const std::string& owner = "") {
  kube::Pod p;
  p.metadata.namespace_name = ns;
  p.metadata.name = name;
  if (!owner_kind.empty()) {
    kube::OwnerReference o;
    o.kind = owner_kind;
    o.name = owner;
    o.controller = true;
    p.metadata.owner_references.push_back(o);
  }
  kube::Container c;
  c.name = "main";
  c.resources.requests["nvidia.com/gpu"] = std::to_string(gpus);
  p.containers.push_back(c);
  p.node_name = node;
  p.phase = node.empty() ? "Pending" : "Running";
  return p;
}

const SnapshotWorkload* Find(const SnapshotWorkloads& w, const std::string& name) {
  for (const auto& x : w.workloads)
    if (x.name == name) return &x;
  return nullptr;
}

TEST(PodWorkloadsTest, OneWorkloadPerOwner) {
  WorkloadInput in;
  for (int i = 0; i < 4; ++i) {
    kube::Pod p =
        GpuPod("ml", "train-" + std::to_string(i), 8, "n" + std::to_string(i), "Job", "train");
    p.metadata.labels = {{"kueue.x-k8s.io/queue-name", "ml-queue"},
                         {"app.kubernetes.io/name", "llm"},
                         {"batch.kubernetes.io/job-name", "train"}};
    p.priority_class_name = "high";
    p.priority = 500;
    p.start_time = 1000 + i;
    in.pods.push_back(p);
  }
  kube::Pod cpu = GpuPod("ml", "cpu", 0, "n9", "Job", "other");
  in.pods.push_back(cpu);  // No GPUs: not ours.
  SnapshotWorkloads w = MapWorkloads(in, {});
  ASSERT_EQ(w.workloads.size(), 1u);
  const SnapshotWorkload& t = w.workloads[0];
  EXPECT_EQ(t.name, "train");
  EXPECT_EQ(t.pods, 4);
  EXPECT_EQ(t.gpus_per_pod, 8);
  EXPECT_EQ(t.queue, "ml-queue");
  EXPECT_EQ(t.priority_class, "high");
  EXPECT_EQ(t.tier, model::Tier::kTraining);          // Priority 500 >= 100.
  EXPECT_EQ(t.kind, model::WorkloadKind::kTraining);  // A Job of the training tier.
  EXPECT_TRUE(t.running);
  EXPECT_EQ(t.since, 1000);
  EXPECT_EQ(t.labels, (std::map<std::string, std::string>{{"app.kubernetes.io/name", "llm"}}));
  ASSERT_EQ(w.teams.size(), 1u);
  EXPECT_EQ(w.teams[0].namespace_name, "ml");
}

TEST(PodWorkloadsTest, ReplicaSetPodsBelongToTheirDeployment) {
  WorkloadInput in;
  for (int i = 0; i < 2; ++i) {
    kube::Pod p =
        GpuPod("serving", "chat-7d9f-" + std::to_string(i), 1, "n1", "ReplicaSet", "chat-7d9f");
    p.metadata.labels["pod-template-hash"] = "7d9f";
    in.pods.push_back(p);
  }
  kube::Namespace ns;
  ns.metadata.name = "serving";
  ns.metadata.labels["steward.io/team"] = "web";
  in.namespaces.push_back(ns);
  SnapshotWorkloads w = MapWorkloads(in, {});
  ASSERT_EQ(w.workloads.size(), 1u);
  EXPECT_EQ(w.workloads[0].name, "chat");
  EXPECT_EQ(w.workloads[0].owner_kind, "Deployment");
  EXPECT_EQ(w.workloads[0].kind, model::WorkloadKind::kInference);
  EXPECT_EQ(w.workloads[0].tier, model::Tier::kProduction);
  EXPECT_EQ(w.workloads[0].team, "web");
}

TEST(PodWorkloadsTest, PodWithoutOwnerIsItsOwnWorkloadWithANote) {
  WorkloadInput in;
  in.pods.push_back(GpuPod("dev", "scratch", 2, "n1"));
  kube::Pod gone = GpuPod("dev", "leaving", 1, "n1", "Job", "old");
  gone.metadata.deletion_timestamp = 5;
  in.pods.push_back(gone);
  SnapshotWorkloads w = MapWorkloads(in, {});
  ASSERT_EQ(w.workloads.size(), 1u);
  EXPECT_EQ(w.workloads[0].name, "scratch");
  EXPECT_EQ(w.workloads[0].kind, model::WorkloadKind::kBatch);
  EXPECT_EQ(w.skipped_pods, 1);
  EXPECT_EQ(w.notes.size(), 2u);
}

TEST(PodWorkloadsTest, LabelsAndNodeSelectorsWin) {
  WorkloadInput in;
  kube::Pod p = GpuPod("lab", "nb-0", 1, "n1", "StatefulSet", "nb");
  kube::Pod q = GpuPod("lab", "nb-1", 2, "n1", "StatefulSet", "nb");
  for (kube::Pod* x : {&p, &q}) {
    x->metadata.labels = {{"steward.io/kind", "batch"}, {"steward.io/tier", "dev"}};
    x->node_selector["nvidia.com/gpu.product"] = "NVIDIA-L4";
  }
  in.pods = {p, q};
  SnapshotWorkloads w = MapWorkloads(in, {{"NVIDIA-L4", "L4"}});
  ASSERT_EQ(w.workloads.size(), 1u);
  EXPECT_EQ(w.workloads[0].kind, model::WorkloadKind::kBatch);  // Label over StatefulSet.
  EXPECT_EQ(w.workloads[0].gpus_per_pod, 2);                    // The largest request.
  EXPECT_EQ(w.workloads[0].gpu_model, "L4");
  EXPECT_EQ(w.notes.size(), 1u);  // Uneven requests.
}

TEST(PodWorkloadsTest, KueueWorkloadsWithoutPodsWait) {
  WorkloadInput in;
  in.pods.push_back(GpuPod("ml", "run-0", 8, "n1", "Job", "run"));
  auto workload = [](const std::string& owner, int count, const char* gpus, bool finished) {
    nlohmann::json w = {
        {"metadata",
         {{"name", "job-" + owner},
          {"namespace", "ml"},
          {"creationTimestamp", "2026-01-01T00:00:00Z"},
          {"ownerReferences", {{{"kind", "Job"}, {"name", owner}}}}}},
        {"spec",
         {{"queueName", "ml"},
          {"priorityClassName", "dev"},
          {"podSets",
           {{{"name", "main"},
             {"count", count},
             {"template",
              {{"spec",
                {{"containers",
                  {{{"resources", {{"requests", {{"nvidia.com/gpu", gpus}}}}}}}}}}}}}}}}}};
    if (finished) w["status"] = {{"conditions", {{{"type", "Finished"}, {"status", "True"}}}}};
    return w;
  };
  in.kueue_workloads = {workload("run", 1, "8", false),     // Has pods: already counted.
                        workload("queued", 2, "4", false),  // Waits.
                        workload("done", 1, "1", true),     // Finished.
                        workload("cpu", 1, "0", false)};    // No GPUs.
  SnapshotWorkloads w = MapWorkloads(in, {});
  ASSERT_EQ(w.workloads.size(), 2u);
  EXPECT_TRUE(w.workloads[0].running);
  const SnapshotWorkload* q = Find(w, "queued");
  ASSERT_NE(q, nullptr);
  EXPECT_FALSE(q->running);
  EXPECT_EQ(q->pods, 2);
  EXPECT_EQ(q->gpus_per_pod, 4);
  EXPECT_EQ(q->queue, "ml");
  EXPECT_EQ(q->tier, model::Tier::kDev);
  EXPECT_TRUE(q->since.has_value());
}

// A waiting Workload keeps its GPU pod sets (and minCount); a CPU-only launcher is left out with
// a note; one pod set without minCount stays the short form.
TEST(PodWorkloadsTest, WaitingKueueWorkloadsKeepTheirPodSets) {
  auto pod_set = [](const std::string& name, int count, const char* gpus, int min_count) {
    nlohmann::json ps = {
        {"name", name},
        {"count", count},
        {"template",
         {{"spec",
           {{"containers", {{{"resources", {{"requests", {{"nvidia.com/gpu", gpus}}}}}}}}}}}}};
    if (min_count > 0) ps["minCount"] = min_count;
    return ps;
  };
  auto workload = [](const std::string& owner, nlohmann::json pod_sets) {
    return nlohmann::json{{"metadata",
                           {{"name", "job-" + owner},
                            {"namespace", "ml"},
                            {"creationTimestamp", "2026-01-01T00:00:00Z"},
                            {"ownerReferences", {{{"kind", "Job"}, {"name", owner}}}}}},
                          {"spec", {{"queueName", "ml"}, {"podSets", std::move(pod_sets)}}}};
  };
  WorkloadInput in;
  in.kueue_workloads = {
      workload("mpi", {pod_set("launcher", 1, "0", 0), pod_set("worker", 4, "8", 2)}),
      workload("two", {pod_set("head", 1, "1", 0), pod_set("worker", 2, "4", 0)}),
      workload("plain", {pod_set("main", 3, "2", 0)})};
  SnapshotWorkloads w = MapWorkloads(in, {});
  ASSERT_EQ(w.workloads.size(), 3u);
  const SnapshotWorkload* mpi = Find(w, "mpi");
  ASSERT_NE(mpi, nullptr);
  ASSERT_EQ(mpi->pod_sets.size(), 1u);  // The launcher asks for no GPU.
  EXPECT_EQ(mpi->pod_sets[0].name, "worker");
  EXPECT_EQ(mpi->pod_sets[0].count, 4);
  EXPECT_EQ(mpi->pod_sets[0].gpus_per_pod, 8);
  EXPECT_EQ(mpi->pod_sets[0].min_count, 2);
  const SnapshotWorkload* two = Find(w, "two");
  ASSERT_NE(two, nullptr);
  ASSERT_EQ(two->pod_sets.size(), 2u);
  EXPECT_EQ(two->pod_sets[0].name, "head");
  EXPECT_EQ(two->pod_sets[1].count, 2);
  EXPECT_EQ(two->pod_sets[1].gpus_per_pod, 4);
  EXPECT_EQ(two->pods, 3);
  const SnapshotWorkload* plain = Find(w, "plain");
  ASSERT_NE(plain, nullptr);
  EXPECT_TRUE(plain->pod_sets.empty());
  EXPECT_EQ(plain->pods, 3);
  EXPECT_EQ(plain->gpus_per_pod, 2);
  ASSERT_EQ(w.notes.size(), 1u);
  EXPECT_NE(w.notes[0].find("1 pod set(s) of waiting Kueue Workloads ask for no GPU"),
            std::string::npos)
      << w.notes[0];
}

}  // namespace
}  // namespace steward::snapshot

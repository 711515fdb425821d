#include "diagnose/objects.h"

#include <gtest/gtest.h>

#include "diagnose/thresholds.h"

namespace steward::diagnose {
namespace {

// Shapes as `kubectl get pods -A -o json` prints them (reduced): a running Job pod, a pod the
// scheduler could not place, a pod held by Kueue's admission gate, and a CPU-only pod.
constexpr char kPods[] = R"({
  "apiVersion": "v1", "kind": "List",
  "items": [
    {"metadata": {"name": "ft-1-0", "namespace": "finetune",
                  "labels": {"team": "ml", "batch.kubernetes.io/job-name": "ft-1"},
                  "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "ft-1",
                                       "controller": true}]},
     "spec": {"nodeName": "gpu-3",
              "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
              "containers": [{"name": "sidecar"},
                             {"name": "trainer", "resources": {"limits": {"nvidia.com/gpu": "8"}}}]},
     "status": {"phase": "Running",
                "conditions": [{"type": "PodScheduled", "status": "True"}]}},
    {"metadata": {"name": "big-0", "namespace": "pretrain"},
     "spec": {"containers": [{"name": "main", "resources": {"requests": {"nvidia.com/gpu": 8},
                                                            "limits": {"nvidia.com/gpu": 8}}}]},
     "status": {"phase": "Pending",
                "conditions": [{"type": "PodScheduled", "status": "False",
                                "reason": "Unschedulable",
                                "message": "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."}]}},
    {"metadata": {"name": "web-7d9f8b6c5-x2x", "namespace": "serve",
                  "ownerReferences": [{"kind": "ReplicaSet", "name": "web-7d9f8b6c5"}]},
     "spec": {"schedulingGates": [{"name": "kueue.x-k8s.io/admission"}],
              "containers": [{"name": "main", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
     "status": {"phase": "Pending",
                "conditions": [{"type": "PodScheduled", "status": "False",
                                "reason": "SchedulingGated"}]}},
    {"metadata": {"name": "cpu-only", "namespace": "default"},
     "spec": {"containers": [{"name": "c"}]}, "status": {"phase": "Running"}}
  ]})";

TEST(PodListTest, ReadsWhoHoldsAndWhyPodsWait) {
  Result<std::vector<PodObject>> pods = ParsePodList(kPods, "pods.json");
  ASSERT_TRUE(pods.ok()) << pods.status().message();
  ASSERT_EQ(pods->size(), 3u);  // The CPU-only pod is dropped.
  const PodObject& ft = (*pods)[0];
  EXPECT_EQ(ft.namespace_name, "finetune");
  EXPECT_EQ(ft.node, "gpu-3");
  EXPECT_EQ(ft.gpus, 8);
  EXPECT_EQ(ft.container, "trainer");
  EXPECT_EQ(ft.gpu_product, "NVIDIA-H100-80GB-HBM3");
  EXPECT_EQ(ft.phase, PodPhase::kRunning);
  EXPECT_EQ(ft.wait, PodWait::kNone);
  EXPECT_EQ(ft.owner_kind, "Job");
  EXPECT_EQ(TeamOf(ft, {}), "ml");
  EXPECT_EQ(WorkloadOf(ft, {}), "finetune/ft-1");
  Attribution by_job;
  by_job.workload_label = "batch.kubernetes.io/job-name";
  by_job.team_label = "owner";
  EXPECT_EQ(WorkloadOf(ft, by_job), "finetune/ft-1");
  EXPECT_EQ(TeamOf(ft, by_job), "finetune");  // No "owner" label: the namespace.

  const PodObject& big = (*pods)[1];
  EXPECT_EQ(big.wait, PodWait::kNoFit);
  EXPECT_EQ(big.gpus, 8);
  EXPECT_NE(big.wait_message.find("Insufficient"), std::string::npos);
  EXPECT_EQ(WorkloadOf(big, {}), "pretrain/big-0");  // No owner: the pod itself.

  const PodObject& web = (*pods)[2];
  EXPECT_EQ(web.wait, PodWait::kQueued);
  EXPECT_EQ(WorkloadOf(web, {}), "serve/web");  // The Deployment, not its ReplicaSet.
}

TEST(PodListTest, WritesWhatItReads) {
  Result<std::vector<PodObject>> pods = ParsePodList(kPods, "pods.json");
  ASSERT_TRUE(pods.ok());
  const std::string text = PodListJson(*pods).dump();
  Result<std::vector<PodObject>> back = ParsePodList(text, "written.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->size(), pods->size());
  for (size_t i = 0; i < pods->size(); ++i) {
    const PodObject &a = (*pods)[i], &b = (*back)[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.namespace_name, b.namespace_name);
    EXPECT_EQ(a.labels, b.labels);
    EXPECT_EQ(a.node, b.node);
    EXPECT_EQ(a.gpus, b.gpus);
    EXPECT_EQ(a.gpu_product, b.gpu_product);
    EXPECT_EQ(a.phase, b.phase);
    EXPECT_EQ(a.wait, b.wait);
    EXPECT_EQ(a.wait_message, b.wait_message);
    EXPECT_EQ(WorkloadOf(a, {}), WorkloadOf(b, {}));
  }
}

TEST(PodListTest, ErrorsNameTheFileItemAndField) {
  auto error = [](const std::string& json) {
    Result<std::vector<PodObject>> r = ParsePodList(json, "pods.json");
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(error(R"({"items": [{"metadata": {"name": "a"}, "spec": {"containers": [
                 {"resources": {"limits": {"nvidia.com/gpu": "1k"}}}]}}]})"),
            "pods.json: items[0].spec.containers[0].resources.limits[\"nvidia.com/gpu\"]: \"1k\" "
            "is not a whole GPU count");
  EXPECT_EQ(error(R"({"items": [{"metadata": {}}]})"),
            "pods.json: items[0].metadata.name: missing or not a string");
  EXPECT_EQ(error(R"({"items": [{"metadata": {"name": "a", "labels": {"team": 3}}}]})"),
            "pods.json: items[0].metadata.labels[\"team\"]: not a string");
  EXPECT_EQ(error(R"({"kind": "NodeList"})"),
            "pods.json: expected a PodList (an object with an \"items\" array)");
  const std::string syntax = error("{\n  \"items\": [\n    {,\n");
  EXPECT_EQ(syntax.rfind("pods.json:3:", 0), 0u) << syntax;
  EXPECT_NE(syntax.find(": json: "), std::string::npos) << syntax;
}

TEST(ThresholdsTest, YamlOverridesAndValidates) {
  Thresholds t;
  ASSERT_TRUE(
      ParseThresholds("zombie_minutes: 30\nlow_sm_active: 0.25\nstall_min_drops: 3\n", "t.yaml", t)
          .ok());
  EXPECT_EQ(t.zombie_minutes, 30);
  EXPECT_EQ(t.low_sm_active, 0.25);
  EXPECT_EQ(t.stall_min_drops, 3);
  EXPECT_EQ(t.idle_sm_active, 0.05);  // Untouched keys keep the defaults.
  auto error = [](const std::string& yaml) {
    Thresholds x;
    const Status s = ParseThresholds(yaml, "t.yaml", x);
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(x.zombie_minutes, 60);  // All or nothing.
    return s.message();
  };
  EXPECT_EQ(error("zombie_minutes: 30\nzombie_minute: 5\n"),
            "t.yaml:2:1: zombie_minute: unknown threshold (valid: idle_sm_active, fb_held_mib, "
            "zombie_minutes, stall_gpu_util_percent, stall_min_drops, low_sm_active, "
            "low_tensor_active, recommend_share, top_n, right_size_quantile, share_sm_active)");
  EXPECT_EQ(error("zombie_minutes: 30\nlow_sm_active: 2\n"),
            "t.yaml:2:16: low_sm_active: must be in [0, 1], got 2");
  EXPECT_EQ(error("zombie_minutes: 30\nstall_min_drops: 1.5\n"),
            "t.yaml:2:18: stall_min_drops: must be a whole number, got '1.5'");
  EXPECT_EQ(error("zombie_minutes: 30\nidle_sm_active: lots\n"),
            "t.yaml:2:17: idle_sm_active: must be a number, got 'lots'");
  EXPECT_EQ(error("- 1\n"), "t.yaml:1:1: thresholds: must be a map of KEY: VALUE");
}

TEST(ThresholdsTest, AssignmentsFromTheCommandLine) {
  Thresholds t;
  ASSERT_TRUE(SetThresholdAssignment(t, "fb_held_mib=256").ok());
  EXPECT_EQ(t.fb_held_mib, 256);
  EXPECT_EQ(SetThresholdAssignment(t, "top_n").message().rfind("threshold 'top_n': expected", 0),
            0u);
  EXPECT_EQ(SetThresholdAssignment(t, "top_n=-1").message(),
            "threshold top_n: must be in [0, 1000000], got -1");
}

// Crafted PodLists: each is an error naming the file and where, never a wrong count or a crash.
TEST(ObjectsTest, CraftedPodListsAreRefused) {
  auto pod = [](const std::string& gpus) {
    return R"({"kind":"List","items":[{"metadata":{"name":"p","namespace":"n"},"spec":{)"
           R"("containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":)" +
           gpus + "}}}]}}]}";
  };
  struct Case {
    std::string text, expect;
  };
  const Case cases[] = {
      // 2^32 + 8 GPUs: stored as an int it would have been 8.
      {pod("4294967304"), "is not a whole GPU count"},
      {pod("\"4294967304\""), "is not a whole GPU count"},
      {pod("18446744073709551615"), "is not a whole GPU count"},
      {pod("1e400"), "pods.json:1:"},  // Beyond a double: an error at its position.
      {R"({"items":[{"metadata":{"name":"p","name":"q"}}]})", "duplicate key \"name\""},
      {R"({"kind":"List","items":[{"kind":"Node","metadata":{"name":"n"}}]})",
       "items[0]: kind \"Node\" is not a Pod"},
  };
  for (const Case& c : cases) {
    Result<std::vector<PodObject>> r = ParsePodList(c.text, "pods.json");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.expect), std::string::npos)
        << r.status().message() << " / " << c.text;
    EXPECT_NE(r.status().message().find("pods.json"), std::string::npos) << c.text;
  }
  Result<std::vector<PodObject>> ok = ParsePodList(pod("8"), "pods.json");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  ASSERT_EQ(ok->size(), 1u);
  EXPECT_EQ((*ok)[0].gpus, 8);
}

}  // namespace
}  // namespace steward::diagnose

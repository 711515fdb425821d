// Every waste class from crafted series: hand-built DCGM samples, pods and nodes, with the
// expected GPU-hours computed by hand. The step is 6 minutes, so each frame is 0.1 h.
#include "diagnose/classifier.h"

#include <gtest/gtest.h>

#include <functional>

#include "diagnose/frame.h"

namespace steward::diagnose {
namespace {

using telemetry::DcgmField;
using telemetry::GpuRecord;

constexpr int64_t kStepMs = 6 * 60 * 1000;  // 0.1 h.
constexpr int64_t kT0 = 1'767'225'600'000;  // 2026-01-01T00:00:00Z.

// A GPU sample: which GPU, which pod holds it ("" = free), and its values (negative = not
// exported).
GpuRecord Gpu(const std::string& host, int index, const std::string& pod, double sm, double util,
              double fb, double tensor = -1) {
  GpuRecord r;
  r.id.hostname = host;
  r.id.gpu = index;
  r.id.uuid = "GPU-" + host + "-" + std::to_string(index);
  r.id.model_name = "NVIDIA H100 80GB HBM3";
  if (!pod.empty()) {
    r.id.pod = pod;
    r.id.namespace_name = "ml";
    r.id.container = "main";
  }
  if (sm >= 0) r.values.Set(DcgmField::kSmActive, sm);
  if (util >= 0) r.values.Set(DcgmField::kGpuUtil, util);
  if (fb >= 0) r.values.Set(DcgmField::kFbUsed, fb);
  if (tensor >= 0) r.values.Set(DcgmField::kPipeTensorActive, tensor);
  return r;
}

PodObject Pod(const std::string& name, const std::string& node, int gpus,
              PodPhase phase = PodPhase::kRunning, PodWait wait = PodWait::kNone,
              const std::string& team = "research", const std::string& product = "") {
  PodObject p;
  p.namespace_name = "ml";
  p.name = name;
  p.labels = {{"team", team}, {"steward.io/workload", name}};
  p.node = node;
  p.gpus = gpus;
  p.phase = phase;
  p.wait = wait;
  p.gpu_product = product;
  return p;
}

health::NodeInfo Node(const std::string& name, int gpus, bool schedulable = true,
                      const std::string& product = "NVIDIA-H100-80GB-HBM3") {
  health::NodeInfo n;
  n.name = name;
  n.gpu_capacity = n.gpu_allocatable = gpus;
  n.unschedulable = !schedulable;
  n.labels = {{"nvidia.com/gpu.product", product}};
  return n;
}

struct FrameInput {
  std::vector<GpuRecord> gpus;
  std::vector<PodObject> pods;
  std::vector<health::NodeInfo> nodes;
};

// Feeds `frames` (0.1 h each) through the builder and the classifier.
Diagnosis Diagnose(const std::vector<FrameInput>& frames, Thresholds t = {},
                   cost::CostModel model = cost::CostModel::Default()) {
  FrameBuilder builder(Attribution{}, kStepMs);
  Classifier classifier(t, std::move(model));
  builder.AddSink(&classifier);
  for (size_t i = 0; i < frames.size(); ++i) {
    std::vector<const PodObject*> pods;
    for (const PodObject& p : frames[i].pods) pods.push_back(&p);
    Snapshot s;
    s.time_ms = kT0 + static_cast<int64_t>(i) * kStepMs;
    s.gpus = frames[i].gpus;
    s.pods = pods;
    s.nodes = frames[i].nodes;
    EXPECT_TRUE(builder.Add(s).ok());
  }
  EXPECT_TRUE(builder.Finish().ok());
  return classifier.Result({});
}

// n frames made by `make(i)`.
std::vector<FrameInput> Frames(int n, const std::function<FrameInput(int)>& make) {
  std::vector<FrameInput> v;
  for (int i = 0; i < n; ++i) v.push_back(make(i));
  return v;
}

double Cause(const Diagnosis& d, const std::string& cause) {
  auto it = d.waste_gpu_hours_by_cause.find(cause);
  return it == d.waste_gpu_hours_by_cause.end() ? 0 : it->second;
}

TEST(ClassifierTest, ZombieHoldsMemoryWithoutComputingForAnHour) {
  // A notebook computes for 0.5 h (SM 0.5), then sits for 1.5 h at util 2%, SM 0, memory held.
  auto frames = Frames(20, [](int i) {
    return FrameInput{{i < 5 ? Gpu("n1", 0, "nb", 0.5, 60, 4000) : Gpu("n1", 0, "nb", 0, 2, 4000)},
                      {Pod("nb", "n1", 1)},
                      {Node("n1", 1)}};
  });
  const Diagnosis d = Diagnose(frames);
  EXPECT_NEAR(d.allocated_gpu_hours, 2.0, 1e-9);
  EXPECT_NEAR(d.sm_active_gpu_hours, 0.25, 1e-9);     // 5 x 0.1 x 0.5.
  EXPECT_NEAR(Cause(d, "zombie"), 1.5, 1e-9);         // 15 x 0.1 x (1 - 0).
  EXPECT_NEAR(d.unattributed_gpu_hours, 0.25, 1e-9);  // Computing at SM 0.5 >= 0.3.
  EXPECT_EQ(d.waste_gpu_hours_by_cause.size(), 1u);
  ASSERT_EQ(d.top_teams.size(), 1u);
  EXPECT_EQ(d.top_teams[0].name, "research");
  EXPECT_EQ(d.top_teams[0].top_cause, "zombie");
  ASSERT_EQ(d.top_workloads.size(), 1u);
  EXPECT_EQ(d.top_workloads[0].name, "ml/nb");
  ASSERT_EQ(d.top_gpus.size(), 1u);
  EXPECT_EQ(d.top_gpus[0].uuid, "GPU-n1-0");
  // Priced at the built-in H100 1.19315 $/GPU-h (the modelName's "H100" word).
  EXPECT_NEAR(d.waste_usd_by_cause.at("zombie"), 1.5 * 1.19315, 1e-4);
  ASSERT_FALSE(d.recommendations.empty());
  EXPECT_EQ(d.recommendations[0].cause, "zombie");
}

TEST(ClassifierTest, ShortIdleIsNotAZombieAndTheThresholdIsConfigurable) {
  // 0.5 h computing, then 0.5 h idle with memory held until the data ends.
  auto frames = Frames(10, [](int i) {
    return FrameInput{{i < 5 ? Gpu("n1", 0, "nb", 0.5, 60, 4000) : Gpu("n1", 0, "nb", 0, 0, 4000)},
                      {Pod("nb", "n1", 1)},
                      {Node("n1", 1)}};
  });
  Diagnosis d = Diagnose(frames);
  EXPECT_NEAR(Cause(d, "zombie"), 0, 1e-12);
  EXPECT_NEAR(Cause(d, "low_efficiency"), 0.5, 1e-9);  // A pause, not a stall (no compute after).
  Thresholds t;
  ASSERT_TRUE(SetThreshold(t, "zombie_minutes", "30").ok());
  d = Diagnose(frames, t);
  EXPECT_NEAR(Cause(d, "zombie"), 0.5, 1e-9);
  EXPECT_NEAR(Cause(d, "low_efficiency"), 0, 1e-12);
}

TEST(ClassifierTest, OverRequestedGpusAreNeverDriven) {
  // A pod holds 4 GPUs for 1 h and drives 2 (SM 0.6, util 80%); the other 2 stay empty.
  auto frames = Frames(10, [](int) {
    return FrameInput{{Gpu("n1", 0, "ft", 0.6, 80, 60000), Gpu("n1", 1, "ft", 0.6, 80, 60000),
                       Gpu("n1", 2, "ft", 0, 0, 0), Gpu("n1", 3, "ft", 0, 0, 0)},
                      {Pod("ft", "n1", 4, PodPhase::kRunning, PodWait::kNone, "finetuning")},
                      {Node("n1", 4)}};
  });
  const Diagnosis d = Diagnose(frames);
  EXPECT_NEAR(d.allocated_gpu_hours, 4.0, 1e-9);
  EXPECT_NEAR(d.sm_active_gpu_hours, 1.2, 1e-9);
  EXPECT_NEAR(Cause(d, "over_request"), 2.0, 1e-9);
  EXPECT_NEAR(d.unattributed_gpu_hours, 0.8, 1e-9);  // 2 x 1 h x (1 - 0.6).
  EXPECT_NEAR(d.busy_gpu_hours, 1.6, 1e-9);
  EXPECT_EQ(d.top_teams[0].top_cause, "over_request");
}

TEST(ClassifierTest, GpuTouchedLateIsAnIdleStartNotOverRequest) {
  // Untouched for 0.3 h (loading), then computes: the hold did drive the GPU.
  auto frames = Frames(10, [](int i) {
    return FrameInput{
        {i < 3 ? Gpu("n1", 0, "job", 0, 0, 0) : Gpu("n1", 0, "job", 0.5, 70, 9000)}, {}, {}};
  });
  const Diagnosis d = Diagnose(frames);
  EXPECT_NEAR(Cause(d, "over_request"), 0, 1e-12);
  EXPECT_NEAR(Cause(d, "low_efficiency"), 0.3, 1e-9);
}

TEST(ClassifierTest, DataLoaderStallsAreRepeatedDropsToZero) {
  // 2 h computing at SM 0.5 / util 90%, dropping to util 0 (memory held) at frames 3, 8, 13.
  auto stalls = [](std::vector<int> drops) {
    return Frames(20, [drops](int i) {
      const bool drop = std::find(drops.begin(), drops.end(), i) != drops.end();
      return FrameInput{
          {drop ? Gpu("n1", 0, "mm", 0, 0, 50000) : Gpu("n1", 0, "mm", 0.5, 90, 50000)},
          {Pod("mm", "n1", 1, PodPhase::kRunning, PodWait::kNone, "multimodal")},
          {Node("n1", 1)}};
    });
  };
  Diagnosis d = Diagnose(stalls({3, 8, 13}));
  EXPECT_NEAR(Cause(d, "dataloader_stall"), 0.3, 1e-9);
  EXPECT_NEAR(d.sm_active_gpu_hours, 17 * 0.1 * 0.5, 1e-9);
  EXPECT_EQ(d.top_teams[0].top_cause, "dataloader_stall");
  // One drop is a pause, not a periodic stall...
  d = Diagnose(stalls({8}));
  EXPECT_NEAR(Cause(d, "dataloader_stall"), 0, 1e-12);
  EXPECT_NEAR(Cause(d, "low_efficiency"), 0.1, 1e-9);
  // ... unless the threshold says one is enough.
  Thresholds t;
  ASSERT_TRUE(SetThreshold(t, "stall_min_drops", "1").ok());
  EXPECT_NEAR(Cause(Diagnose(stalls({8}), t), "dataloader_stall"), 0.1, 1e-9);
  // A drop that keeps a few percent of GPU_UTIL is not "to 0" by default; at <= 5% it is.
  auto five = Frames(20, [](int i) {
    const bool drop = i == 3 || i == 8;
    return FrameInput{{drop ? Gpu("n1", 0, "mm", 0, 5, 50000) : Gpu("n1", 0, "mm", 0.5, 90, 50000)},
                      {Pod("mm", "n1", 1)},
                      {Node("n1", 1)}};
  });
  EXPECT_NEAR(Cause(Diagnose(five), "dataloader_stall"), 0, 1e-12);
  ASSERT_TRUE(SetThreshold(t, "stall_gpu_util_percent", "5").ok());
  EXPECT_NEAR(Cause(Diagnose(five, t), "dataloader_stall"), 0.2, 1e-9);
}

TEST(ClassifierTest, LowEfficiencyIsComputingBelowTheSmTarget) {
  auto frames = Frames(10, [](int) {
    return FrameInput{{Gpu("n1", 0, "ci", 0.2, 70, 8000, 0.05)}, {Pod("ci", "n1", 1)}, {}};
  });
  Diagnosis d = Diagnose(frames);
  EXPECT_NEAR(Cause(d, "low_efficiency"), 0.8, 1e-9);  // 10 x 0.1 x (1 - 0.2).
  EXPECT_NEAR(d.sm_active_gpu_hours, 0.2, 1e-9);
  Thresholds t;
  ASSERT_TRUE(SetThreshold(t, "low_sm_active", "0.1").ok());
  d = Diagnose(frames, t);
  EXPECT_NEAR(Cause(d, "low_efficiency"), 0, 1e-12);
  EXPECT_NEAR(d.unattributed_gpu_hours, 0.8, 1e-9);
  // Tensor-active 0.05 under a 0.1 target makes the same samples low efficiency again.
  ASSERT_TRUE(SetThreshold(t, "low_tensor_active", "0.1").ok());
  EXPECT_NEAR(Cause(Diagnose(frames, t), "low_efficiency"), 0.8, 1e-9);
}

TEST(ClassifierTest, StartupIsHeldBeforeThePodRuns) {
  auto frames = Frames(6, [](int i) {
    const PodPhase phase = i < 2 ? PodPhase::kPending : PodPhase::kRunning;
    return FrameInput{{i < 2 ? Gpu("n1", 0, "svc", 0, 0, 0) : Gpu("n1", 0, "svc", 0.4, 60, 7000)},
                      {Pod("svc", "n1", 1, phase)},
                      {Node("n1", 1)}};
  });
  const Diagnosis d = Diagnose(frames);
  EXPECT_NEAR(Cause(d, "startup"), 0.2, 1e-9);
  EXPECT_NEAR(Cause(d, "over_request"), 0, 1e-12);  // Started samples drove the GPU.
  EXPECT_NEAR(d.allocated_gpu_hours, 0.6, 1e-9);
}

// Two 8-GPU nodes: a holds 5 (pod "a5"), b holds 4 (pod "b4"); 3 + 4 = 7 free, at most 4 on one.
FrameInput TwoNodes(std::vector<PodObject> pending, bool b_schedulable = true) {
  FrameInput f;
  for (int g = 0; g < 8; ++g) {
    f.gpus.push_back(g < 5 ? Gpu("a", g, "a5", 0.5, 90, 30000) : Gpu("a", g, "", 0, 0, 0));
    f.gpus.push_back(g < 4 ? Gpu("b", g, "b4", 0.5, 90, 30000) : Gpu("b", g, "", 0, 0, 0));
  }
  f.pods = {Pod("a5", "a", 5), Pod("b4", "b", 4)};
  for (PodObject& p : pending) f.pods.push_back(std::move(p));
  f.nodes = {Node("a", 8), Node("b", 8, b_schedulable)};
  return f;
}

TEST(ClassifierTest, FragmentationIsFreeButUnplaceable) {
  // A 6-GPU pod fits in the 7 free GPUs but on no node: 6 GPUs stranded for 0.5 h = 3 GPU-h.
  // A 2-GPU no-fit pod would fit on either node (blocked by something else), an 8-GPU one
  // exceeds the free total (capacity, not fragmentation): neither counts.
  auto frames = Frames(5, [](int) {
    return TwoNodes({Pod("p6", "", 6, PodPhase::kPending, PodWait::kNoFit),
                     Pod("p2", "", 2, PodPhase::kPending, PodWait::kNoFit),
                     Pod("p8", "", 8, PodPhase::kPending, PodWait::kNoFit)});
  });
  Diagnosis d = Diagnose(frames);
  EXPECT_NEAR(Cause(d, "fragmentation"), 3.0, 1e-9);
  EXPECT_NEAR(Cause(d, "queueing"), 0, 1e-12);
  EXPECT_NEAR(d.capacity_gpu_hours, 16 * 0.5, 1e-9);
  EXPECT_NEAR(d.allocated_gpu_hours, 9 * 0.5, 1e-9);
  EXPECT_EQ(d.recommendations[0].cause, "fragmentation");
  // Node b cordoned: only a's 3 GPUs are free, fewer than 6: no longer fragmentation.
  frames = Frames(5, [](int) {
    return TwoNodes({Pod("p6", "", 6, PodPhase::kPending, PodWait::kNoFit)}, false);
  });
  EXPECT_NEAR(Cause(Diagnose(frames), "fragmentation"), 0, 1e-12);
}

TEST(ClassifierTest, QueueingIsFreeCapacityWhileWorkWaitsForQuota) {
  // An 8-GPU workload gated by the queue while 7 GPUs sit free: 7 x 0.5 h = 3.5 GPU-h.
  auto frames = Frames(5, [](int) {
    return TwoNodes({Pod("q8", "", 8, PodPhase::kPending, PodWait::kQueued, "pretraining")});
  });
  EXPECT_NEAR(Cause(Diagnose(frames), "queueing"), 3.5, 1e-9);
  // With a fragmentation victim too, it takes 6 of the 7 first; 1 is left for the queue.
  frames = Frames(5, [](int) {
    return TwoNodes({Pod("q8", "", 8, PodPhase::kPending, PodWait::kQueued),
                     Pod("p6", "", 6, PodPhase::kPending, PodWait::kNoFit)});
  });
  const Diagnosis d = Diagnose(frames);
  EXPECT_NEAR(Cause(d, "fragmentation"), 3.0, 1e-9);
  EXPECT_NEAR(Cause(d, "queueing"), 0.5, 1e-9);
}

TEST(ClassifierTest, PendingPodsOnlyUseFreeGpusOfTheirProduct) {
  // Node a is H100 (3 free), node b L4 (4 free). A queued pod for H100 can only count a's 3.
  auto frames = Frames(5, [](int) {
    FrameInput f = TwoNodes(
        {Pod("q", "", 8, PodPhase::kPending, PodWait::kQueued, "x", "NVIDIA-H100-80GB-HBM3")});
    f.nodes[1] = Node("b", 8, true, "NVIDIA-L4");
    return f;
  });
  EXPECT_NEAR(Cause(Diagnose(frames), "queueing"), 3 * 0.5, 1e-9);
}

TEST(ClassifierTest, FreeGpusComeFromDcgmWhenNodesAreUnknown) {
  auto frames = Frames(5, [](int) {
    FrameInput f = TwoNodes({Pod("q8", "", 8, PodPhase::kPending, PodWait::kQueued)});
    f.nodes.clear();
    return f;
  });
  EXPECT_NEAR(Cause(Diagnose(frames), "queueing"), 3.5, 1e-9);  // 3 + 4 unlabelled GPUs.
}

TEST(ClassifierTest, PodsWithoutObjectsAreChargedToTheirNamespace) {
  auto frames = Frames(10, [](int) {
    return FrameInput{{Gpu("n1", 0, "lost-7d9f", 0, 0, 0)}, {}, {}};
  });
  const Diagnosis d = Diagnose(frames);
  EXPECT_NEAR(Cause(d, "over_request"), 1.0, 1e-9);
  ASSERT_EQ(d.top_teams.size(), 1u);
  EXPECT_EQ(d.top_teams[0].name, "ml");
  EXPECT_EQ(d.top_workloads[0].name, "ml/lost-7d9f");
}

TEST(ClassifierTest, ActivityWithoutPodLabelsIsFlagged) {
  auto frames = Frames(10, [](int) {
    return FrameInput{{Gpu("n1", 0, "", 0.7, 95, 20000)}, {}, {}};
  });
  const Diagnosis d = Diagnose(frames);
  EXPECT_NEAR(d.allocated_gpu_hours, 0, 1e-12);
  EXPECT_NEAR(d.unmapped_busy_gpu_hours, 1.0, 1e-9);
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("pod mapping"), std::string::npos);
}

TEST(ClassifierTest, WithoutSmActiveTheGrEngineThenGpuUtilStandIn) {
  auto frames = Frames(10, [](int) {
    GpuRecord r = Gpu("n1", 0, "ci", -1, 40, 8000);  // GPU_UTIL only: activity 0.4.
    return FrameInput{{r}, {Pod("ci", "n1", 1)}, {}};
  });
  EXPECT_NEAR(Diagnose(frames).sm_active_gpu_hours, 0.4, 1e-9);
  frames[0].gpus[0].values.Set(DcgmField::kGrEngineActive, 0.9);  // Preferred over GPU_UTIL.
  EXPECT_NEAR(Diagnose(frames).sm_active_gpu_hours, 0.09 + 0.36, 1e-9);
}

TEST(ClassifierTest, CostModelPricesEachGpuByItsModel) {
  cost::CostModel m;
  cost::GpuCostSpec h100;
  h100.usd_per_gpu_hour = 2.0;
  m.SetModel("H100", h100);
  m.set_fallback_usd_per_gpu_hour(0.5);
  auto frames = Frames(10, [](int) {
    GpuRecord l4 = Gpu("n2", 0, "small", 0, 0, 0);
    l4.id.model_name = "NVIDIA L4";  // Not in the model: fallback price.
    return FrameInput{{Gpu("n1", 0, "big", 0, 0, 0), l4}, {}, {}};
  });
  const Diagnosis d = Diagnose(frames, {}, m);
  EXPECT_NEAR(Cause(d, "over_request"), 2.0, 1e-9);
  EXPECT_NEAR(d.waste_usd_by_cause.at("over_request"), 1.0 * 2.0 + 1.0 * 0.5, 1e-9);
}

TEST(ClassifierTest, HoldsCloseWhenTheGpuChangesHands) {
  // GPU 0: pod "a" never touches it for 0.3 h (over-request), then pod "b" computes on it.
  auto frames = Frames(6, [](int i) {
    return FrameInput{
        {i < 3 ? Gpu("n1", 0, "a", 0, 0, 0) : Gpu("n1", 0, "b", 0.5, 80, 1000)}, {}, {}};
  });
  const Diagnosis d = Diagnose(frames);
  EXPECT_NEAR(Cause(d, "over_request"), 0.3, 1e-9);
  EXPECT_NEAR(d.sm_active_gpu_hours, 0.15, 1e-9);
}

TEST(ClassifierTest, DuplicateSeriesOfOneGpuCountOnce) {
  auto frames = Frames(2, [](int) {
    return FrameInput{{Gpu("n1", 0, "a", 0.5, 80, 1000), Gpu("n1", 0, "b", 0, 0, 0)}, {}, {}};
  });
  const Diagnosis d = Diagnose(frames);
  EXPECT_NEAR(d.capacity_gpu_hours, 0.2, 1e-9);
  EXPECT_NEAR(d.allocated_gpu_hours, 0.2, 1e-9);
}

TEST(ClassifierTest, RightSizingFromTheSameSeries) {
  // An 8-GPU pod of the "lora" template computes on GPUs 0-3 (SM 0.4) and never touches 4-7;
  // it starts in frame 0 (pending on its node), then runs 11 frames: 1.1 pod-hours driving 4.
  // A 1-GPU notebook of the "lab" template runs 12 frames at SM 0.2.
  auto frames = Frames(12, [](int i) {
    FrameInput f;
    PodObject lora = Pod("lora-0", "n1", 8, i == 0 ? PodPhase::kPending : PodPhase::kRunning);
    lora.labels["app.kubernetes.io/name"] = "lora";
    PodObject nb = Pod("nb-0", "n2", 1);
    nb.labels["app.kubernetes.io/name"] = "lab";
    f.pods = {lora, nb};
    for (int g = 0; g < 8; ++g)
      f.gpus.push_back(g < 4 && i > 0 ? Gpu("n1", g, "lora-0", 0.4, 80, 9000)
                                      : Gpu("n1", g, "lora-0", 0, 0, 0));
    f.gpus.push_back(Gpu("n2", 0, "nb-0", 0.2, 40, 4000));
    f.nodes = {Node("n1", 8), Node("n2", 1)};
    return f;
  });
  const Diagnosis d = Diagnose(frames);
  ASSERT_EQ(d.right_sizing.size(), 2u);
  const RightSizing& lora = d.right_sizing[0];  // 4.4 GPU-hours freed: first.
  EXPECT_EQ(lora.workload_class, "research/lora");
  EXPECT_EQ(lora.gpus_per_pod, 8);
  EXPECT_NEAR(lora.pod_hours, 1.1, 1e-9);
  EXPECT_EQ(lora.driven_gpus, 4);
  EXPECT_EQ(lora.recommended_gpus_per_pod, 4);
  EXPECT_NEAR(lora.gpu_hours_freed, 4 * 1.1, 1e-9);
  const RightSizing& nb = d.right_sizing[1];
  EXPECT_EQ(nb.workload_class, "research/lab");
  EXPECT_EQ(nb.recommended_gpus_per_pod, 1);
  EXPECT_DOUBLE_EQ(nb.sm_active, 0.25);  // The [0.20, 0.25) bin.
  EXPECT_EQ(nb.mig_sevenths, 2);
  EXPECT_NEAR(nb.gpu_hours_freed_by_sharing, 1.2 * 5 / 7, 1e-9);
  // Printed in both outputs.
  EXPECT_EQ(ToJson(d)["right_sizing"][0]["recommended_gpus_per_pod"], 4);
  EXPECT_NE(ToText(d).find("research/lora: request 4 GPUs per pod instead of 8"),
            std::string::npos);
  // Without the template label each workload is its own class.
  FrameBuilder builder(Attribution{"team", "steward.io/workload", "no-such-label"}, kStepMs);
  Classifier c({}, cost::CostModel::Default());
  builder.AddSink(&c);
  for (size_t i = 0; i < frames.size(); ++i) {
    std::vector<const PodObject*> pods;
    for (const PodObject& p : frames[i].pods) pods.push_back(&p);
    Snapshot s;
    s.time_ms = kT0 + static_cast<int64_t>(i) * kStepMs;
    s.gpus = frames[i].gpus;
    s.pods = pods;
    s.nodes = frames[i].nodes;
    ASSERT_TRUE(builder.Add(s).ok());
  }
  ASSERT_TRUE(builder.Finish().ok());
  EXPECT_EQ(c.Result({}).right_sizing[0].workload_class, "ml/lora-0");
}

}  // namespace
}  // namespace steward::diagnose

namespace steward::diagnose {
namespace {

TEST(ClassifierTest, QueueingIsChargedToTheWaitingTeamsByTheirWaitingGpus) {
  // 7 GPUs free while pretraining waits with 6 GPUs and finetuning with 2 (8 waiting, all of
  // them fit in the free total): queueing takes the 7 free GPUs for 0.5 h = 3.5 GPU-h, split
  // 6/8 and 2/8: 2.625 and 0.875. Waited: 6 x 0.5 = 3 and 2 x 0.5 = 1 GPU-h.
  auto frames = Frames(5, [](int) {
    return TwoNodes({Pod("q6", "", 6, PodPhase::kPending, PodWait::kQueued, "pretraining"),
                     Pod("q2", "", 2, PodPhase::kPending, PodWait::kQueued, "finetuning")});
  });
  const Diagnosis d = Diagnose(frames);
  EXPECT_NEAR(Cause(d, "queueing"), 3.5, 1e-9);
  ASSERT_EQ(d.queueing_by_team.size(), 2u);
  EXPECT_EQ(d.queueing_by_team[0].team, "pretraining");
  EXPECT_NEAR(d.queueing_by_team[0].gpu_hours, 2.625, 1e-9);
  EXPECT_NEAR(d.queueing_by_team[0].waiting_gpu_hours, 3, 1e-9);
  EXPECT_EQ(d.queueing_by_team[0].peak_waiting_gpus, 6);
  EXPECT_EQ(d.queueing_by_team[1].team, "finetuning");
  EXPECT_NEAR(d.queueing_by_team[1].gpu_hours, 0.875, 1e-9);
  EXPECT_EQ(d.queueing_by_team[1].quota_gpus, -1);  // Unknown without a scenario.
}

TEST(ClassifierTest, AWorkloadRowNamesItsOwnerAndReplicas) {
  // Three replicas of one Deployment (pods of ReplicaSet web-5d8f, no workload label) on one
  // GPU each, then two: one row, owner Deployment, 3 replicas at most.
  auto frames = Frames(4, [](int i) {
    FrameInput f;
    const int replicas = i < 2 ? 3 : 2;
    for (int r = 0; r < 3; ++r) {
      const std::string name = "web-5d8f-" + std::to_string(r);
      f.gpus.push_back(Gpu("a", r, r < replicas ? name : "", 0.1, 20, 1000));
      if (r >= replicas) continue;
      PodObject p = Pod(name, "a", 1);
      p.labels.erase("steward.io/workload");
      p.owner_kind = "ReplicaSet";
      p.owner_name = "web-5d8f";
      f.pods.push_back(p);
    }
    return f;
  });
  const Diagnosis d = Diagnose(frames);
  ASSERT_EQ(d.top_workloads.size(), 1u);
  EXPECT_EQ(d.top_workloads[0].name, "ml/web");
  EXPECT_EQ(d.top_workloads[0].owner_kind, "Deployment");
  EXPECT_EQ(d.top_workloads[0].replicas, 3);
}

}  // namespace
}  // namespace steward::diagnose

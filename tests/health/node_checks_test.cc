// The node checks of `steward health nodes` (readiness, lifecycle taints, GPU conditions,
// cordoned GPU nodes, MIG manager states) and the strict NodeList reader (YAML, List wrappers,
// crafted bad input), on hand-built node lists.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "health/node_list.h"
#include "health/stack_health.h"

namespace steward::health {
namespace {

using ::testing::HasSubstr;

// Findings of `check` as (node, severity) pairs.
std::vector<std::pair<std::string, std::string>> Of(const std::vector<StackFinding>& findings,
                                                    std::string_view check) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const StackFinding& f : findings) {
    if (f.check == check) out.emplace_back(f.node, f.severity);
  }
  return out;
}

std::vector<NodeInfo> MustParse(std::string_view text) {
  Result<std::vector<NodeInfo>> nodes = ParseNodeList(text, "test");
  EXPECT_TRUE(nodes.ok()) << nodes.status().ToString();
  return nodes.ok() ? *nodes : std::vector<NodeInfo>{};
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

// What `kubectl get nodes -o yaml` prints: a v1 List with Node items.
constexpr char kYamlList[] = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: gpu-1
    labels:
      nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
    annotations:
      note: "1"
  spec:
    taints:
    - key: node.kubernetes.io/unreachable
      effect: NoExecute
      timeAdded: "2026-12-04T10:00:00Z"
  status:
    capacity:
      nvidia.com/gpu: "8"
    allocatable:
      nvidia.com/gpu: "8"
    conditions:
    - type: Ready
      status: Unknown
      reason: NodeStatusUnknown
      message: Kubelet stopped posting node status.
      lastTransitionTime: "2026-12-04T10:00:00Z"
- apiVersion: v1
  kind: Node
  metadata:
    name: gpu-2
  status:
    capacity: {nvidia.com/gpu: 8}
    allocatable: {nvidia.com/gpu: 8}
    conditions:
    - {type: Ready, status: "True"}
metadata:
  resourceVersion: ""
)";

TEST(NodeListReaderTest, ReadsKubectlYamlList) {
  std::vector<NodeInfo> nodes = MustParse(kYamlList);
  ASSERT_EQ(nodes.size(), 2u);
  const NodeInfo& n = nodes[0];
  EXPECT_EQ(n.name, "gpu-1");
  EXPECT_EQ(n.gpu_capacity, 8);
  EXPECT_EQ(n.Annotation("note"), "1");
  EXPECT_FALSE(n.ready);
  ASSERT_NE(n.Condition("Ready"), nullptr);
  EXPECT_EQ(n.Condition("Ready")->status, "Unknown");
  // 2026-12-04T10:00:00Z: 56 years (14 leap days) and 337 days after the epoch, plus 10 h.
  EXPECT_EQ(n.Condition("Ready")->last_transition, (56LL * 365 + 14 + 337) * 86400 + 10 * 3600);
  ASSERT_EQ(n.taints.size(), 1u);
  EXPECT_EQ(n.taints[0].effect, "NoExecute");
  EXPECT_TRUE(nodes[1].ready);
  EXPECT_EQ(nodes[1].gpu_allocatable, 8);
}

TEST(NodeListReaderTest, ReadsSeveralYamlDocumentsAndJsonNodeList) {
  std::vector<NodeInfo> docs = MustParse(
      "kind: Node\nmetadata: {name: a}\n---\nkind: NodeList\nitems:\n- metadata: {name: b}\n"
      "- metadata: {name: c}\n---\n");
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[2].name, "c");
  std::vector<NodeInfo> json =
      MustParse(R"({"kind":"NodeList","items":[{"kind":"Node","metadata":{"name":"x"}}]})");
  ASSERT_EQ(json.size(), 1u);
  EXPECT_EQ(json[0].name, "x");
}

// Crafted input: each is an error that names the source and where, never an exception.
TEST(NodeListReaderTest, RefusesBadInputNamingWhere) {
  struct Case {
    const char* text;
    const char* expect;
  };
  const Case cases[] = {
      // A valid JSON number a double cannot hold (used to abort the process).
      {"{\"items\": [\n {\"metadata\": {\"name\": \"n\", \"x\": 1e400}}]}", "test:2:"},
      {R"({"items": [{"metadata": {"name": "n", "labels": {"a": "1", "a": "2"}}}]})",
       "items[0].metadata.labels: duplicate key \"a\""},
      {"items:\n- metadata:\n    name: n\n    name: m\n", "duplicate"},
      {"items:\n- metadata: {name: n\n", "test:"},  // YAML syntax error with a position.
      {R"({"kind":"List","items":[{"kind":"Pod","metadata":{"name":"p"}}]})",
       "items[0]: kind Pod is not a Node"},
      {R"({"kind":"PodList","items":[]})", "kind PodList is not a NodeList"},
      {R"({"items":[{"metadata":{"name":"n"},"status":{"capacity":{"nvidia.com/gpu":18446744073709551615}}}]})",
       "status.capacity[\"nvidia.com/gpu\"]"},
      {R"({"items":[{"metadata":{"name":"n"},"status":{"allocatable":{"nvidia.com/gpu":"-1"}}}]})",
       "status.allocatable[\"nvidia.com/gpu\"]"},
      {R"({"items":[{"metadata":{"name":"n"},"status":{"capacity":{"nvidia.com/gpu":9223372036854775807,"nvidia.com/mig-1g.10gb":1}}}]})",
       "overflow"},
      {R"({"items":[{"metadata":{"name":"n"},"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"yesterday"}]}}]})",
       "status.conditions[0].lastTransitionTime"},
      {R"({"items":[{"metadata":{"name":"n"},"spec":{"taints":[{"effect":"NoSchedule"}]}}]})",
       "spec.taints[0].key"},
      {R"({"items":[{"metadata":{"name":"n"},"status":"up"}]})", "status: not an object"},
      {R"({"items":[{"metadata":{"name":"n"},"status":{"capacity":{"nvidia.com/gpu":"4"},"allocatable":{"nvidia.com/gpu":"8"}}}]})",
       "node n: status.allocatable has 8 GPUs, more than status.capacity's 4"},
      {"", "no objects"},
      {"---\n# only a comment\n", "no objects"},
  };
  for (const Case& c : cases) {
    Result<std::vector<NodeInfo>> r = ParseNodeList(c.text, "test");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_THAT(r.status().message(), HasSubstr(c.expect)) << c.text;
    EXPECT_THAT(r.status().message(), HasSubstr("test")) << c.text;
  }
}

TEST(NodeChecksTest, NotReadyAndLifecycleTaintsAreCritical) {
  std::vector<NodeInfo> nodes = MustParse(R"({"items":[
    {"metadata":{"name":"down"},"spec":{"taints":[{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}]},
     "status":{"conditions":[{"type":"Ready","status":"False","reason":"KubeletNotReady"}]}},
    {"metadata":{"name":"lost"},"spec":{"taints":[{"key":"node.kubernetes.io/unreachable","effect":"NoExecute"}]},
     "status":{"conditions":[{"type":"Ready","status":"Unknown"}]}},
    {"metadata":{"name":"fine"},"spec":{"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]},
     "status":{"conditions":[{"type":"Ready","status":"True"},{"type":"MemoryPressure","status":"False"}]}}]})");
  std::vector<StackFinding> f = CheckStackHealth(nodes);
  EXPECT_EQ(Of(f, "node-not-ready"), (Pairs{{"down", "critical"}, {"lost", "critical"}}));
  EXPECT_EQ(Of(f, "node-lifecycle-taint"), (Pairs{{"down", "critical"}, {"lost", "critical"}}));
  for (const StackFinding& x : f) {
    EXPECT_NE(x.node, "fine") << x.check;
    if (x.node == "down" && x.check == "node-not-ready") {
      EXPECT_THAT(x.message, HasSubstr("KubeletNotReady"));
    }
  }
}

TEST(NodeChecksTest, GpuConditionsFromHealthMonitors) {
  NodeCondition xid{"GpuXidError", "True", "Xid79", "GPU has fallen off the bus", {}};
  NodeCondition xid_clear{"GpuXidError", "False", "", "", {}};
  NodeCondition hw_down{"AcceleratedHardwareReady", "False", "", "", {}};
  NodeCondition hw_up{"AcceleratedHardwareReady", "True", "", "", {}};
  NodeCondition nvlink{"NVLinkDown", "True", "", "", {}};
  NodeCondition unrelated{"KernelDeadlock", "True", "", "", {}};
  NodeCondition kubelet{"Ready", "False", "", "", {}};
  EXPECT_TRUE(IsGpuProblemCondition(xid));
  EXPECT_FALSE(IsGpuProblemCondition(xid_clear));
  EXPECT_TRUE(IsGpuProblemCondition(hw_down));
  EXPECT_FALSE(IsGpuProblemCondition(hw_up));
  EXPECT_TRUE(IsGpuProblemCondition(nvlink));
  EXPECT_FALSE(IsGpuProblemCondition(unrelated));
  EXPECT_FALSE(IsGpuProblemCondition(kubelet));

  NodeInfo n;
  n.name = "gpu-x";
  n.conditions = {xid, xid_clear, unrelated};
  std::vector<StackFinding> f = CheckStackHealth({n});
  ASSERT_EQ(Of(f, "gpu-condition"), (Pairs{{"gpu-x", "critical"}}));
  for (const StackFinding& x : f) {
    if (x.check == "gpu-condition") {
      EXPECT_THAT(x.message, HasSubstr("GpuXidError=True"));
    }
  }
}

TEST(NodeChecksTest, CordonedGpuNodeIsAWarningCordonedCpuNodeIsNot) {
  NodeInfo gpu, cpu;
  gpu.name = "gpu";
  gpu.gpu_capacity = gpu.gpu_allocatable = 8;
  gpu.unschedulable = true;
  cpu.name = "cpu";
  cpu.unschedulable = true;
  EXPECT_EQ(Of(CheckStackHealth({gpu, cpu}), "gpu-node-cordoned"), (Pairs{{"gpu", "warning"}}));
}

TEST(NodeChecksTest, MigStateFailedOrPendingTooLong) {
  const int64_t now = 1'000'000;
  auto node = [](std::string name, std::string state, std::string since, bool labelled) {
    NodeInfo n;
    n.name = std::move(name);
    n.labels["nvidia.com/mig.config.state"] = state;
    if (labelled) n.labels["nvidia.com/mig.config"] = "all-1g.10gb";
    if (!since.empty()) n.annotations[std::string(kMigStateSinceAnnotation)] = since;
    return n;
  };
  // 1'000'000 s after the epoch is 1970-01-12T13:46:40Z.
  std::vector<NodeInfo> nodes = {
      node("failed-unlabelled", "failed", "", false),
      node("pending-2h", "pending", "1970-01-12T11:46:40Z", true),
      node("rebooting-10m", "rebooting", "1970-01-12T13:36:40Z", false),
      node("pending-unknown", "pending", "", true),
      node("ok", "success", "", true),
  };
  StackHealthOptions o;
  o.now = now;
  o.mig_pending_limit_seconds = 30 * 60;
  std::vector<StackFinding> f = CheckStackHealth(nodes, o);
  EXPECT_EQ(Of(f, "mig-config-mismatch"), (Pairs{{"failed-unlabelled", "critical"},
                                                 {"pending-2h", "critical"},
                                                 {"pending-unknown", "info"},
                                                 {"rebooting-10m", "info"}}));
  // A longer limit makes the two-hour pending state ordinary progress.
  o.mig_pending_limit_seconds = 3 * 3600;
  EXPECT_EQ(Of(CheckStackHealth({nodes[1]}, o), "mig-config-mismatch"),
            (Pairs{{"pending-2h", "info"}}));
  // Without a clock no age is judged.
  EXPECT_EQ(Of(CheckStackHealth({nodes[1]}), "mig-config-mismatch"),
            (Pairs{{"pending-2h", "info"}}));
}

TEST(NodeChecksTest, SeverityNamesRoundTrip) {
  for (Severity s : {Severity::kCritical, Severity::kWarning, Severity::kInfo}) {
    EXPECT_EQ(ParseSeverity(SeverityName(s)), s);
  }
  EXPECT_EQ(ParseSeverity("never"), std::nullopt);
}

}  // namespace
}  // namespace steward::health

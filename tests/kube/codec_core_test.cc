// The core/v1 and meta/v1 codec: Node, Pod, Namespace, Event and ObjectMeta survive ToJson then
// Decode unchanged; times are RFC 3339; a wrongly shaped answer is an error naming the object and
// the field, never a crash or a silently empty value.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "kube/core_v1.h"
#include "kube/json_decoder.h"
#include "kube/meta.h"

namespace steward::kube {
namespace {

using nlohmann::json;

constexpr int64_t kSecond = 1'000'000;
// 2026-12-03T21:06:58Z, computed by hand: 20 790 days after 1970-01-01, plus 21:06:58.
constexpr int64_t kT = (20'790LL * 86'400 + 21 * 3600 + 6 * 60 + 58) * kSecond;

ObjectMeta SampleMeta() {
  ObjectMeta m;
  m.name = "train-0";
  m.namespace_name = "team-a";
  m.uid = UidFor("team-a/train-0");
  m.resource_version = "42";
  m.generation = 3;
  m.creation_timestamp = kT;
  m.deletion_timestamp = kT + 30 * kSecond;
  m.deletion_grace_period_seconds = 30;
  m.labels = {{"app", "train"}, {"kueue.x-k8s.io/queue-name", "team-a"}};
  m.annotations = {{"note", "multi\nline \"quoted\""}};
  m.owner_references = {{"batch/v1", "Job", "train", UidFor("job"), true, true},
                        {"v1", "ConfigMap", "cfg", UidFor("cfg"), false, false}};
  m.finalizers = {"kubernetes.io/pv-protection"};
  return m;
}

template <typename T, typename Decode>
T RoundTrip(const T& value, Decode decode) {
  const json j = ToJson(value);
  JsonDecoder d("round trip");
  T back = decode(d, json::parse(j.dump()));
  EXPECT_TRUE(d.status().ok()) << d.status().message();
  return back;
}

TEST(TimeTest, FormatsAndParsesRfc3339) {
  EXPECT_EQ(FormatTime(kT), "2026-12-03T21:06:58Z");
  EXPECT_EQ(FormatTime(kT + 123456, true), "2026-12-03T21:06:58.123456Z");
  EXPECT_EQ(FormatTime(0), "1970-01-01T00:00:00Z");
  // Time has second precision: the fraction is dropped, not rounded.
  EXPECT_EQ(FormatTime(kT + 999999), "2026-12-03T21:06:58Z");
  // Before the epoch the fraction still counts forward from the second below.
  EXPECT_EQ(FormatTime(-1, true), "1969-12-31T23:59:59.999999Z");

  EXPECT_EQ(ParseTime("2026-12-03T21:06:58Z"), kT);
  EXPECT_EQ(ParseTime("2026-12-03T21:06:58.5Z"), kT + 500000);
  EXPECT_EQ(ParseTime("2026-12-03T21:06:58.123456789Z"), kT + 123456);  // Nanoseconds cut.
  EXPECT_EQ(ParseTime("2026-12-03T23:06:58+02:00"), kT);
  EXPECT_EQ(ParseTime("2026-12-03T20:36:58-00:30"), kT);
  EXPECT_EQ(ParseTime("2024-02-29T00:00:00Z").has_value(), true);  // Leap day.
  for (const char* bad :
       {"", "2026-12-03", "2026-12-03 21:06:58Z", "2026-12-03T21:06:58", "2026-12-03T21:06:58z",
        "2026-13-03T21:06:58Z", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z",
        "2026-12-03T24:00:00Z", "2026-12-03T21:60:00Z", "2026-12-03T21:06:60Z",
        "2026-12-03T-1:06:58Z", "2026-12-03T21:06:58.Z", "2026-12-03T21:06:58+2:00",
        "2026-12-03T21:06:58+25:00", "2026-12-03T21:06:58Zjunk", "+026-12-03T21:06:58Z"})
    EXPECT_FALSE(ParseTime(bad).has_value()) << bad;
}

TEST(ObjectMetaTest, RoundTripsEveryField) {
  const ObjectMeta m = SampleMeta();
  const json j = ToJson(m);
  EXPECT_EQ(j["creationTimestamp"], "2026-12-03T21:06:58Z");
  EXPECT_EQ(j["ownerReferences"][0]["controller"], true);
  EXPECT_FALSE(j["ownerReferences"][1].contains("controller"));  // omitempty
  JsonDecoder d("Pod team-a/train-0");
  const ObjectMeta back = DecodeMeta(d, json{{"metadata", j}});
  ASSERT_TRUE(d.status().ok()) << d.status().message();
  EXPECT_EQ(back, m);
  ASSERT_NE(back.Controller(), nullptr);
  EXPECT_EQ(back.Controller()->name, "train");
  EXPECT_EQ(back.Key(), "team-a/train-0");
}

TEST(ObjectMetaTest, EmptyFieldsAreOmittedAndAbsentFieldsDecodeEmpty) {
  ObjectMeta m;
  m.name = "gpu-1";
  const json j = ToJson(m);
  EXPECT_EQ(j, (json{{"name", "gpu-1"}}));
  JsonDecoder d("Node");
  const ObjectMeta back =
      DecodeMeta(d, json{{"metadata", {{"name", "gpu-1"}, {"labels", nullptr}}}});
  EXPECT_TRUE(d.status().ok());
  EXPECT_EQ(back, m);
  EXPECT_EQ(back.Key(), "gpu-1");
  EXPECT_EQ(back.Controller(), nullptr);
}

TEST(ObjectMetaTest, UidsAreStableVersion4Layout) {
  const std::string a = UidFor("x");
  EXPECT_EQ(a, UidFor("x"));
  EXPECT_NE(a, UidFor("y"));
  ASSERT_EQ(a.size(), 36u);
  EXPECT_EQ(a[14], '4');
  EXPECT_NE(std::string("89ab").find(a[19]), std::string::npos);
}

// Each bad metadata names the field in the decoder's error.
TEST(ObjectMetaTest, WrongTypesNameTheField) {
  struct Case {
    json metadata;
    std::string field;
  };
  const std::vector<Case> cases = {
      {{{"name", 7}}, "metadata.name"},
      {{{"labels", {{"app", 1}}}}, "metadata.labels.app"},
      {{{"labels", json::array()}}, "metadata.labels"},
      {{{"annotations", "x"}}, "metadata.annotations"},
      {{{"creationTimestamp", "yesterday"}}, "metadata.creationTimestamp"},
      {{{"creationTimestamp", 1700000000}}, "metadata.creationTimestamp"},
      {{{"generation", "3"}}, "metadata.generation"},
      {{{"generation", 1.5}}, "metadata.generation"},
      {{{"generation", 18446744073709551615ULL}}, "metadata.generation"},
      {{{"ownerReferences", {{{"controller", "yes"}}}}}, "metadata.ownerReferences[].controller"},
      {{{"ownerReferences", {"Job/train"}}}, "metadata.ownerReferences[0]"},
      {{{"ownerReferences", {{"kind", "Job"}}}}, "metadata.ownerReferences"},
      {{{"finalizers", {1}}}, "metadata.finalizers[]"},
  };
  for (const Case& c : cases) {
    JsonDecoder d("Pod team-a/x");
    DecodeMeta(d, json{{"metadata", c.metadata}});
    ASSERT_FALSE(d.status().ok()) << c.metadata.dump();
    EXPECT_NE(d.status().message().find("Pod team-a/x: " + c.field + ":"), std::string::npos)
        << d.status().message();
  }
  JsonDecoder d("Pod");
  DecodeMeta(d, json{{"metadata", "x"}});
  EXPECT_NE(d.status().message().find("metadata: expected an object, got string"),
            std::string::npos)
      << d.status().message();
}

TEST(ObjectMetaTest, TheFirstErrorIsKept) {
  JsonDecoder d("Node n");
  DecodeMeta(d, json{{"metadata", {{"name", 1}, {"uid", 2}}}});
  EXPECT_NE(d.status().message().find("metadata.name"), std::string::npos);
  EXPECT_EQ(d.status().message().find("metadata.uid"), std::string::npos);
}

Node SampleNode() {
  Node n;
  n.metadata.name = "gpu-7";
  n.metadata.labels = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}};
  n.metadata.creation_timestamp = kT;
  n.unschedulable = true;
  n.taints = {{kUnschedulableTaint, "", "NoSchedule", kT},
              {"nvidia.com/gpu", "present", "NoExecute", std::nullopt}};
  n.provider_id = "aws:///us-east-1a/i-0abc";
  n.capacity = {{"nvidia.com/gpu", "8"}, {"cpu", "192"}, {"memory", "2Ti"}};
  n.allocatable = {{"nvidia.com/gpu", "7"}, {"nvidia.com/mig-1g.10gb", "2"}, {"cpu", "190"}};
  n.conditions = {{"Ready", "True", "KubeletReady", "kubelet is posting ready status", kT, kT},
                  {"MemoryPressure", "False", "", "", kT, std::nullopt}};
  n.addresses = {{"InternalIP", "10.0.0.7"}, {"Hostname", "gpu-7"}};
  n.node_info = {"v1.32.4", "containerd://1.7.27", "6.8.0", "Ubuntu 24.04", "arm64", "linux",
                 "m-7"};
  return n;
}

TEST(NodeCodecTest, RoundTripsAndAnswersGpuQuestions) {
  const Node n = SampleNode();
  const Node back = RoundTrip(n, DecodeNode);
  EXPECT_EQ(back, n);
  EXPECT_TRUE(back.Ready());
  EXPECT_EQ(back.GpuCapacity(), 8);
  EXPECT_EQ(back.GpuAllocatable(), 9);  // 7 whole GPUs + 2 MIG instances.
  ASSERT_NE(back.FindCondition("MemoryPressure"), nullptr);
  EXPECT_EQ(back.FindCondition("DiskPressure"), nullptr);
  const json j = ToJson(n);
  EXPECT_EQ(j["kind"], "Node");
  EXPECT_EQ(j["spec"]["unschedulable"], true);
  EXPECT_EQ(j["spec"]["taints"][0]["timeAdded"], "2026-12-03T21:06:58Z");
  EXPECT_FALSE(j["spec"]["taints"][0].contains("value"));
}

TEST(NodeCodecTest, ANodeWithoutReadyIsNotReady) {
  Node n = SampleNode();
  n.conditions.clear();
  EXPECT_FALSE(n.Ready());
  n.conditions = {{"Ready", "Unknown", "", "", std::nullopt, std::nullopt}};
  EXPECT_FALSE(n.Ready());
}

TEST(NodeCodecTest, BadShapesNameTheField) {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"spec", {{"unschedulable", "true"}}}}, "spec.unschedulable"},
      {{{"spec", {{"taints", {{{"key", "a"}, {"timeAdded", "now"}}}}}}}, "spec.taints[].timeAdded"},
      {{{"spec", {{"taints", {"a=b:NoSchedule"}}}}}, "spec.taints[0]"},
      {{{"spec", "x"}}, "spec"},
      {{{"status", {{"capacity", {{"nvidia.com/gpu", 8}}}}}}, "status.capacity.nvidia.com/gpu"},
      {{{"status", {{"conditions", {{{"type", "Ready"}, {"status", true}}}}}}},
       "status.conditions[].status"},
      {{{"status", {{"conditions", {{"type", "Ready"}}}}}}, "status.conditions"},
      {{{"status", {{"addresses", {{{"type", "InternalIP"}, {"address", 10}}}}}}},
       "status.addresses[].address"},
      {{{"status", {{"nodeInfo", {{"kubeletVersion", 132}}}}}}, "status.nodeInfo.kubeletVersion"},
  };
  for (const auto& [j, field] : cases) {
    JsonDecoder d("Node gpu-7");
    DecodeNode(d, j);
    ASSERT_FALSE(d.status().ok()) << j.dump();
    EXPECT_NE(d.status().message().find("Node gpu-7: " + field + ":"), std::string::npos)
        << d.status().message();
  }
  for (const json& top : {json::array(), json("Node"), json(nullptr), json(3)}) {
    JsonDecoder d("nodes item 0");
    DecodeNode(d, top);
    EXPECT_FALSE(d.status().ok()) << top.dump();
  }
}

Pod SamplePod() {
  Pod p;
  p.metadata = SampleMeta();
  p.node_name = "gpu-7";
  p.scheduler_name = "default-scheduler";
  p.priority_class_name = "high";
  p.service_account_name = "trainer";
  p.priority = 1000;
  p.termination_grace_period_seconds = 30;
  p.node_selector = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}};
  p.containers = {{"main", "nvcr.io/nvidia/pytorch:24.05", {{{"nvidia.com/gpu", "4"}}, {}}},
                  {"sidecar", "busybox", {{{"cpu", "100m"}}, {{"nvidia.com/mig-1g.10gb", "1"}}}}};
  p.tolerations = {{"nvidia.com/gpu", "Exists", "", "NoSchedule", std::nullopt},
                   {"node.kubernetes.io/not-ready", "Equal", "", "NoExecute", 300}};
  p.volumes = {{"scratch", true, "Memory"}, {"data", false, ""}};
  p.restart_policy = "Never";
  p.phase = "Running";
  p.conditions = {{"Ready", "True", "", "", std::nullopt, kT}};
  p.start_time = kT;
  p.container_statuses = {{"main", true, 2, "running", "", kT},
                          {"sidecar", false, 0, "waiting", "ContainerCreating", std::nullopt}};
  p.host_ip = "10.0.0.7";
  p.pod_ip = "10.244.1.5";
  p.qos_class = "Burstable";
  return p;
}

TEST(PodCodecTest, RoundTripsAndCountsGpus) {
  const Pod p = SamplePod();
  const Pod back = RoundTrip(p, DecodePod);
  EXPECT_EQ(back, p);
  EXPECT_EQ(back.GpuRequest(), 5);  // 4 whole + 1 MIG instance from the sidecar's limits.
  EXPECT_EQ(back.ResourceRequest("cpu"), 100);
  EXPECT_TRUE(back.Ready());
  EXPECT_FALSE(back.Terminal());
  const json j = ToJson(p);
  EXPECT_EQ(j["spec"]["volumes"][0]["emptyDir"]["medium"], "Memory");
  EXPECT_FALSE(j["spec"]["volumes"][1].contains("emptyDir"));
  EXPECT_EQ(j["status"]["containerStatuses"][0]["state"]["running"]["startedAt"],
            "2026-12-03T21:06:58Z");
}

TEST(PodCodecTest, TolerationsMatchTaintsAsTheSchedulerDoes) {
  const Taint gpu{"nvidia.com/gpu", "present", "NoSchedule", std::nullopt};
  EXPECT_TRUE((Toleration{"nvidia.com/gpu", "Exists", "", "", std::nullopt}).Tolerates(gpu));
  EXPECT_TRUE((Toleration{"nvidia.com/gpu", "Equal", "present", "NoSchedule", std::nullopt})
                  .Tolerates(gpu));
  EXPECT_FALSE((Toleration{"nvidia.com/gpu", "Equal", "absent", "", std::nullopt}).Tolerates(gpu));
  EXPECT_FALSE(
      (Toleration{"nvidia.com/gpu", "Exists", "", "NoExecute", std::nullopt}).Tolerates(gpu));
  EXPECT_TRUE((Toleration{"", "Exists", "", "", std::nullopt}).Tolerates(gpu));
  EXPECT_FALSE((Toleration{"", "Equal", "", "", std::nullopt}).Tolerates(gpu));
}

TEST(PodCodecTest, AnOmittedOperatorIsEqual) {
  JsonDecoder d("Pod");
  const Pod p = DecodePod(d, json{{"spec", {{"tolerations", {{{"key", "k"}, {"value", "v"}}}}}}});
  ASSERT_TRUE(d.status().ok());
  ASSERT_EQ(p.tolerations.size(), 1u);
  EXPECT_EQ(p.tolerations[0].op, "Equal");
}

TEST(PodCodecTest, BadShapesNameTheField) {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"spec", {{"containers", {7}}}}}, "spec.containers[0]"},
      {{{"spec", {{"containers", {{"name", "main"}}}}}}, "spec.containers"},
      {{{"spec",
         {{"containers", {{{"name", "main"}, {"resources", {{"limits", {{"cpu", 2}}}}}}}}}}},
       "spec.containers[].resources.limits.cpu"},
      {{{"spec", {{"priority", "high"}}}}, "spec.priority"},
      {{{"spec", {{"nodeSelector", {{"zone", false}}}}}}, "spec.nodeSelector.zone"},
      {{{"spec", {{"tolerations", {{{"tolerationSeconds", "300"}}}}}}},
       "spec.tolerations[].tolerationSeconds"},
      {{{"spec", {{"volumes", {{{"name", "s"}, {"emptyDir", "yes"}}}}}}},
       "spec.volumes[].emptyDir"},
      {{{"status", {{"startTime", "soon"}}}}, "status.startTime"},
      {{{"status", {{"containerStatuses", {{{"restartCount", "2"}}}}}}},
       "status.containerStatuses[].restartCount"},
      {{{"status",
         {{"containerStatuses", {{{"state", {{"running", {{"startedAt", "never"}}}}}}}}}}},
       "status.containerStatuses[].state.running.startedAt"},
      {{{"status", {{"containerStatuses", {{{"state", {{"waiting", {{"reason", 1}}}}}}}}}}},
       "status.containerStatuses[].state.waiting.reason"},
  };
  for (const auto& [j, field] : cases) {
    JsonDecoder d("Pod team-a/x");
    DecodePod(d, j);
    ASSERT_FALSE(d.status().ok()) << j.dump();
    EXPECT_NE(d.status().message().find("Pod team-a/x: " + field + ":"), std::string::npos)
        << d.status().message();
  }
}

TEST(NamespaceCodecTest, RoundTrips) {
  Namespace ns;
  ns.metadata.name = "team-a";
  ns.metadata.labels = {{"kubernetes.io/metadata.name", "team-a"}};
  ns.phase = "Terminating";
  EXPECT_EQ(RoundTrip(ns, DecodeNamespace), ns);
  EXPECT_EQ(ToJson(ns)["status"]["phase"], "Terminating");
  JsonDecoder d("Namespace");
  DecodeNamespace(d, json{{"status", {{"phase", 1}}}});
  EXPECT_NE(d.status().message().find("status.phase"), std::string::npos);
}

TEST(EventCodecTest, RoundTripsWithMicroTimeEventTime) {
  Event e;
  e.metadata.name = "gpu-7.17d";
  e.metadata.namespace_name = "default";
  e.involved_object = {"v1", "Node", "", "gpu-7", UidFor("gpu-7"), "42", ""};
  e.reason = "XidError";
  e.message = "Xid 79: GPU has fallen off the bus";
  e.type = "Warning";
  e.count = 3;
  e.first_timestamp = kT;
  e.last_timestamp = kT + 60 * kSecond;
  e.event_time = kT + 123456;
  e.source_component = "steward";
  e.source_host = "gpu-7";
  e.reporting_component = "steward";
  e.reporting_instance = "steward-0";
  e.action = "Cordon";
  EXPECT_EQ(RoundTrip(e, DecodeEvent), e);
  const json j = ToJson(e);
  EXPECT_EQ(j["eventTime"], "2026-12-03T21:06:58.123456Z");
  EXPECT_EQ(j["lastTimestamp"], "2026-12-03T21:07:58Z");
  // Unset times are null, as the API server answers them.
  Event bare;
  const json b = ToJson(bare);
  EXPECT_TRUE(b["firstTimestamp"].is_null());
  EXPECT_TRUE(b["eventTime"].is_null());
  EXPECT_EQ(RoundTrip(bare, DecodeEvent), bare);
}

TEST(EventCodecTest, CountDefaultsToOneAndBadFieldsAreNamed) {
  JsonDecoder ok("Event");
  EXPECT_EQ(DecodeEvent(ok, json{{"reason", "x"}}).count, 1);
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"count", "3"}}, "count"},
      {{{"involvedObject", {{"name", 3}}}}, "involvedObject.name"},
      {{{"eventTime", "2026-12-03"}}, "eventTime"},
      {{{"source", {{"host", true}}}}, "source.host"},
  };
  for (const auto& [j, field] : cases) {
    JsonDecoder d("Event default/e");
    DecodeEvent(d, j);
    EXPECT_NE(d.status().message().find("Event default/e: " + field + ":"), std::string::npos)
        << d.status().message();
  }
}

TEST(ConfigMapCodecTest, RoundTrips) {
  ConfigMap c;
  c.metadata.name = "steward";
  c.metadata.namespace_name = "steward";
  c.data = {{"policy.yaml", "teams:\n  - name: a\n"}, {"empty", ""}};
  EXPECT_EQ(RoundTrip(c, DecodeConfigMap), c);
}

}  // namespace
}  // namespace steward::kube

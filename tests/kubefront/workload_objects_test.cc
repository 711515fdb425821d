// The twin's Kueue Workloads on the API front carry the CPU and memory their generator gives,
// because the twin's admission counts them: a ClusterQueue covering GPUs only blocks such a
// workload, and the Workload's QuotaReserved condition says why.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../server/server_test_util.h"
#include "front_test_util.h"
#include "kubefront/kube_front.h"

namespace steward::kubefront {
namespace {

using nlohmann::json;

using testing::GetJson;

TEST(KubeFrontWorkloadTest, CpuAndMemoryRequestsAreShownAndCountAgainstQuota) {
  twin::TwinOptions o;
  o.policy_files = {twin::testing::WriteTempFile("front-workloads-policy.yaml",
                                                 twin::testing::TwoTeamPolicyYaml(8, 8, "{}"))};
  auto live = server::testing::MakeLive(
      twin::testing::SmallScenarioYaml(
          2, "team-a:0,team-b:0",
          "generators:\n" +
              twin::testing::Once("sized", "team-a", "batch", 1, 0,
                                  "gpus_per_pod: 4, duration_hours: 2, cpu_milli: 12000, "
                                  "memory_mib: 65536") +
              twin::testing::Once("plain", "team-a", "batch", 1, 0,
                                  "gpus_per_pod: 4, duration_hours: 2")),
      {}, false, o);
  KubeFront front(live.get(), {});
  ASSERT_TRUE(front.Start().ok());
  live->Step(Minutes(5));

  const json list = GetJson(front, "/apis/kueue.x-k8s.io/v1beta1/workloads");
  std::map<std::string, json> by_generator;
  for (const json& w : list["items"]) {
    const std::string name = w["metadata"]["name"];
    by_generator[name.find("sized") != std::string::npos ? "sized" : "plain"] = w;
  }
  ASSERT_EQ(by_generator.size(), 2u);

  const json& sized = by_generator["sized"];
  const json requests =
      sized["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"];
  EXPECT_EQ(requests.value("cpu", ""), "12000m") << requests.dump();
  EXPECT_EQ(requests.value("memory", ""), "65536Mi") << requests.dump();
  EXPECT_EQ(requests.value("nvidia.com/gpu", ""), "4") << requests.dump();
  // The ClusterQueue covers nvidia.com/gpu only: Kueue's BlockUndeclared.
  bool reserved = true;
  std::string message;
  for (const json& c : sized["status"].value("conditions", json::array()))
    if (c["type"] == "QuotaReserved") {
      reserved = c["status"] == "True";
      message = c.value("message", "");
    }
  EXPECT_FALSE(reserved) << sized.dump();
  EXPECT_NE(message.find("resource cpu unavailable in ClusterQueue"), std::string::npos) << message;

  const json& plain = by_generator["plain"];
  const json plain_requests =
      plain["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"];
  EXPECT_FALSE(plain_requests.contains("cpu")) << plain_requests.dump();
  EXPECT_FALSE(plain_requests.contains("memory")) << plain_requests.dump();
  EXPECT_TRUE(plain["status"].contains("admission")) << plain.dump();
}

TEST(KubeFrontWorkloadTest, ExtendedResourcesShowOnNodesPodsAndWorkloads) {
  auto live = server::testing::MakeLive(twin::testing::SmallScenarioYaml(
      1, "a:8",
      "generators:\n" + twin::testing::Once("fpga", "a", "batch", 1, 0,
                                            "gpus_per_pod: 2, duration_hours: 2, "
                                            "extended_resources: {example.com/fpga: 1}"),
      1, "extended_resources: {example.com/fpga: 2},"));
  KubeFront front(live.get(), {});
  ASSERT_TRUE(front.Start().ok());
  live->Step(Minutes(5));

  const json nodes = GetJson(front, "/api/v1/nodes");
  int gpu_nodes = 0;
  for (const json& n : nodes["items"]) {
    if (!n["status"]["capacity"].contains("nvidia.com/gpu")) continue;
    ++gpu_nodes;
    EXPECT_EQ(n["status"]["capacity"].value("example.com/fpga", ""), "2") << n.dump();
    EXPECT_EQ(n["status"]["allocatable"].value("example.com/fpga", ""), "2") << n.dump();
  }
  EXPECT_EQ(gpu_nodes, 1);
  const json pods = GetJson(front, "/api/v1/namespaces/a/pods");
  int fpga_pods = 0;
  for (const json& p : pods["items"]) {
    const json& r = p["spec"]["containers"][0]["resources"];
    if (!r["requests"].contains("example.com/fpga")) continue;
    ++fpga_pods;
    EXPECT_EQ(r["requests"]["example.com/fpga"], "1") << p.dump();
    EXPECT_EQ(r["limits"]["example.com/fpga"], "1") << p.dump();  // Requests equal limits.
  }
  EXPECT_EQ(fpga_pods, 1) << pods.dump();
  const json workloads = GetJson(front, "/apis/kueue.x-k8s.io/v1beta1/workloads");
  ASSERT_EQ(workloads["items"].size(), 1u);
  EXPECT_EQ(workloads["items"][0]["spec"]["podSets"][0]["template"]["spec"]["containers"][0]
                     ["resources"]["requests"]
                         .value("example.com/fpga", ""),
            "1");
}

}  // namespace
}  // namespace steward::kubefront

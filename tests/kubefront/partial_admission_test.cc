// A partially admitted workload on the API front (Kueue's minCount): its Workload keeps the
// count it asked for with minCount in spec.podSets, status.admission says how many pods were
// admitted, and only those pods exist.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../server/server_test_util.h"
#include "front_test_util.h"
#include "kubefront/kube_front.h"

namespace steward::kubefront {
namespace {

using nlohmann::json;

using testing::GetJson;

// team-a's ClusterQueue: 6 GPUs, 2 held by `used`. `elastic` asks 4 x 2 GPUs with minCount 2
// and is admitted with 2 pods (4 GPUs; the hand computation is in
// tests/twin/partial_admission_test.cc).
TEST(KubeFrontPartialAdmissionTest, WorkloadShowsMinCountAndTheAdmittedCount) {
  twin::TwinOptions o;
  o.policy_files = {twin::testing::WriteTempFile("front-partial-policy.yaml",
                                                 twin::testing::TwoTeamPolicyYaml(6, 0, "{}"))};
  auto live = server::testing::MakeLive(
      twin::testing::SmallScenarioYaml(
          2, "team-a:0,team-b:0",
          "generators:\n" +
              twin::testing::Once("used", "team-a", "training", 1, 0,
                                  "gpus_per_pod: 2, duration_hours: 10") +
              twin::testing::Once("elastic", "team-a", "batch", 1, 0.1,
                                  "duration_hours: 10, pod_sets: [{name: worker, count: 4, "
                                  "gpus_per_pod: 2, min_count: 2}]")),
      {}, false, o);
  KubeFront front(live.get(), {});
  ASSERT_TRUE(front.Start().ok());
  live->Step(Minutes(15));

  const json workloads = GetJson(front, "/apis/kueue.x-k8s.io/v1beta1/workloads");
  json elastic;
  for (const json& w : workloads["items"])
    if (w["metadata"]["name"].get<std::string>().find("elastic") != std::string::npos) elastic = w;
  ASSERT_FALSE(elastic.is_null());
  const json& spec_set = elastic["spec"]["podSets"][0];
  EXPECT_EQ(spec_set.value("count", -1), 4) << spec_set.dump();
  EXPECT_EQ(spec_set.value("minCount", -1), 2) << spec_set.dump();
  ASSERT_TRUE(elastic["status"].contains("admission")) << elastic.dump();
  const json& assigned = elastic["status"]["admission"]["podSetAssignments"][0];
  EXPECT_EQ(assigned.value("count", -1), 2) << assigned.dump();
  EXPECT_EQ(assigned["resourceUsage"].value("nvidia.com/gpu", ""), "4") << assigned.dump();

  // A pod set without minCount does not show one.
  for (const json& w : workloads["items"]) {
    if (w["metadata"]["name"].get<std::string>().find("used") != std::string::npos) {
      EXPECT_FALSE(w["spec"]["podSets"][0].contains("minCount")) << w.dump();
    }
  }

  int pods = 0;
  const json pod_list = GetJson(front, "/api/v1/pods");
  for (const json& p : pod_list["items"])
    if (p["metadata"]["labels"].value("steward.io/workload", "") == "elastic-000000") ++pods;
  EXPECT_EQ(pods, 2);
}

}  // namespace
}  // namespace steward::kubefront

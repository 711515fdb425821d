// The twin's Kubernetes API front and pods that come back under the same name: a notebook's
// StatefulSet pod (<notebook>-0) evicted, re-placed by the twin and evicted again.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../server/server_test_util.h"
#include "kubefront/kube_front.h"

namespace steward::kubefront {
namespace {

using nlohmann::json;

http::Reply Call(KubeFront& front, const std::string& method, const std::string& path,
                 const std::string& body = "") {
  http::Request r;
  r.method = method;
  r.path = path;
  r.body = body;
  return front.Handle(r);
}

TEST(KubeFrontEvictionTest, PodReplacedUnderTheSameNameCanBeEvictedAgain) {
  // One node, one 1-GPU notebook that lives for 10 h: evicted, it is pending again and the twin
  // re-places it at once, as the StatefulSet's pod of the same name.
  auto live = server::testing::MakeLive(twin::testing::SmallScenarioYaml(
      1, "a:8",
      "generators:\n  - {name: nb, team: a, kind: notebook, arrival: {process: once, count: 1},"
      " gpus_per_pod: 1, duration_hours: 10}\n"));
  KubeFront front(live.get(), {});
  ASSERT_TRUE(front.Start().ok());
  live->Step(Minutes(5));

  std::string ns, name;
  const json pods = json::parse(Call(front, "GET", "/api/v1/pods").body);
  for (const json& p : pods["items"])
    if (p["metadata"]["name"].get<std::string>().starts_with("nb-")) {
      ns = p["metadata"]["namespace"];
      name = p["metadata"]["name"];
    }
  ASSERT_FALSE(name.empty()) << pods.dump();
  const std::string pod_path = "/api/v1/namespaces/" + ns + "/pods/" + name;
  const std::string eviction = json{{"apiVersion", "policy/v1"},
                                    {"kind", "Eviction"},
                                    {"metadata", {{"name", name}, {"namespace", ns}}},
                                    {"deleteOptions", {{"gracePeriodSeconds", 30}}}}
                                   .dump();
  std::string uid = json::parse(Call(front, "GET", pod_path).body)["metadata"]["uid"];
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("eviction " + std::to_string(round + 1));
    const http::Reply evicted = Call(front, "POST", pod_path + "/eviction", eviction);
    EXPECT_EQ(evicted.status, 201) << evicted.body;
    live->Step(Minutes(5));  // The grace ends; the notebook is placed again.
    const http::Reply again = Call(front, "GET", pod_path);
    ASSERT_EQ(again.status, 200) << again.body;
    const json pod = json::parse(again.body);
    EXPECT_FALSE(pod["metadata"].contains("deletionTimestamp")) << pod.dump();
    EXPECT_NE(pod["metadata"]["uid"], uid) << "a new pod, not the evicted one";
    uid = pod["metadata"]["uid"];
  }
}

}  // namespace
}  // namespace steward::kubefront

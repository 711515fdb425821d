// GET /api/rollouts: the rollouts the engine runs in the twin (a scenario's gated
// faults.driver_rollouts), each in the shape of `steward rollout status --json`, as they go.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "rollout/scenario_rollouts.h"
#include "rollout/status.h"
#include "server/api.h"
#include "server_test_util.h"

namespace steward::server {
namespace {

using nlohmann::json;

HttpReply Get(LiveTwin& live, std::multimap<std::string, std::string> params = {}) {
  HttpRequest r;
  r.method = "GET";
  r.path = "/api/rollouts";
  r.params = std::move(params);
  return HandleRequest(live, r);
}

// Four nodes; from hour 1 a driver whose device plugin advertises no GPUs is rolled out to
// p-0001..p-0003 with one canary node: the canary fails validation and is rolled back.
std::string BlindRolloutYaml() {
  return twin::testing::SmallScenarioYaml(
      4, "a:32",
      "faults:\n  enabled: true\n  xids: []\n  other_interruptions_per_gpu_hour: 0\n"
      "  rack_events: {per_rack_day: 0}\n"
      "  driver_rollouts:\n"
      "    - {pool: p, at_hours: 1, first_node: 1, nodes: 3, driver_version: \"blind\","
      " advertises_gpus: false, gated: true}\n"
      "remediation: {enabled: false}\n");
}

TEST(RolloutsApi, ShowsTheRolloutFromItsStartInTheStatusShape) {
  auto t = twin::Twin::Create(twin::testing::MustParse(BlindRolloutYaml()));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  Result<std::vector<rollout::TwinRollout*>> attached = rollout::AttachScenarioRollouts(**t);
  ASSERT_TRUE(attached.ok()) << attached.status().ToString();
  const rollout::TwinRollout* r = attached->front();
  LiveTwinOptions o;
  o.rollouts = rollout::StatusFeed({r});
  LiveTwin live(std::move(t).value(), o);

  live.Step(Minutes(30));  // Before at_hours: no rollout yet.
  HttpReply before = Get(live);
  ASSERT_EQ(before.status, 200) << before.body;
  EXPECT_EQ(json::parse(before.body)["rollouts"], json::array());

  live.Step(Minutes(32));  // Started at 1 h: the canary is upgrading.
  json mid = json::parse(Get(live).body);
  ASSERT_EQ(mid["rollouts"].size(), 1u) << mid.dump(2);
  EXPECT_EQ(mid["rollouts"][0]["state"], "running");
  EXPECT_EQ(mid["rollouts"][0]["batches"][0]["nodes"], json::array({"p-0001"}));

  live.Step(Hours(6));
  json end = json::parse(Get(live).body);
  ASSERT_EQ(end["rollouts"].size(), 1u);
  const json& s = end["rollouts"][0];
  // Exactly what `rollout status --json` would print for this run.
  EXPECT_EQ(s, rollout::StatusJson(r->engine()->run(), r->engine()->decisions()));
  EXPECT_EQ(s["state"], "rolled_back");
  EXPECT_EQ(s["batches"][0]["state"], "rolled-back");
  EXPECT_EQ(s["batches"][1]["state"], "pending");
  EXPECT_EQ(s["nodes_upgraded"], 1);
  EXPECT_EQ(s["nodes_rolled_back"], 1);
  for (const char* key :
       {"batches", "state", "nodes_upgraded", "nodes_rolled_back", "max_unavailable_seen", "log"})
    EXPECT_TRUE(s.contains(key)) << key;
  EXPECT_GT(end["sim_hours"].get<double>(), 6);
}

TEST(RolloutsApi, EmptyWithoutRolloutsAndGetOnly) {
  auto live = testing::MakeLive(testing::TwoNodeYaml());
  live->Step(Hours(1));
  const HttpReply r = Get(*live);
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body)["rollouts"], json::array());
  HttpRequest post;
  post.method = "POST";
  post.path = "/api/rollouts";
  EXPECT_EQ(HandleRequest(*live, post).status, 405);
  EXPECT_EQ(Get(*live, {{"x", "1"}}).status, 400);
}

}  // namespace
}  // namespace steward::server

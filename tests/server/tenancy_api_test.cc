// GET /api/tenancy: the scenario's tenant isolation findings, static for the run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/api.h"
#include "server_test_util.h"

namespace steward::server {
namespace {

using nlohmann::json;
using testing::MakeLive;

HttpReply Call(LiveTwin& live, const std::string& method, const std::string& body = {}) {
  HttpRequest r;
  r.method = method;
  r.path = "/api/tenancy";
  r.body = body;
  return HandleRequest(live, r);
}

TEST(TenancyApi, ServesTheScenariosFindingsUnchangedAsTheTwinRuns) {
  // Teams a and b are tenants through the fifo-quota LocalQueues (so their GPUs are bounded);
  // neither namespace has a default-deny NetworkPolicy: one warning each.
  const std::string ns = twin::testing::WriteTempFile(
      "tenancy-ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n");
  auto live = MakeLive(testing::TwoNodeYaml() + "tenancy:\n  files: [" + ns + "]\n");
  const HttpReply first = Call(*live, "GET");
  ASSERT_EQ(first.status, 200) << first.body;
  const json j = json::parse(first.body);
  EXPECT_TRUE(j["enabled"]);
  ASSERT_EQ(j["findings"].size(), 2u) << j.dump(2);
  for (const json& f : j["findings"]) EXPECT_EQ(f["id"], "network.no-default-deny");
  EXPECT_EQ(j["findings"][0]["tenant"], "a");
  EXPECT_EQ(j["findings"][1]["tenant"], "b");
  EXPECT_EQ(j["summary"]["tenants"]["a"], json::array({"a"}));
  live->Step(Hours(2));
  EXPECT_EQ(Call(*live, "GET").body, first.body);
  EXPECT_EQ(Call(*live, "POST", "{}").status, 405);
}

TEST(TenancyApi, WithoutTheSectionItIsDisabled) {
  auto live = MakeLive(testing::TwoNodeYaml());
  const HttpReply r = Call(*live, "GET");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body), json::parse(R"({"enabled": false, "findings": []})"));
}

}  // namespace
}  // namespace steward::server

#include "cost/allocation_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "ledger_fixture.h"

namespace steward::cost {
namespace {

using namespace steward::cost::testing;
using nlohmann::json;

TEST(AllocationHandlerTest, AnswersEnvelopeOrBadRequest) {
  TempLedgerPath tmp;
  auto ledger = OpenFixtureLedger(tmp.path());
  ASSERT_NE(ledger, nullptr);
  HttpReply ok = HandleAllocationRequest(*ledger, {{"window", "1d"}, {"aggregate", "team"}}, 0);
  EXPECT_EQ(ok.status, 200);
  const json j = json::parse(ok.body);
  EXPECT_DOUBLE_EQ(j["data"][0]["ml"]["gpuCost"].get<double>(), 25);
  HttpReply bad = HandleAllocationRequest(*ledger, {{"window", "someday"}}, 0);
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(json::parse(bad.body)["code"], 400);
  HttpReply csv = HandleAllocationRequest(*ledger, {{"window", "1d"}, {"format", "csv"}}, 0);
  EXPECT_EQ(csv.content_type, "text/csv");
  EXPECT_EQ(csv.body.substr(0, 13), "window_start,");
}

TEST(AllocationServerTest, ServesAllocationOnLoopbackAndStops) {
  TempLedgerPath tmp;
  auto ledger = OpenFixtureLedger(tmp.path());
  ASSERT_NE(ledger, nullptr);
  AllocationServer server(ledger.get(), [] { return int64_t{0}; });
  auto port = server.Start("127.0.0.1", 0);  // The kernel picks a free port.
  ASSERT_TRUE(port.ok()) << port.status().ToString();
  httplib::Client client("127.0.0.1", *port);
  for (const char* path : {"/allocation", "/allocation/compute"}) {
    auto res = client.Get(
        (std::string(path) + "?window=1d&aggregate=namespace&includeIdle=true&step=1h").c_str());
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 200);
    const json j = json::parse(res->body);
    EXPECT_EQ(j["status"], "success");
    ASSERT_EQ(j["data"].size(), 24u);  // 1d in 1h steps; hours without data are empty maps.
    EXPECT_DOUBLE_EQ(j["data"][0]["research"]["gpuHours"].get<double>(), 6);
    EXPECT_DOUBLE_EQ(j["data"][1]["research"]["gpuHours"].get<double>(), 8);
    EXPECT_TRUE(j["data"][5].empty());
  }
  auto bad = client.Get("/allocation?window=1d&aggregate=pods");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  auto missing = client.Get("/nothing");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  server.Stop();
  httplib::Client after("127.0.0.1", *port);
  after.set_connection_timeout(1, 0);
  EXPECT_FALSE(after.Get("/allocation?window=1d"));  // Stopped: nothing listens.
}

}  // namespace
}  // namespace steward::cost

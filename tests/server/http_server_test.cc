// The real HTTP server on a loopback port, with the simulation thread running.
#include "server/http_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "server_test_util.h"

namespace steward::server {
namespace {

using nlohmann::json;

TEST(HttpServerTest, ServesWhileTheTwinRuns) {
  LiveTwinOptions opt;
  opt.speed = 3600;  // One simulated hour per real second.
  opt.step = std::chrono::milliseconds(20);
  auto live = testing::MakeLive(testing::TwoNodeYaml(), opt);
  HttpServer server(live.get());
  Result<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.status().message();
  live->Start();
  httplib::Client client("127.0.0.1", *port);
  client.set_read_timeout(10, 0);

  auto overview = client.Get("/api/overview");
  ASSERT_TRUE(overview);
  EXPECT_EQ(overview->status, 200);
  EXPECT_EQ(overview->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(json::parse(overview->body)["gpus_total"], 16);

  // A control through the running thread: answered after the change is applied.
  auto post = client.Post("/api/workloads", R"({"team":"a","gpus_per_pod":2,"name":"via-http"})",
                          "application/json");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 201) << post->body;
  auto w = client.Get("/api/workloads/via-http");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->status, 200) << w->body;

  auto bad = client.Get("/api/nodes?limit=-3");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_TRUE(json::parse(bad->body).contains("error"));
  auto put = client.Put("/api/overview", "", "application/json");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 405);
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("steward_gpus{state=\"in_use\"}"), std::string::npos);

  // The simulation advances on its own (no assertion on how fast: only that it moves).
  const double t0 = live->snapshot()->overview.sim_seconds;
  for (int i = 0; i < 200 && live->snapshot()->overview.sim_seconds <= t0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GT(live->snapshot()->overview.sim_seconds, t0);

  server.Stop();
  live->Stop();
  EXPECT_FALSE(client.Get("/api/overview"));  // Nothing listens any more.
}

TEST(HttpServerTest, ControlsAfterStopRunDirectly) {
  auto live = testing::MakeLive(testing::TwoNodeYaml());
  live->Start();
  live->Stop();
  // Stopped: the change runs directly on the caller (no thread), like before Start().
  EXPECT_TRUE(live->Control([](twin::Twin& t) { return t.SetNodeCordoned(0, true); }).ok());
  EXPECT_EQ(live->snapshot()->overview.nodes_cordoned, 1);
}

// Once the twin passes its horizon nothing is rebuilt on the tick: the published snapshot stays
// the same until a control changes something.
TEST(HttpServerTest, PastTheHorizonNoSnapshotIsRebuiltUntilAControl) {
  LiveTwinOptions opt;
  opt.speed = 1e9;  // The whole horizon on the first tick.
  opt.step = std::chrono::milliseconds(5);
  auto live = testing::MakeLive(testing::TwoNodeYaml(), opt);
  const double horizon = 24 * 3600;  // SmallScenarioYaml's one day.
  live->Start();
  for (int i = 0; i < 1000 && live->snapshot()->overview.sim_seconds < horizon; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(live->snapshot()->overview.sim_seconds, horizon);
  const int64_t version = live->snapshot()->version;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // Twenty ticks.
  EXPECT_EQ(live->snapshot()->version, version);
  ASSERT_TRUE(live->Control([](twin::Twin& t) { return t.SetNodeCordoned(0, true); }).ok());
  EXPECT_GT(live->snapshot()->version, version);
  EXPECT_EQ(live->snapshot()->overview.nodes_cordoned, 1);
  live->Stop();
}

TEST(HttpServerTest, BusyPortIsAnError) {
  auto live = testing::MakeLive(testing::TwoNodeYaml());
  HttpServer a(live.get()), b(live.get());
  Result<int> port = a.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  EXPECT_FALSE(b.Start("127.0.0.1", *port).ok());
}

}  // namespace
}  // namespace steward::server

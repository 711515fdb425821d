#include "server/api.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server_test_util.h"

namespace steward::server {
namespace {

using nlohmann::json;
using testing::MakeLive;
using testing::TwoNodeYaml;

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    live_ = MakeLive(TwoNodeYaml());
    live_->Step(Hours(1));
  }
  HttpReply Call(const std::string& method, const std::string& path,
                 std::multimap<std::string, std::string> params = {}, std::string body = {}) {
    HttpRequest r;
    r.method = method;
    r.path = path;
    r.params = std::move(params);
    r.body = std::move(body);
    return HandleRequest(*live_, r);
  }
  json Get(const std::string& path, std::multimap<std::string, std::string> params = {}) {
    HttpReply r = Call("GET", path, std::move(params));
    EXPECT_EQ(r.status, 200) << path << ": " << r.body;
    EXPECT_EQ(r.content_type, "application/json");
    return json::parse(r.Body());
  }
  // Asserts an error status with a JSON error body; returns its message.
  std::string Error(const HttpReply& r, int status) {
    EXPECT_EQ(r.status, status) << r.body;
    json j = json::parse(r.Body());
    EXPECT_EQ(j["error"]["code"], status);
    return j["error"]["message"].get<std::string>();
  }
  std::unique_ptr<LiveTwin> live_;
};

TEST_F(ApiTest, OverviewHasTheDocumentedKeys) {
  json o = Get("/api/overview");
  for (const char* k :
       {"sim_time", "gpus_total", "gpus_in_use", "gpus_idle", "gpus_faulty", "gpus_cordoned",
        "workloads_running", "workloads_pending", "allocation_rate", "sm_active_utilization",
        "busy_utilization", "pending_by_reason"})
    EXPECT_TRUE(o.contains(k)) << k;
  EXPECT_EQ(o["sim_time"], 3600.0);
  EXPECT_EQ(o["gpus_total"], 16);
  EXPECT_EQ(o["gpus_in_use"], 8);
  EXPECT_EQ(o["gpus_idle"], 8);
  EXPECT_EQ(o["workloads_running"], 1);
  EXPECT_EQ(o["allocation_rate"], 0.5);
  EXPECT_EQ(o["sm_active_utilization"], 0.25);
}

// Dashboards poll the overview every second: one rendering per snapshot, shared by every request.
TEST_F(ApiTest, OverviewIsRenderedOncePerSnapshot) {
  const HttpReply a = Call("GET", "/api/overview"), b = Call("GET", "/api/overview");
  ASSERT_TRUE(a.shared_body && b.shared_body);
  EXPECT_EQ(a.shared_body.get(), b.shared_body.get());
  EXPECT_EQ(json::parse(a.Body()), OverviewJson(*live_->snapshot()));
  live_->Step(Seconds(60));
  const HttpReply c = Call("GET", "/api/overview");
  ASSERT_TRUE(c.shared_body);
  EXPECT_NE(c.shared_body.get(), a.shared_body.get());
  EXPECT_GT(json::parse(c.Body())["version"], json::parse(a.Body())["version"]);
}

// The heatmap's racks too (every dashboard polls them every second): one rendering of each
// form per snapshot; the form without node lists is the per-rack aggregate alone.
TEST_F(ApiTest, RacksAreRenderedOncePerSnapshotInEachForm) {
  const HttpReply a = Call("GET", "/api/racks", {{"nodes", "false"}});
  const HttpReply b = Call("GET", "/api/racks", {{"nodes", "false"}});
  const HttpReply full = Call("GET", "/api/racks");
  ASSERT_TRUE(a.shared_body && b.shared_body && full.shared_body);
  EXPECT_EQ(a.shared_body.get(), b.shared_body.get());
  EXPECT_NE(full.shared_body.get(), a.shared_body.get());
  const json tiles = json::parse(a.Body());
  ASSERT_EQ(tiles["racks"].size(), 1u);
  EXPECT_FALSE(tiles["racks"][0].contains("nodes"));
  EXPECT_EQ(tiles["racks"][0]["gpus_total"], 16);
  EXPECT_EQ(json::parse(full.Body())["racks"][0]["nodes"].size(), 2u);
  live_->Step(Seconds(60));
  const HttpReply c = Call("GET", "/api/racks", {{"nodes", "false"}});
  ASSERT_TRUE(c.shared_body);
  EXPECT_NE(c.shared_body.get(), a.shared_body.get());
}

TEST_F(ApiTest, NodesRacksQueuesWorkloads) {
  json nodes = Get("/api/nodes");
  EXPECT_EQ(nodes["total"], 2);
  EXPECT_EQ(nodes["nodes"][0]["gpus"], "uuuuuuuu");
  json idle = Get("/api/nodes", {{"state", "idle"}});
  ASSERT_EQ(idle["total"], 1);
  const std::string idle_node = idle["nodes"][0]["name"];
  json page = Get("/api/nodes", {{"offset", "1"}, {"limit", "1"}});
  EXPECT_EQ(page["total"], 2);
  ASSERT_EQ(page["nodes"].size(), 1u);
  EXPECT_EQ(page["nodes"][0]["name"], idle_node);
  json node = Get("/api/nodes/" + nodes["nodes"][0]["name"].get<std::string>());
  ASSERT_EQ(node["workloads"].size(), 1u);
  EXPECT_EQ(node["workloads"][0], "job-000000");
  json racks = Get("/api/racks");
  ASSERT_EQ(racks["racks"].size(), 1u);  // Racks of two nodes.
  EXPECT_EQ(racks["racks"][0]["gpus_in_use"], 8);
  EXPECT_EQ(racks["racks"][0]["nodes"].size(), 2u);
  json queues = Get("/api/queues");
  ASSERT_EQ(queues["queues"].size(), 2u);
  EXPECT_EQ(queues["queues"][0]["quota_gpus"], 16);
  EXPECT_EQ(queues["queues"][0]["used_gpus"], 8);
  json w = Get("/api/workloads", {{"state", "running"}});
  ASSERT_EQ(w["total"], 1);
  EXPECT_EQ(w["workloads"][0]["name"], "job-000000");
  EXPECT_EQ(Get("/api/workloads", {{"state", "pending"}})["total"], 0);
  EXPECT_EQ(Get("/api/workloads/job-000000")["gpus_allocated"], 8);
  EXPECT_TRUE(Get("/api/incidents")["incidents"].empty());
  json cost = Get("/api/cost");
  EXPECT_NEAR(cost["teams"][0]["allocated_gpu_hours"].get<double>(), 8.0, 1e-9);
  EXPECT_TRUE(cost["currency"].is_null());  // No cost model in this fixture.
  json ts = Get("/api/timeseries");
  ASSERT_EQ(ts["points"].size(), 2u);
  EXPECT_EQ(ts["points"][1]["allocation"], 0.5);
  EXPECT_EQ(Get("/api/timeseries", {{"since_hours", "0.5"}})["points"].size(), 1u);
}

TEST_F(ApiTest, BadRequestsGetJsonErrors) {
  EXPECT_NE(Error(Call("GET", "/api/nodes", {{"limit", "0"}}), 400).find("limit"),
            std::string::npos);
  Error(Call("GET", "/api/nodes", {{"limit", "ten"}}), 400);
  Error(Call("GET", "/api/nodes", {{"state", "broken"}}), 400);
  EXPECT_NE(Error(Call("GET", "/api/overview", {{"verbose", "1"}}), 400).find("verbose"),
            std::string::npos);
  Error(Call("GET", "/api/workloads", {{"team", "nobody"}}), 400);
  Error(Call("GET", "/api/timeseries", {{"since_hours", "x"}}), 400);
  Error(Call("GET", "/api/nodes/no-such-node"), 404);
  Error(Call("GET", "/api/workloads/no-such-job"), 404);
  Error(Call("GET", "/api/nothing"), 404);
  Error(Call("GET", "/nothing.js"), 404);
  Error(Call("DELETE", "/api/overview"), 405);
  Error(Call("GET", "/api/nodes/x/cordon"), 405);
  Error(Call("POST", "/api/workloads", {}, "{not json"), 400);
  Error(Call("POST", "/api/workloads", {}, "[1]"), 400);
  Error(Call("POST", "/api/workloads", {}, R"({"team":"a","gpus_per_pod":"8"})"), 400);
  Error(Call("POST", "/api/workloads", {}, R"({"team":"a","colour":"red"})"), 400);
  Error(Call("POST", "/api/workloads", {}, R"({"kind":"batch"})"), 400);  // No team.
  Error(Call("POST", "/api/workloads", {}, R"({"team":"zz"})"), 404);
  Error(Call("POST", "/api/workloads", {}, R"({"team":"a","gpus_per_pod":9})"), 400);
  Error(Call("POST", "/api/workloads", {}, R"({"team":"a","name":"job-000000"})"), 400);
  Error(Call("POST", "/api/queues/a/quota", {}, R"({})"), 400);
  Error(Call("POST", "/api/queues/zz/quota", {}, R"({"gpus":1})"), 404);
  Error(Call("POST", "/api/nodes/zz/cordon"), 404);
  EXPECT_NE(Error(Call("POST", "/api/nodes/p-0000/fault", {}, R"({"xid":4242})"), 400).find("4242"),
            std::string::npos);
  Error(Call("POST", "/api/nodes/p-0000/fault", {}, R"({"xid":79,"gpu":8})"), 400);
  Error(Call("POST", "/api/nodes/p-0000/fault", {}, R"({"xid":"79"})"), 400);
  Error(Call("POST", "/api/nodes/p-0000/fault", {}, R"({"colour":1})"), 400);
  Error(Call("POST", "/api/nodes/zz/fault", {}, R"({"xid":79})"), 404);
  Error(Call("GET", "/api/nodes/p-0000/fault"), 405);
  Error(Call("POST", "/api/racks/x/fault", {}, R"({"xid":74})"), 400);
  Error(Call("POST", "/api/racks/9/fault", {}, R"({"xid":74})"), 404);
  Error(Call("GET", "/api/racks/0/fault"), 405);
  EXPECT_EQ(live_->snapshot()->overview.gpus_faulty, 0);  // No bad request injected anything.
  // Invalid UTF-8 in a path is echoed safely, not thrown on.
  Error(Call("GET", "/api/nodes/\xff\xfe"), 404);
  EXPECT_EQ(live_->snapshot()->overview.workloads_submitted, 1);  // Nothing was submitted.
}

TEST_F(ApiTest, ControlsChangeTheTwin) {
  HttpReply r = Call("POST", "/api/workloads", {},
                     R"({"team":"b","kind":"training","pods":1,"gpus_per_pod":4,)"
                     R"("duration_hours":1,"name":"mine"})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(json::parse(r.Body())["name"], "mine");
  live_->Step(Minutes(1));
  json w = Get("/api/workloads/mine");
  EXPECT_EQ(w["state"], "pending");
  EXPECT_EQ(w["reason"], "quota_exhausted");
  // The detail is written when reasons are read, with the numbers of the latest pass.
  EXPECT_NE(w["reason_detail"].get<std::string>().find("-GPU quota; needs 4"), std::string::npos)
      << w;
  EXPECT_EQ(w["tier"], "training");
  ASSERT_EQ(Call("POST", "/api/queues/b/quota", {}, R"({"gpus":4})").status, 200);
  EXPECT_EQ(Get("/api/queues")["queues"][1]["quota_gpus"], 4);
  live_->Step(Minutes(5));
  EXPECT_EQ(Get("/api/workloads/mine")["state"], "running");
  const std::string node = Get("/api/nodes", {{"state", "idle"}})["nodes"][0]["name"];
  ASSERT_EQ(Call("POST", "/api/nodes/" + node + "/cordon").status, 200);
  json o = Get("/api/overview");
  EXPECT_EQ(o["gpus_cordoned"], 4);  // The 4 GPUs "mine" left free on that node.
  EXPECT_EQ(o["nodes_cordoned"], 1);
  ASSERT_EQ(Call("POST", "/api/nodes/" + node + "/uncordon").status, 200);
  EXPECT_EQ(Get("/api/overview")["gpus_cordoned"], 0);
}

// Fault injection with the remediation loop: the faulty GPU, the cordoned node and the
// incident appear in the API; the loop repairs the node and the incident closes.
TEST(ApiFaultTest, InjectedXidShowsFaultyCordonedAndAnIncident) {
  auto live = MakeLive(testing::FourNodeYaml(), {}, /*remediation=*/true);
  live->Step(Hours(1));
  auto call = [&](const std::string& method, const std::string& path, std::string body = {}) {
    HttpRequest r;
    r.method = method;
    r.path = path;
    r.body = std::move(body);
    return HandleRequest(*live, r);
  };
  // The job runs on p-0000; p-0001 is idle. XID 79 on GPU 2 of p-0001: a reboot.
  HttpReply r = call("POST", "/api/nodes/p-0001/fault", R"({"xid":79,"gpu":2})");
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.Body());
  EXPECT_EQ(j["mnemonic"], "GPU_HAS_FALLEN_OFF_THE_BUS");
  EXPECT_EQ(j["action"], "reboot");
  json o = json::parse(call("GET", "/api/overview").Body());
  EXPECT_EQ(o["gpus_faulty"], 1);
  EXPECT_EQ(o["gpus_cordoned"], 7);  // The node's 7 healthy, free GPUs: cordoned at once.
  EXPECT_EQ(o["gpus_in_use"], 8);
  EXPECT_EQ(o["gpus_idle"], 16);
  EXPECT_EQ(o["nodes_cordoned"], 1);
  EXPECT_EQ(o["incidents_open"], 1);
  EXPECT_EQ(o["nodes_by_remediation_state"]["in-repair"], 1);
  json node = json::parse(call("GET", "/api/nodes/p-0001").body);
  EXPECT_EQ(node["gpus"], "ccfccccc");
  EXPECT_EQ(node["remediation"], "in-repair");
  json inc = json::parse(call("GET", "/api/incidents").body);
  ASSERT_EQ(inc["incidents"].size(), 1u);
  EXPECT_EQ(inc["incidents"][0]["scope"], "node");
  EXPECT_EQ(inc["incidents"][0]["subject"], "p-0001");
  EXPECT_EQ(inc["incidents"][0]["category"], "xid79");
  EXPECT_EQ(inc["incidents"][0]["faulty_gpus"], 1);
  EXPECT_TRUE(inc["incidents"][0]["ticket"].is_null());  // Held 10 min for rack company.
  // Ticket after 10 min, reboot 2 h, diagnostic 15 min: back at 1 h + 2 h 25 min.
  live->Step(Minutes(11));
  inc = json::parse(call("GET", "/api/incidents").body);
  EXPECT_EQ(inc["incidents"][0]["ticket"], 1);
  live->Step(Hours(2) + Minutes(15));
  o = json::parse(call("GET", "/api/overview").Body());
  EXPECT_EQ(o["gpus_faulty"], 0);
  EXPECT_EQ(o["gpus_cordoned"], 0);
  EXPECT_EQ(o["incidents_open"], 0);
  EXPECT_EQ(o["tickets"], 1);
}

TEST(ApiFaultTest, RackFaultIsOneRackIncident) {
  // Racks of 2 nodes here: rack 1 = p-0002, p-0003. Two nodes do not make a rack incident
  // (rack_min_nodes 3), so each is its own node incident; both nodes are out.
  auto live = MakeLive(testing::FourNodeYaml(), {}, /*remediation=*/true);
  live->Step(Hours(1));
  HttpRequest r;
  r.method = "POST";
  r.path = "/api/racks/rack-1/fault";
  r.body = R"({"xid":74})";
  HttpReply reply = HandleRequest(*live, r);
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(json::parse(reply.body)["nodes"], json({"p-0002", "p-0003"}));
  const Overview& o = live->snapshot()->overview;
  EXPECT_EQ(o.gpus_faulty, 16);
  EXPECT_EQ(o.nodes_faulty, 2);
  // The budget lets 1 of 4 nodes out at a time: one is cordoned, the other waits as suspect.
  EXPECT_EQ(o.nodes_cordoned, 1);
  EXPECT_EQ(o.nodes_by_remediation_state.at("suspect"), 1);
  EXPECT_EQ(o.incidents_open, 2);
}

TEST_F(ApiTest, ServesTheDashboardAndMetrics) {
  HttpReply page = Call("GET", "/");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("data-key=\"gpus_in_use\""), std::string::npos);
  EXPECT_EQ(page.body.find("http://"), std::string::npos) << "the page must not load remote files";
  HttpReply js = Call("GET", "/app.js");
  EXPECT_EQ(js.status, 200);
  EXPECT_NE(js.body.find("/api/overview"), std::string::npos);
  EXPECT_EQ(Call("GET", "/style.css").status, 200);
  HttpReply m = Call("GET", "/metrics");
  EXPECT_EQ(m.status, 200);
  EXPECT_NE(m.content_type.find("version=0.0.4"), std::string::npos);
  EXPECT_EQ(Call("GET", "/healthz").body, "ok\n");
}

// Under the kueue admitter /api/queues reports each team's ClusterQueue with its nominal quota
// and borrowing from the engine, and the quota control sets a ClusterQueue's nominal quota.
TEST_F(ApiTest, QueuesAndQuotaControlUnderKueue) {
  live_ = testing::MakeKueueLive();
  live_->Step(Minutes(10));
  json q = Get("/api/queues");
  ASSERT_EQ(q["queues"].size(), 2u);
  EXPECT_EQ(q["queues"][0]["team"], "team-a");
  EXPECT_EQ(q["queues"][0]["cluster_queue"], "team-a");
  EXPECT_EQ(q["queues"][0]["quota_gpus"], 8);     // Nominal, not the scenario's quota_gpus 0.
  EXPECT_EQ(q["queues"][0]["borrowed_gpus"], 8);  // 16 used of nominal 8.
  ASSERT_EQ(q["cluster_queues"].size(), 2u);
  EXPECT_EQ(q["cluster_queues"][1]["name"], "team-b");
  EXPECT_EQ(q["cluster_queues"][1]["quotas"][0]["max_usable"], 16);
  // A team's quota goes to its ClusterQueue; a ClusterQueue can be named directly too.
  HttpReply r = Call("POST", "/api/queues/team-b/quota", {}, R"({"gpus":4})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.Body())["cluster_queue"], "team-b");
  EXPECT_EQ(Get("/api/queues")["queues"][1]["quota_gpus"], 4);
  ASSERT_EQ(Call("POST", "/api/queues/team-a/quota", {}, R"({"gpus":16,"flavor":"h100"})").status,
            200);
  q = Get("/api/queues");
  EXPECT_EQ(q["queues"][0]["quota_gpus"], 16);
  EXPECT_EQ(q["queues"][0]["borrowed_gpus"], 0);
  EXPECT_EQ(q["cluster_queues"][0]["quotas"][0]["max_usable"], 20);  // Cohort 16 + 4.
  Error(Call("POST", "/api/queues/team-a/quota", {}, R"({"gpus":1,"flavor":"a100"})"), 404);
  Error(Call("POST", "/api/queues/nobody/quota", {}, R"({"gpus":1})"), 404);
}

}  // namespace
}  // namespace steward::server

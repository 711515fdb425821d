// The dashboard's API for large clusters (issue 18, item 5): the workload list's filters and
// pages, the node panel's per-GPU readings and pod holders, chart markers, the incident summary
// against the overview's counters, and serve's warm-up.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "server/api.h"
#include "server_test_util.h"

namespace steward::server {
namespace {

using nlohmann::json;
using testing::MakeLive;

// Two pools in three racks (2 nodes per rack): h100-0000..0003 (racks 0, 1) and a100-0000..0001
// (rack 2). Under first-fit at t = 0: "train" (team a, 2 x 8 H100) on h100-0000 and h100-0001;
// "serve" (team b, 8 A100) on a100-0000; five 1-GPU "small" jobs (team a, H100) on h100-0002;
// three "wait" jobs (team b, 8 A100) pending on b's 8-GPU quota.
std::string TwoPoolYaml() {
  return "name: dash\nseed: 7\nhorizon_days: 3\nsample_minutes: 30\n"
         "cluster:\n  gpu_models: [{name: H100}, {name: A100}]\n  pools:\n"
         "    - {name: h100, nodes: 4, gpus_per_node: 8, gpu_model: H100, nodes_per_rack: 2,"
         " nodes_per_leaf: 4}\n"
         "    - {name: a100, nodes: 2, gpus_per_node: 8, gpu_model: A100, nodes_per_rack: 2,"
         " nodes_per_leaf: 4}\n"
         "teams:\n  - {name: a, quota_gpus: 64}\n  - {name: b, quota_gpus: 8}\n"
         "faults: {enabled: false}\n"
         "generators:\n"
         "  - {name: train, team: a, kind: training, arrival: {process: once, count: 1}, pods: 2,"
         " gpus_per_pod: 8, gpu_model: H100, duration_hours: 10}\n"
         "  - {name: serve, team: b, kind: batch, arrival: {process: once, count: 1},"
         " gpus_per_pod: 8, gpu_model: A100, duration_hours: 10}\n"
         "  - {name: small, team: a, kind: batch, arrival: {process: once, count: 5},"
         " gpus_per_pod: 1, gpu_model: H100, duration_hours: 10}\n"
         "  - {name: wait, team: b, kind: batch, arrival: {process: once, count: 3},"
         " gpus_per_pod: 8, gpu_model: A100, duration_hours: 10}\n";
}

class DashboardApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    live_ = MakeLive(TwoPoolYaml());
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
    EXPECT_EQ(r.status, 200) << path << ": " << r.Body();
    return json::parse(r.Body());
  }
  // The names of a list's workloads.
  static std::vector<std::string> Names(const json& page) {
    std::vector<std::string> out;
    for (const json& w : page["workloads"]) out.push_back(w["name"]);
    return out;
  }
  std::string ErrorOf(std::multimap<std::string, std::string> params) {
    HttpReply r = Call("GET", "/api/workloads", std::move(params));
    EXPECT_EQ(r.status, 400) << r.body;
    return json::parse(r.Body())["error"]["message"];
  }
  std::unique_ptr<LiveTwin> live_;
};

TEST_F(DashboardApiTest, WorkloadFiltersByTeamPoolRackNodeStateAndReason) {
  EXPECT_EQ(Get("/api/workloads")["total"], 10);
  EXPECT_EQ(Get("/api/workloads", {{"team", "a"}})["total"], 6);
  EXPECT_EQ(Get("/api/workloads", {{"team", "b"}})["total"], 4);
  // Team b's queue is FIFO: its head waits for quota, the two behind it wait in the queue.
  json pending = Get("/api/workloads", {{"state", "pending"}});
  ASSERT_EQ(pending["total"], 3);
  EXPECT_EQ(pending["workloads"][0]["reason"], "quota_exhausted");
  EXPECT_FALSE(pending["workloads"][0]["reason_detail"].get<std::string>().empty());
  for (const json& w : pending["workloads"]) {
    EXPECT_EQ(w["team"], "b");
    EXPECT_TRUE(w["nodes"].empty());
  }
  EXPECT_EQ(Get("/api/workloads", {{"reason", "quota_exhausted"}})["total"], 1);
  EXPECT_EQ(Get("/api/workloads", {{"reason", "waiting_in_queue"}})["total"], 2);
  EXPECT_EQ(Get("/api/workloads", {{"reason", "no_fit_fragmentation"}})["total"], 0);
  // A pool holds the workloads placed on it and the pending ones that need its GPU model.
  EXPECT_EQ(Get("/api/workloads", {{"pool", "a100"}})["total"], 4);
  EXPECT_EQ(Get("/api/workloads", {{"pool", "h100"}})["total"], 6);
  EXPECT_EQ(Get("/api/workloads", {{"pool", "a100"}, {"state", "running"}})["total"], 1);
  // Racks and nodes hold placed workloads only.
  json rack0 = Get("/api/workloads", {{"rack", "0"}});
  ASSERT_EQ(rack0["total"], 1);
  EXPECT_EQ(rack0["workloads"][0]["nodes"], json({"h100-0000", "h100-0001"}));
  EXPECT_EQ(rack0["workloads"][0]["nodes_total"], 2);
  EXPECT_EQ(Get("/api/workloads", {{"rack", "1"}})["total"], 5);
  EXPECT_EQ(Get("/api/workloads", {{"rack", "2"}})["total"], 1);
  json node = Get("/api/workloads", {{"node", "h100-0002"}, {"team", "a"}});
  EXPECT_EQ(node["total"], 5);
  for (const json& w : node["workloads"]) EXPECT_EQ(w["nodes"], json({"h100-0002"}));
  EXPECT_EQ(Get("/api/workloads", {{"node", "h100-0003"}})["total"], 0);
  EXPECT_EQ(Get("/api/workloads", {{"node", "h100-0002"}, {"team", "b"}})["total"], 0);
}

TEST_F(DashboardApiTest, PagesWithContinueTokensCoverEveryWorkloadOnce) {
  std::vector<std::string> all = Names(Get("/api/workloads"));
  ASSERT_EQ(all.size(), 10u);
  std::vector<std::string> paged;
  std::multimap<std::string, std::string> params{{"limit", "4"}};
  int pages = 0;
  for (;;) {
    json page = Get("/api/workloads", params);
    EXPECT_EQ(page["total"], 10);
    for (const std::string& n : Names(page)) paged.push_back(n);
    ++pages;
    if (page["continue"].is_null()) break;
    ASSERT_LT(pages, 10);
    params = {{"limit", "4"}, {"continue", page["continue"].get<std::string>()}};
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(paged, all);
  // Offsets give the same pages.
  EXPECT_EQ(Names(Get("/api/workloads", {{"limit", "4"}, {"offset", "4"}})),
            std::vector<std::string>(all.begin() + 4, all.begin() + 8));
  // With a filter, the token resumes within the filtered list.
  json a1 = Get("/api/workloads", {{"team", "a"}, {"limit", "4"}});
  ASSERT_FALSE(a1["continue"].is_null());
  json a2 = Get("/api/workloads", {{"team", "a"}, {"limit", "4"}, {"continue", a1["continue"]}});
  EXPECT_EQ(a2["workloads"].size(), 2u);
  EXPECT_TRUE(a2["continue"].is_null());
  // A token stays valid when workloads arrive between pages (an offset would not).
  json first = Get("/api/workloads", {{"limit", "4"}});
  ASSERT_EQ(Call("POST", "/api/workloads", {}, R"({"team":"a","name":"late"})").status, 201);
  json second = Get("/api/workloads", {{"limit", "4"}, {"continue", first["continue"]}});
  EXPECT_EQ(Names(second), std::vector<std::string>(all.begin() + 4, all.begin() + 8));
  EXPECT_EQ(second["total"], 11);
}

TEST_F(DashboardApiTest, BadWorkloadParametersAre400) {
  EXPECT_NE(ErrorOf({{"pool", "v100"}}).find("h100"), std::string::npos);  // Lists the pools.
  EXPECT_NE(ErrorOf({{"rack", "3"}}).find("rack"), std::string::npos);
  ErrorOf({{"rack", "-1"}});
  ErrorOf({{"rack", "one"}});
  EXPECT_NE(ErrorOf({{"node", "h100-9999"}}).find("h100-9999"), std::string::npos);
  ErrorOf({{"state", "done"}});
  ErrorOf({{"team", "nobody"}});
  ErrorOf({{"reason", "Quota Exhausted"}});
  ErrorOf({{"reason", ""}});
  ErrorOf({{"limit", "0"}});
  ErrorOf({{"limit", "1001"}});
  ErrorOf({{"offset", "-1"}});
  ErrorOf({{"continue", "abc"}});
  ErrorOf({{"continue", "-4"}});
  EXPECT_NE(ErrorOf({{"continue", "4"}, {"offset", "4"}}).find("continue"), std::string::npos);
  EXPECT_NE(ErrorOf({{"colour", "red"}}).find("colour"), std::string::npos);
  // The racks endpoint takes nodes=true|false only.
  EXPECT_EQ(Call("GET", "/api/racks", {{"nodes", "maybe"}}).status, 400);
  EXPECT_EQ(Call("GET", "/api/racks", {{"limit", "1"}}).status, 400);
}

TEST_F(DashboardApiTest, RackSummariesWithoutNodes) {
  json racks = Get("/api/racks", {{"nodes", "false"}});
  ASSERT_EQ(racks["racks"].size(), 3u);
  for (const json& r : racks["racks"]) {
    EXPECT_FALSE(r.contains("nodes"));
    EXPECT_EQ(r["gpus_total"], 16);
    EXPECT_EQ(r["gpus_in_use"].get<int>() + r["gpus_idle"].get<int>() +
                  r["gpus_faulty"].get<int>() + r["gpus_cordoned"].get<int>(),
              16);
  }
  EXPECT_EQ(racks["racks"][0]["gpus_in_use"], 16);
  EXPECT_EQ(racks["racks"][1]["gpus_in_use"], 5);
  EXPECT_EQ(racks["racks"][2]["pools"], json({"a100"}));
  EXPECT_EQ(Get("/api/racks")["racks"][2]["nodes"].size(), 2u);
}

TEST_F(DashboardApiTest, NodePanelShowsReadingsAndThePodHoldingEachGpu) {
  json n = Get("/api/nodes/h100-0002");
  ASSERT_EQ(n["gpu_details"].size(), 8u);
  EXPECT_FALSE(n["dcgm_sim_hours"].is_null());
  std::set<std::string> pods;
  for (int i = 0; i < 8; ++i) {
    const json& g = n["gpu_details"][i];
    EXPECT_EQ(g["index"], i);
    EXPECT_TRUE(g["temperature_c"].is_number()) << g;
    EXPECT_TRUE(g["power_w"].is_number()) << g;
    EXPECT_GT(g["memory_total_mib"].get<double>(), 0) << g;
    EXPECT_EQ(g["xid"], 0);
    EXPECT_TRUE(g["ecc_dbe_aggregate"].is_number()) << g;
    if (i < 5) {
      EXPECT_EQ(g["state"], "in_use");
      ASSERT_EQ(g["pods"].size(), 1u) << g;
      const json& p = g["pods"][0];
      EXPECT_EQ(p["team"], "a");
      EXPECT_EQ(p["workload"].get<std::string>().rfind("small-", 0), 0u) << p;
      EXPECT_EQ(p["since_hours"], 0.0);  // Bound at t = 0.
      EXPECT_TRUE(p["running"]);
      pods.insert(p["name"].get<std::string>());
    } else {
      EXPECT_EQ(g["state"], "idle");
      EXPECT_TRUE(g["pods"].empty());
    }
  }
  EXPECT_EQ(pods.size(), 5u);  // One pod per GPU, each its own.
  // A pod placed later says when: submitted at 1 h, bound at once on the free node.
  ASSERT_EQ(Call("POST", "/api/workloads", {},
                 R"({"team":"a","name":"late","gpus_per_pod":8,"gpu_model":"H100"})")
                .status,
            201);
  live_->Step(Minutes(10));
  json late = Get("/api/nodes/h100-0003");
  ASSERT_EQ(late["gpu_details"][7]["pods"].size(), 1u) << late;
  EXPECT_DOUBLE_EQ(late["gpu_details"][7]["pods"][0]["since_hours"].get<double>(), 1.0);
  EXPECT_EQ(late["gpu_details"][7]["pods"][0]["workload"], "late");
  // An XID shows on its GPU once the exporter has refreshed.
  ASSERT_EQ(Call("POST", "/api/nodes/a100-0001/fault", {}, R"({"xid":79,"gpu":2})").status, 200);
  live_->Step(Minutes(1));
  json faulty = Get("/api/nodes/a100-0001");
  EXPECT_EQ(faulty["gpu_details"][2]["state"], "faulty");
  EXPECT_EQ(faulty["gpu_details"][2]["xid"], 79);
  EXPECT_EQ(faulty["gpu_details"][1]["xid"], 0);
}

TEST_F(DashboardApiTest, ChartMarkersForFaultsCordonsAndQuotas) {
  EXPECT_TRUE(Get("/api/timeseries")["markers"].empty());
  ASSERT_EQ(Call("POST", "/api/nodes/h100-0003/cordon").status, 200);
  live_->Step(Minutes(30));
  ASSERT_EQ(Call("POST", "/api/queues/b/quota", {}, R"({"gpus":16})").status, 200);
  ASSERT_EQ(Call("POST", "/api/racks/2/fault", {}, R"({"xid":74})").status, 200);
  live_->Step(Minutes(30));
  ASSERT_EQ(Call("POST", "/api/nodes/h100-0003/uncordon").status, 200);
  json m = Get("/api/timeseries")["markers"];
  ASSERT_EQ(m.size(), 4u) << m;
  EXPECT_EQ(m[0]["kind"], "cordon");
  EXPECT_EQ(m[0]["subjects"], json({"h100-0003"}));
  EXPECT_DOUBLE_EQ(m[0]["hours"].get<double>(), 1.0);
  EXPECT_EQ(m[1]["kind"], "quota");
  EXPECT_EQ(m[1]["subjects"], json({"b 8 -> 16"}));
  EXPECT_DOUBLE_EQ(m[1]["hours"].get<double>(), 1.5);
  EXPECT_EQ(m[2]["kind"], "fault");  // One marker for the rack: both nodes, all 16 GPUs.
  EXPECT_EQ(m[2]["subjects"], json({"a100-0000", "a100-0001"}));
  EXPECT_EQ(m[2]["count"], 16);
  EXPECT_EQ(m[3]["kind"], "uncordon");
  EXPECT_DOUBLE_EQ(m[3]["hours"].get<double>(), 2.0);
  EXPECT_EQ(Get("/api/timeseries", {{"since_hours", "1.75"}})["markers"].size(), 1u);
}

TEST(WarmupTest, RunsAheadWithSeriesAndMarkersAndMatchesALiveRun) {
  const std::string yaml = testing::FourNodeYaml();
  auto warm = MakeLive(yaml, {}, /*remediation=*/true);
  auto stepped = MakeLive(yaml, {}, /*remediation=*/true);
  EXPECT_EQ(warm->Warmup(Hours(6), 100), Hours(6));
  for (int i = 0; i < 36; ++i) stepped->Step(Minutes(10));
  const auto a = warm->snapshot();
  const auto b = stepped->snapshot();
  EXPECT_EQ(a->overview.sim_seconds, 6 * 3600.0);
  EXPECT_EQ(a->overview.events, b->overview.events);  // Same simulation, chunked differently.
  EXPECT_EQ(a->overview.gpus_in_use, b->overview.gpus_in_use);
  EXPECT_EQ(a->overview.allocation_rate_cumulative, b->overview.allocation_rate_cumulative);
  // The series spans the warm-up in at most 100 chunks (+ the starting point).
  ASSERT_TRUE(a->series);
  EXPECT_LE(a->series->size(), 101u);
  EXPECT_GE(a->series->size(), 50u);
  EXPECT_EQ(a->series->back().hours, 6.0);
  EXPECT_EQ(a->dcgm_sim_hours, 6.0);  // Refreshed at the end.
  // Past the horizon (1 day) it stops there.
  EXPECT_EQ(warm->Warmup(Hours(100)), Hours(18));
  EXPECT_TRUE(warm->snapshot()->overview.finished);
  EXPECT_EQ(warm->Warmup(Hours(1)), SimDuration());
}

// With random faults and the remediation loop running for days (nodes repaired, failing
// validation and quarantined), the incident panel adds up to the overview at every step:
// recomputed here from /api/nodes and the incidents' node lists.
TEST(IncidentSummaryTest, AddsUpToTheFaultyAndQuarantinedCounts) {
  auto live = MakeLive(twin::testing::SmallScenarioYaml(
                           16, "a:128",
                           "faults: {enabled: true, xids: [{xid: 79, per_gpu_hour: 0.002},"
                           " {xid: 48, per_gpu_hour: 0.001}], rack_events: {per_rack_day: 0.2}}\n"
                           "remediation: {repair_failure_probability: 0.5}\n"
                           "generators:\n"
                           "  - {name: job, team: a, kind: batch, arrival: {process: poisson,"
                           " rate_per_hour: 2}, gpus_per_pod: 8, duration_hours: 6}\n",
                           4),
                       {}, /*remediation=*/true);
  auto call = [&](const std::string& path, std::multimap<std::string, std::string> params = {}) {
    HttpRequest r;
    r.method = "GET";
    r.path = path;
    r.params = std::move(params);
    HttpReply reply = HandleRequest(*live, r);
    EXPECT_EQ(reply.status, 200) << reply.Body();
    return json::parse(reply.Body());
  };
  int saw_faulty = 0, saw_outside = 0, saw_quarantined = 0;
  for (int step = 0; step < 48; ++step) {
    live->Step(Hours(2));
    const json o = call("/api/overview");
    const json inc = call("/api/incidents");
    const json nodes = call("/api/nodes", {{"limit", "1000"}});
    std::set<std::string> in_incidents;
    for (const json& i : inc["incidents"])
      for (const json& n : i["nodes"]) in_incidents.insert(n);
    int faulty_in = 0, faulty_out = 0, quarantined = 0, quarantined_in = 0, out_of_service = 0;
    std::set<std::string> outside;
    for (const json& n : nodes["nodes"]) {
      const bool in = in_incidents.count(n["name"]) > 0;
      const int f = n["gpus_faulty"];
      (in ? faulty_in : faulty_out) += f;
      const bool q = n["remediation"] == "quarantined";
      quarantined += q;
      quarantined_in += q && in;
      out_of_service += n["remediation"] != "healthy";
      if (!in && (f > 0 || n["remediation"] != "healthy")) outside.insert(n["name"]);
    }
    const json& s = inc["summary"];
    ASSERT_EQ(s["incidents_open"], o["incidents_open"]);
    ASSERT_EQ(s["gpus_faulty"], o["gpus_faulty"]);
    ASSERT_EQ(s["gpus_faulty_in_incidents"], faulty_in) << "step " << step;
    ASSERT_EQ(s["gpus_faulty_outside_incidents"], faulty_out) << "step " << step;
    ASSERT_EQ(faulty_in + faulty_out, o["gpus_faulty"].get<int>());
    ASSERT_EQ(s["nodes_quarantined"], quarantined);
    ASSERT_EQ(s["nodes_quarantined_in_incidents"], quarantined_in);
    ASSERT_EQ(s["nodes_out_of_service"], out_of_service);
    int by_state = 0;
    for (const auto& [state, count] : o["nodes_by_remediation_state"].items())
      by_state += count.get<int>();
    ASSERT_EQ(out_of_service, by_state);
    std::set<std::string> listed;
    for (const json& n : inc["outside_incidents"]) listed.insert(n["node"]);
    ASSERT_EQ(listed, outside) << "step " << step;
    saw_faulty += o["gpus_faulty"].get<int>() > 0;
    saw_outside += !outside.empty();
    saw_quarantined += quarantined > 0;
  }
  // The run exercised the cases the summary exists for.
  EXPECT_GT(saw_faulty, 0);
  EXPECT_GT(saw_quarantined, 0);
  EXPECT_GT(saw_outside, 0);
}

}  // namespace
}  // namespace steward::server

// ApiServer, read side: discovery, lists (paging, resourceVersion semantics, selectors) and
// Table output, as the Kubernetes API answers kubectl and client-go (kube-api-facts.md §3).
#include "kube/api_server.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "api_test_util.h"

namespace steward::kube::testing {
namespace {

// ---- Discovery ----------------------------------------------------------------------------

TEST_F(ApiServerTest, ApiListsTheCoreVersion) {
  json j = Get("/api");
  EXPECT_EQ(j["kind"], "APIVersions");
  EXPECT_EQ(j["versions"], json::array({"v1"}));
  EXPECT_TRUE(j["serverAddressByClientCIDRs"].is_array());
}

TEST_F(ApiServerTest, CoreResourceListAdvertisesPodsEvictionAsDrainNeedsIt) {
  json j = Get("/api/v1");
  EXPECT_EQ(j["kind"], "APIResourceList");
  EXPECT_EQ(j["groupVersion"], "v1");
  std::map<std::string, json> by_name;
  for (const json& r : j["resources"]) by_name[r["name"]] = r;
  ASSERT_TRUE(by_name.count("nodes"));
  EXPECT_EQ(by_name["nodes"]["namespaced"], false);
  EXPECT_EQ(by_name["nodes"]["kind"], "Node");
  EXPECT_EQ(by_name["pods"]["namespaced"], true);
  // kubectl drain: name pods/eviction, group policy, version v1, kind Eviction, or it deletes.
  ASSERT_TRUE(by_name.count("pods/eviction"));
  const json& ev = by_name["pods/eviction"];
  EXPECT_EQ(ev["group"], "policy");
  EXPECT_EQ(ev["version"], "v1");
  EXPECT_EQ(ev["kind"], "Eviction");
  EXPECT_EQ(ev["verbs"], json::array({"create"}));
  // Only core resources here.
  EXPECT_FALSE(by_name.count("clusterqueues"));
  EXPECT_FALSE(by_name.count("poddisruptionbudgets"));
}

TEST_F(ApiServerTest, ApisListsEveryGroupWithItsPreferredVersion) {
  json j = Get("/apis");
  EXPECT_EQ(j["kind"], "APIGroupList");
  std::map<std::string, json> groups;
  for (const json& g : j["groups"]) groups[g["name"]] = g;
  EXPECT_FALSE(groups.count("")) << "the core group is served under /api";
  ASSERT_TRUE(groups.count("policy"));
  ASSERT_TRUE(groups.count("coordination.k8s.io"));
  ASSERT_TRUE(groups.count("kueue.x-k8s.io"));
  const json& kueue = groups["kueue.x-k8s.io"];
  ASSERT_EQ(kueue["versions"].size(), 2u);
  EXPECT_EQ(kueue["versions"][0]["groupVersion"], "kueue.x-k8s.io/v1beta1");
  EXPECT_EQ(kueue["preferredVersion"]["version"], "v1beta1");
}

TEST_F(ApiServerTest, GroupAndGroupVersionDiscovery) {
  json g = Get("/apis/policy");
  EXPECT_EQ(g["kind"], "APIGroup");
  EXPECT_EQ(g["name"], "policy");
  json list = Get("/apis/kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(list["groupVersion"], "kueue.x-k8s.io/v1beta2");
  ASSERT_EQ(list["resources"].size(), 1u);
  EXPECT_EQ(list["resources"][0]["name"], "clusterqueues");
  EXPECT_EQ(list["resources"][0]["namespaced"], false);
  EXPECT_EQ(Do("GET", "/apis/no.such.group").status, 404);
  EXPECT_EQ(Do("GET", "/apis/policy/v9").status, 404);
  EXPECT_EQ(Do("GET", "/api/v2").status, 404);
}

TEST_F(ApiServerTest, VersionAndHealth) {
  json v = Get("/version");
  EXPECT_EQ(v["major"], "1");
  EXPECT_TRUE(v["gitVersion"].get<std::string>().starts_with("v1."));
  http::Reply h = Do("GET", "/healthz");
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(h.body, "ok");
  EXPECT_EQ(Do("GET", "/readyz").status, 200);
  EXPECT_EQ(Do("GET", "/livez").status, 200);
}

TEST_F(ApiServerTest, DiscoveryTakesOnlyGet) {
  http::Reply r = Do("POST", "/api", "{}");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.Header("Allow"), "GET");
  EXPECT_EQ(Body(r)["reason"], "MethodNotAllowed");
}

// ---- Get and list -------------------------------------------------------------------------

TEST_F(ApiServerTest, GetAnswersTheObjectOr404) {
  AddNode("gpu-1");
  json node = Get("/api/v1/nodes/gpu-1");
  EXPECT_EQ(node["metadata"]["name"], "gpu-1");
  http::Reply missing = Do("GET", "/api/v1/nodes/nope");
  EXPECT_EQ(missing.status, 404);
  json status = Body(missing);
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["reason"], "NotFound");
  EXPECT_EQ(status["details"]["name"], "nope");
  EXPECT_EQ(status["details"]["kind"], "nodes");
  EXPECT_EQ(Do("GET", "/api/v1/nosuchthings").status, 404);
  // A cluster-scoped resource has no namespaced path.
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/nodes/gpu-1").status, 404);
}

TEST_F(ApiServerTest, ListIsAKindListAtTheStoreVersion) {
  AddNode("b");
  AddNode("a");
  json list = Get("/api/v1/nodes");
  EXPECT_EQ(list["kind"], "NodeList");
  EXPECT_EQ(list["apiVersion"], "v1");
  EXPECT_EQ(list["metadata"]["resourceVersion"], std::to_string(store_.resource_version()));
  EXPECT_FALSE(list["metadata"].contains("continue"));
  EXPECT_EQ(Names(list), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Get("/apis/kueue.x-k8s.io/v1beta1/clusterqueues")["kind"], "ClusterQueueList");
}

TEST_F(ApiServerTest, PagesWalkOneConsistentSnapshot) {
  for (const char* n : {"n1", "n2", "n3", "n4", "n5"}) AddNode(n);
  json page1 = Get("/api/v1/nodes?limit=2");
  EXPECT_EQ(Names(page1), (std::vector<std::string>{"n1", "n2"}));
  const std::string rv = page1["metadata"]["resourceVersion"];
  ASSERT_TRUE(page1["metadata"].contains("continue"));
  EXPECT_EQ(page1["metadata"]["remainingItemCount"], 3);

  // Changes after the first page are not seen by the later pages.
  AddNode("n0");
  AddNode("n35");
  store_.Commit({{nodes_, "", "n4", std::nullopt}});

  std::vector<std::string> all = Names(page1);
  json page = page1;
  while (page["metadata"].contains("continue")) {
    page = Get("/api/v1/nodes?limit=2&continue=" + page["metadata"]["continue"].get<std::string>());
    EXPECT_EQ(page["metadata"]["resourceVersion"], rv);
    for (const std::string& n : Names(page)) all.push_back(n);
  }
  EXPECT_EQ(all, (std::vector<std::string>{"n1", "n2", "n3", "n4", "n5"}));
  // A fresh list sees the new state.
  EXPECT_EQ(Names(Get("/api/v1/nodes")),
            (std::vector<std::string>{"n0", "n1", "n2", "n3", "n35", "n5"}));
}

TEST_F(ApiServerTest, ContinuePastTheHistoryWindowIs410) {
  for (const char* n : {"n1", "n2", "n3", "n4", "n5"}) AddNode(n);
  json page1 = Get("/api/v1/nodes?limit=2");
  json page2 =
      Get("/api/v1/nodes?limit=2&continue=" + page1["metadata"]["continue"].get<std::string>());
  AddNode("n6");  // The first page's version is no longer the latest.
  history_now_ += std::chrono::minutes(6);
  for (const json* page : {&page1, &page2}) {
    http::Reply r = Do("GET", "/api/v1/nodes?limit=2&continue=" +
                                  (*page)["metadata"]["continue"].get<std::string>());
    EXPECT_EQ(r.status, 410) << r.body;
    EXPECT_EQ(Body(r)["reason"], "Expired");
  }
}

// A pager that keeps its first request's resourceVersion=0 on the next pages (client-go's
// reflector lists with RV "0") gets them: the storage ignores "0" next to a continue token and
// refuses any other version (kube-api-facts.md §3.4; apiserver's etcd3 store).
TEST_F(ApiServerTest, ContinueIgnoresResourceVersionZeroButRefusesOthers) {
  for (const char* n : {"n1", "n2", "n3"}) AddNode(n);
  json page1 = Get("/api/v1/nodes?limit=2&resourceVersion=0");
  ASSERT_TRUE(page1["metadata"].contains("continue"));
  const std::string cont = page1["metadata"]["continue"];
  const std::string rv = page1["metadata"]["resourceVersion"];
  AddNode("n4");
  json page2 = Get("/api/v1/nodes?limit=2&resourceVersion=0&continue=" + cont);
  EXPECT_EQ(Names(page2), (std::vector<std::string>{"n3"}));
  EXPECT_EQ(page2["metadata"]["resourceVersion"], rv);
  http::Reply pinned =
      Do("GET", "/api/v1/nodes?limit=2&resourceVersion=" + rv + "&continue=" + cont);
  EXPECT_EQ(pinned.status, 400);
  EXPECT_EQ(Body(pinned)["reason"], "BadRequest");
  // resourceVersionMatch has no meaning next to a token: 422 naming the field.
  http::Reply matched =
      Do("GET",
         "/api/v1/nodes?limit=2&resourceVersion=0&resourceVersionMatch=NotOlderThan"
         "&continue=" +
             cont);
  ASSERT_EQ(matched.status, 422);
  const json status = Body(matched);
  EXPECT_EQ(status["reason"], "Invalid");
  EXPECT_EQ(status["details"]["kind"], "ListOptions");
  EXPECT_EQ(status["details"]["causes"][0]["field"], "resourceVersionMatch");
  EXPECT_NE(status["message"].get<std::string>().find("forbidden when continue is provided"),
            std::string::npos);
}

TEST_F(ApiServerTest, ListRefusesSendInitialEvents) {
  http::Reply r = Do("GET", "/api/v1/nodes?sendInitialEvents=true");
  ASSERT_EQ(r.status, 422);
  EXPECT_EQ(Body(r)["details"]["causes"][0]["field"], "sendInitialEvents");
}

TEST_F(ApiServerTest, MalformedContinueIs400) {
  AddNode("n1");
  EXPECT_EQ(Do("GET", "/api/v1/nodes?continue=not-a-token").status, 400);
  EXPECT_EQ(Do("GET", "/api/v1/nodes?limit=-1").status, 400);
}

// The table of https://kubernetes.io/docs/reference/using-api/api-concepts/ ("Semantics for get
// and list"): unset = most recent, "0" = any, "N" = not older than N, or exactly N with
// resourceVersionMatch=Exact or with a limit (KEP-2523's legacy rule).
TEST_F(ApiServerTest, ListResourceVersionSemantics) {
  AddNode("a");
  const int64_t at_a = store_.resource_version();
  AddNode("b");
  const std::string now = std::to_string(store_.resource_version());
  const std::string past = std::to_string(at_a);

  EXPECT_EQ(Get("/api/v1/nodes")["metadata"]["resourceVersion"], now);
  EXPECT_EQ(Get("/api/v1/nodes?resourceVersion=0")["metadata"]["resourceVersion"], now);
  // Not older than N: the latest state is not older.
  json not_older = Get("/api/v1/nodes?resourceVersion=" + past);
  EXPECT_EQ(not_older["metadata"]["resourceVersion"], now);
  EXPECT_EQ(Names(not_older).size(), 2u);
  json not_older2 =
      Get("/api/v1/nodes?resourceVersion=" + past + "&resourceVersionMatch=NotOlderThan");
  EXPECT_EQ(Names(not_older2).size(), 2u);
  // Exactly N.
  json exact = Get("/api/v1/nodes?resourceVersion=" + past + "&resourceVersionMatch=Exact");
  EXPECT_EQ(exact["metadata"]["resourceVersion"], past);
  EXPECT_EQ(Names(exact), (std::vector<std::string>{"a"}));
  // With a limit and no match, "N" is Exact too.
  json paged = Get("/api/v1/nodes?limit=10&resourceVersion=" + past);
  EXPECT_EQ(paged["metadata"]["resourceVersion"], past);
  EXPECT_EQ(Names(paged), (std::vector<std::string>{"a"}));
  // Invalid combinations: 422 Invalid ListOptions, as apimachinery's ValidateListOptions.
  EXPECT_EQ(Do("GET", "/api/v1/nodes?resourceVersionMatch=Exact").status, 422);
  EXPECT_EQ(Do("GET", "/api/v1/nodes?resourceVersion=0&resourceVersionMatch=Exact").status, 422);
  EXPECT_EQ(Do("GET", "/api/v1/nodes?resourceVersion=1&resourceVersionMatch=Newest").status, 422);
  EXPECT_EQ(Do("GET", "/api/v1/nodes?resourceVersion=abc").status, 400);
}

TEST_F(ApiServerTest, ExactVersionPastTheWindowIs410) {
  AddNode("a");
  const std::string past = std::to_string(store_.resource_version());
  AddNode("b");
  history_now_ += std::chrono::minutes(6);
  http::Reply r =
      Do("GET", "/api/v1/nodes?resourceVersion=" + past + "&resourceVersionMatch=Exact");
  EXPECT_EQ(r.status, 410);
  EXPECT_EQ(Body(r)["reason"], "Expired");
  // Not-older-than is still served (from the latest state).
  EXPECT_EQ(Do("GET", "/api/v1/nodes?resourceVersion=" + past).status, 200);
}

TEST_F(ApiServerTest, LabelAndFieldSelectors) {
  AddPod("team-a", "train-0", "gpu-1", {{"app", "train"}, {"tier", "batch"}});
  AddPod("team-a", "train-1", "gpu-2", {{"app", "train"}, {"tier", "web"}});
  AddPod("team-b", "serve-0", "gpu-1", {{"app", "serve"}});
  AddPod("team-b", "done-0", "gpu-1", {{"app", "train"}}, {{"phase", "Succeeded"}});

  EXPECT_EQ(Names(Get("/api/v1/pods?labelSelector=app=train,tier!=web")),
            (std::vector<std::string>{"train-0", "done-0"}));
  EXPECT_EQ(Names(Get("/api/v1/pods?labelSelector=app in (serve),!tier")),
            (std::vector<std::string>{"serve-0"}));
  // kubectl drain's query.
  EXPECT_EQ(Names(Get("/api/v1/pods?fieldSelector=spec.nodeName=gpu-1&limit=500")),
            (std::vector<std::string>{"train-0", "done-0", "serve-0"}));
  EXPECT_EQ(Names(Get("/api/v1/pods?fieldSelector=spec.nodeName=gpu-1,status.phase!=Succeeded")),
            (std::vector<std::string>{"train-0", "serve-0"}));
  EXPECT_EQ(Names(Get("/api/v1/pods?fieldSelector=metadata.name=serve-0")),
            (std::vector<std::string>{"serve-0"}));
  // Namespace scope.
  EXPECT_EQ(Names(Get("/api/v1/namespaces/team-a/pods")),
            (std::vector<std::string>{"train-0", "train-1"}));
  EXPECT_EQ(Names(Get("/api/v1/pods?fieldSelector=metadata.namespace=team-b")),
            (std::vector<std::string>{"done-0", "serve-0"}));
  // A field the resource does not index, or a malformed selector: 400.
  http::Reply bad = Do("GET", "/api/v1/pods?fieldSelector=spec.hostname=x");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(Body(bad)["reason"], "BadRequest");
  EXPECT_EQ(Do("GET", "/api/v1/pods?labelSelector=app in (x").status, 400);
}

TEST_F(ApiServerTest, SelectedPagesStillPage) {
  for (int i = 0; i < 6; ++i) AddPod("default", "p" + std::to_string(i), i % 2 ? "gpu-1" : "gpu-2");
  std::vector<std::string> all;
  std::string cont;
  int pages = 0;
  do {
    json page = Get("/api/v1/pods?fieldSelector=spec.nodeName=gpu-1&limit=2" +
                    (cont.empty() ? "" : "&continue=" + cont));
    for (const std::string& n : Names(page)) all.push_back(n);
    cont = page["metadata"].value("continue", "");
    ++pages;
  } while (!cont.empty() && pages < 10);
  EXPECT_EQ(all, (std::vector<std::string>{"p1", "p3", "p5"}));
}

// ---- Tables -------------------------------------------------------------------------------

std::vector<std::string> ColumnNames(const json& table, bool wide) {
  std::vector<std::string> out;
  for (const json& c : table["columnDefinitions"])
    if (wide || c["priority"] == 0) out.push_back(c["name"]);
  return out;
}

TEST_F(ApiServerTest, NodesAsATableForKubectlGet) {
  AddNode("gpu-1", true, {{"node-role.kubernetes.io/worker", ""}}, 5 * 60);
  AddNode("gpu-2", false, json::object(), 2 * 86400 + 3 * 3600, true);
  http::Reply r = Do("GET", "/api/v1/nodes", "", {{"Accept", kKubectlTableAccept}});
  ASSERT_EQ(r.status, 200);
  EXPECT_NE(r.content_type.find("as=Table"), std::string::npos);
  json t = Body(r);
  EXPECT_EQ(t["kind"], "Table");
  EXPECT_EQ(t["apiVersion"], "meta.k8s.io/v1");
  EXPECT_EQ(t["metadata"]["resourceVersion"], std::to_string(store_.resource_version()));
  // kubectl's columns for nodes (wide adds the addresses, OS image, kernel, runtime).
  EXPECT_EQ(ColumnNames(t, false),
            (std::vector<std::string>{"Name", "Status", "Roles", "Age", "Version"}));
  ASSERT_EQ(t["rows"].size(), 2u);
  const json& a = t["rows"][0]["cells"];
  EXPECT_EQ(a[0], "gpu-1");
  EXPECT_EQ(a[1], "Ready");
  EXPECT_EQ(a[2], "worker");
  EXPECT_EQ(a[3], "5m");
  EXPECT_EQ(a[4], "v1.32.4");
  const json& b = t["rows"][1]["cells"];
  EXPECT_EQ(b[1], "NotReady,SchedulingDisabled");
  EXPECT_EQ(b[2], "<none>");
  EXPECT_EQ(b[3], "2d3h");
  // Rows carry the object's metadata by default (kubectl's includeObject default).
  EXPECT_EQ(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  EXPECT_EQ(t["rows"][0]["object"]["metadata"]["name"], "gpu-1");
  json none = Body(Do("GET", "/api/v1/nodes?includeObject=None", "",
                      {{"Accept", "application/json;as=Table;g=meta.k8s.io;v=v1"}}));
  EXPECT_FALSE(none["rows"][0].contains("object"));
  json full = Body(Do("GET", "/api/v1/nodes?includeObject=Object", "",
                      {{"Accept", "application/json;as=Table;g=meta.k8s.io;v=v1"}}));
  EXPECT_EQ(full["rows"][0]["object"]["kind"], "Node");
}

TEST_F(ApiServerTest, PodsAsATable) {
  AddPod("default", "train-0", "gpu-1", json::object(),
         {{"phase", "Pending"},
          {"containerStatuses",
           {{{"name", "main"},
             {"ready", false},
             {"restartCount", 3},
             {"state", {{"waiting", {{"reason", "ContainerCreating"}}}}}}}}});
  json t = Body(Do("GET", "/api/v1/namespaces/default/pods", "",
                   {{"Accept", "application/json;as=Table;g=meta.k8s.io;v=v1"}}));
  EXPECT_EQ(ColumnNames(t, false),
            (std::vector<std::string>{"Name", "Ready", "Status", "Restarts", "Age"}));
  ASSERT_EQ(t["rows"].size(), 1u);
  const json& c = t["rows"][0]["cells"];
  EXPECT_EQ(c[0], "train-0");
  EXPECT_EQ(c[1], "0/1");
  EXPECT_EQ(c[2], "ContainerCreating");
  EXPECT_EQ(c[3], "3");
  EXPECT_EQ(c[4], "60s");
}

TEST_F(ApiServerTest, SingleObjectAsATableAndPlainJsonOtherwise) {
  AddNode("gpu-1");
  json t = Body(Do("GET", "/api/v1/nodes/gpu-1", "", {{"Accept", kKubectlTableAccept}}));
  EXPECT_EQ(t["kind"], "Table");
  ASSERT_EQ(t["rows"].size(), 1u);
  // Without a Table in Accept, or with another group's Table, plain JSON.
  EXPECT_EQ(Body(Do("GET", "/api/v1/nodes/gpu-1", "", {{"Accept", "application/json"}}))["kind"],
            "Node");
}

}  // namespace
}  // namespace steward::kube::testing

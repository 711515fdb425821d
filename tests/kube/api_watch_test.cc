// ApiServer watches: the chunked event stream informers read (kube-api-facts.md §3.4): events in
// version order, selection changes as ADDED/DELETED, initial state, bookmarks, the 410 ERROR
// event past the history window, and the bound on open watches.
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "api_test_util.h"

namespace steward::kube::testing {
namespace {

class ApiWatchTest : public ApiServerTest {
 protected:
  ApiWatchTest() : ApiServerTest(Options()) {}
  static ApiServerOptions Options() {
    ApiServerOptions o;
    o.bookmark_interval = std::chrono::milliseconds(1);
    o.max_watches = 2;
    return o;
  }
  void PutConfigMap(const std::string& ns, const std::string& name, const std::string& v) {
    store_.Commit({{configmaps_, ns, name,
                    json{{"apiVersion", "v1"},
                         {"kind", "ConfigMap"},
                         {"metadata", {{"name", name}, {"namespace", ns}}},
                         {"data", {{"v", v}}}}}});
  }
  static std::vector<std::string> Types(const std::vector<json>& lines) {
    std::vector<std::string> out;
    for (const json& l : lines) out.push_back(l["type"]);
    return out;
  }
};

TEST_F(ApiWatchTest, StreamsEveryChangeAfterTheVersionInOrder) {
  PutConfigMap("default", "before", "0");
  const int64_t from = store_.resource_version();
  PutConfigMap("default", "a", "1");
  AddNode("unrelated");
  PutConfigMap("default", "a", "2");
  PutConfigMap("team-a", "b", "1");
  store_.Commit({{configmaps_, "default", "a", std::nullopt}});

  http::Reply r = Do(
      "GET", "/api/v1/configmaps?watch=1&timeoutSeconds=5&resourceVersion=" + std::to_string(from));
  ASSERT_EQ(r.status, 200);
  const std::vector<json> lines = StreamLines(r, 4);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(Types(lines), (std::vector<std::string>{"ADDED", "MODIFIED", "ADDED", "DELETED"}));
  EXPECT_EQ(lines[0]["object"]["metadata"]["name"], "a");
  EXPECT_EQ(lines[1]["object"]["data"]["v"], "2");
  EXPECT_EQ(lines[2]["object"]["metadata"]["name"], "b");
  EXPECT_EQ(lines[3]["object"]["metadata"]["name"], "a");
  int64_t last = from;
  for (const json& l : lines) {
    const int64_t rv = std::stoll(l["object"]["metadata"]["resourceVersion"].get<std::string>());
    EXPECT_GT(rv, last);
    last = rv;
    EXPECT_EQ(l["object"]["kind"], "ConfigMap");
  }
  EXPECT_EQ(last, store_.resource_version());
}

TEST_F(ApiWatchTest, WithoutAVersionTheCurrentStateComesFirstAsAdded) {
  AddNode("a");
  AddNode("b");
  for (const char* rv : {"", "&resourceVersion=0"}) {
    http::Reply r = Do("GET", std::string("/api/v1/nodes?watch=true&timeoutSeconds=5") + rv);
    AddNode(std::string("live") + (*rv ? "0" : ""));  // After the watch started: a live event.
    const std::vector<json> lines = StreamLines(r, 3);
    ASSERT_EQ(lines.size(), 3u) << rv;
    EXPECT_EQ(Types(lines), (std::vector<std::string>{"ADDED", "ADDED", "ADDED"}));
    EXPECT_EQ(lines[0]["object"]["metadata"]["name"], "a");
    EXPECT_EQ(lines[1]["object"]["metadata"]["name"], "b");
    EXPECT_TRUE(lines[2]["object"]["metadata"]["name"].get<std::string>().starts_with("live"));
  }
}

TEST_F(ApiWatchTest, LeavingOrEnteringTheSelectionIsDeletedOrAdded) {
  AddPod("team-a", "p", "gpu-1", {{"app", "train"}});
  const int64_t from = store_.resource_version();
  AddPod("team-a", "p", "gpu-1", {{"app", "serve"}});  // Leaves the selection.
  AddPod("team-b", "q", "gpu-1", {{"app", "train"}});  // Other namespace.
  AddPod("team-a", "p", "gpu-1", {{"app", "train"}});  // Enters it again.
  AddPod("team-a", "p", "gpu-2", {{"app", "train"}});  // Changes inside it.
  http::Reply r = Do("GET",
                     "/api/v1/namespaces/team-a/pods?watch=1&timeoutSeconds=5&labelSelector=app="
                     "train&resourceVersion=" +
                         std::to_string(from));
  const std::vector<json> lines = StreamLines(r, 3);
  EXPECT_EQ(Types(lines), (std::vector<std::string>{"DELETED", "ADDED", "MODIFIED"}));
}

TEST_F(ApiWatchTest, BookmarksWhenAskedFor) {
  AddNode("a");
  const std::string rv = std::to_string(store_.resource_version());
  http::Reply r = Do("GET",
                     "/api/v1/nodes?watch=1&timeoutSeconds=5&allowWatchBookmarks=true"
                     "&resourceVersion=" +
                         rv);
  const std::vector<json> lines = StreamLines(r, 1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["type"], "BOOKMARK");
  EXPECT_EQ(lines[0]["object"]["kind"], "Node");
  EXPECT_EQ(lines[0]["object"]["metadata"]["resourceVersion"], rv);
}

TEST_F(ApiWatchTest, StartingBeforeTheWindowIsAnErrorEventWith410) {
  AddNode("a");
  const std::string old = std::to_string(store_.resource_version());
  AddNode("b");
  history_now_ += std::chrono::minutes(6);
  http::Reply r = Do("GET", "/api/v1/nodes?watch=1&timeoutSeconds=5&resourceVersion=" + old);
  EXPECT_EQ(r.status, 200) << "the error comes in the stream, as from the API server";
  const std::vector<json> lines = StreamLines(r, 5);
  ASSERT_EQ(lines.size(), 1u) << "the stream ends after the error";
  EXPECT_EQ(lines[0]["type"], "ERROR");
  const json& status = lines[0]["object"];
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["code"], 410);
  EXPECT_EQ(status["reason"], "Expired");
}

TEST_F(ApiWatchTest, SendInitialEventsEndsTheInitialStateWithABookmark) {
  AddNode("a");
  AddNode("b");
  const std::string start = std::to_string(store_.resource_version());
  // It needs resourceVersionMatch=NotOlderThan and bookmarks.
  EXPECT_EQ(
      Do("GET", "/api/v1/nodes?watch=1&sendInitialEvents=true&allowWatchBookmarks=true").status,
      422);
  EXPECT_EQ(
      Do("GET", "/api/v1/nodes?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan")
          .status,
      422);
  http::Reply r = Do("GET",
                     "/api/v1/nodes?watch=1&timeoutSeconds=5&sendInitialEvents=true"
                     "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true");
  AddNode("c");
  std::vector<json> lines = StreamLines(r, 4);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(Types(lines), (std::vector<std::string>{"ADDED", "ADDED", "BOOKMARK", "ADDED"}));
  EXPECT_EQ(lines[2]["object"]["metadata"]["resourceVersion"], start);
  EXPECT_EQ(lines[2]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
  EXPECT_EQ(lines[3]["object"]["metadata"]["name"], "c");
}

// sendInitialEvents=false asks for changes only, even from resourceVersion "" or "0" where a
// legacy watch starts with the whole state (ListOptions.sendInitialEvents in the API reference).
TEST_F(ApiWatchTest, SendInitialEventsFalseStreamsOnlyChanges) {
  AddNode("a");
  // Like true, it needs resourceVersionMatch=NotOlderThan.
  http::Reply unmatched = Do("GET", "/api/v1/nodes?watch=1&sendInitialEvents=false");
  ASSERT_EQ(unmatched.status, 422);
  EXPECT_EQ(Body(unmatched)["details"]["causes"][0]["field"], "resourceVersionMatch");
  int added = 0;
  for (const std::string rv : {"", "&resourceVersion=0"}) {
    http::Reply r = Do("GET",
                       "/api/v1/nodes?watch=1&timeoutSeconds=5&sendInitialEvents=false"
                       "&resourceVersionMatch=NotOlderThan" +
                           rv);
    ASSERT_EQ(r.status, 200) << r.body;
    const std::string name = "new-" + std::to_string(added++);
    AddNode(name);
    const std::vector<json> lines = StreamLines(r, 1);
    ASSERT_EQ(lines.size(), 1u) << rv;
    EXPECT_EQ(lines[0]["type"], "ADDED") << rv;
    EXPECT_EQ(lines[0]["object"]["metadata"]["name"], name) << rv;
  }
  // Without sendInitialEvents, "0" still starts with the state (the legacy rule).
  http::Reply legacy = Do("GET", "/api/v1/nodes?watch=1&timeoutSeconds=5&resourceVersion=0");
  const std::vector<json> lines = StreamLines(legacy, 1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["object"]["metadata"]["name"], "a");
}

TEST_F(ApiWatchTest, WatchRefusesResourceVersionMatchWithoutSendInitialEvents) {
  http::Reply r =
      Do("GET", "/api/v1/nodes?watch=1&resourceVersion=0&resourceVersionMatch=NotOlderThan");
  ASSERT_EQ(r.status, 422);
  EXPECT_NE(Body(r)["message"].get<std::string>().find("unless sendInitialEvents is provided"),
            std::string::npos);
}

TEST_F(ApiWatchTest, TableWatchSendsRows) {
  AddNode("a");
  http::Reply r = Do("GET", "/api/v1/nodes?watch=1&timeoutSeconds=5", "",
                     {{"Accept", "application/json;as=Table;g=meta.k8s.io;v=v1"}});
  AddNode("b");
  const std::vector<json> lines = StreamLines(r, 2);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["object"]["kind"], "Table");
  EXPECT_TRUE(lines[0]["object"].contains("columnDefinitions"));
  EXPECT_EQ(lines[1]["object"]["rows"][0]["cells"][0], "b");
}

TEST_F(ApiWatchTest, TooManyWatchesIs429WithRetryAfter) {
  AddNode("a");  // Initial state to write, so a stream told "client gone" ends at once.
  http::Reply w1 = Do("GET", "/api/v1/nodes?watch=1&timeoutSeconds=5");
  http::Reply w2 = Do("GET", "/api/v1/nodes?watch=1&timeoutSeconds=5");
  ASSERT_TRUE(w1.stream && w2.stream);
  EXPECT_EQ(api_.open_watches(), 2);
  http::Reply refused = Do("GET", "/api/v1/nodes?watch=1&timeoutSeconds=5");
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(Body(refused)["reason"], "TooManyRequests");
  EXPECT_FALSE(refused.Header("Retry-After").empty());
  // A finished stream gives its slot back.
  StreamLines(w1, 0);
  EXPECT_EQ(api_.open_watches(), 1);
}

TEST_F(ApiWatchTest, AWatchNeverStreamedGivesItsSlotBack) {
  // The transport may drop a reply without streaming it (the client went away first).
  { http::Reply dropped = Do("GET", "/api/v1/nodes?watch=1&timeoutSeconds=5"); }
  { http::Reply dropped = Do("GET", "/api/v1/nodes?watch=1&timeoutSeconds=5"); }
  EXPECT_EQ(api_.open_watches(), 0);
  EXPECT_EQ(Do("GET", "/api/v1/nodes?watch=1&timeoutSeconds=5").status, 200);
}

TEST_F(ApiWatchTest, ClosingTheStoreEndsWatches) {
  http::Reply r = Do("GET", "/api/v1/nodes?watch=1&timeoutSeconds=600&resourceVersion=" +
                                std::to_string(store_.resource_version()));
  auto closer = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    store_.Close();
  });
  auto streamed = std::async(std::launch::async, [&] { return StreamLines(r, 100); });
  ASSERT_EQ(streamed.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  for (const json& l : streamed.get()) EXPECT_NE(l["type"], "ERROR");
}

TEST_F(ApiWatchTest, WatchIsForCollections) {
  AddNode("a");
  http::Reply r = Do("GET", "/api/v1/nodes/a?watch=1");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(Do("GET", "/api/v1/nodes?watch=1&resourceVersion=x").status, 400);
}

}  // namespace
}  // namespace steward::kube::testing

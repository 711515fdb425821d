// A watch with bookmarks ends with one (kube-api-facts.md §3.4): the API server's watch cache
// sends a bookmark just before a watch's timeout, so a client whose selection saw no event
// re-watches from a recent version instead of an old one the history window may have dropped.
#include <gtest/gtest.h>

#include "api_test_util.h"

namespace steward::kube::testing {
namespace {

// The fixture's default bookmark interval (10 s) is longer than these 1 s watches: a bookmark
// seen here is the one sent at the deadline.
class ApiWatchDeadlineTest : public ApiServerTest {
 protected:
  void PutConfigMap(const std::string& name) {
    store_.Commit({{configmaps_, "default", name,
                    json{{"apiVersion", "v1"},
                         {"kind", "ConfigMap"},
                         {"metadata", {{"name", name}, {"namespace", "default"}}}}}});
  }
};

TEST_F(ApiWatchDeadlineTest, EndsWithABookmarkAtTheLatestVersionSeen) {
  AddNode("a");
  const int64_t from = store_.resource_version();
  PutConfigMap("other-1");  // Changes the node watch does not select.
  PutConfigMap("other-2");
  const http::Reply r = Do("GET",
                           "/api/v1/nodes?watch=1&timeoutSeconds=1&allowWatchBookmarks=true"
                           "&resourceVersion=" +
                               std::to_string(from));
  const std::vector<json> lines = StreamLines(r, 10);
  ASSERT_EQ(lines.size(), 1u) << "no node changed: only the deadline's bookmark";
  EXPECT_EQ(lines[0]["type"], "BOOKMARK");
  EXPECT_EQ(lines[0]["object"]["kind"], "Node");
  EXPECT_EQ(lines[0]["object"]["metadata"]["resourceVersion"],
            std::to_string(store_.resource_version()));
}

TEST_F(ApiWatchDeadlineTest, AfterTheLastEventTheBookmarkIsNotOlder) {
  const int64_t from = store_.resource_version();
  AddNode("a");
  PutConfigMap("other");
  const http::Reply r = Do("GET",
                           "/api/v1/nodes?watch=1&timeoutSeconds=1&allowWatchBookmarks=true"
                           "&resourceVersion=" +
                               std::to_string(from));
  const std::vector<json> lines = StreamLines(r, 10);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["type"], "ADDED");
  EXPECT_EQ(lines[1]["type"], "BOOKMARK");
  EXPECT_GT(std::stoll(lines[1]["object"]["metadata"]["resourceVersion"].get<std::string>()),
            std::stoll(lines[0]["object"]["metadata"]["resourceVersion"].get<std::string>()));
}

TEST_F(ApiWatchDeadlineTest, NoBookmarkUnlessAskedFor) {
  AddNode("a");
  const int64_t from = store_.resource_version();
  PutConfigMap("other");
  const http::Reply r =
      Do("GET", "/api/v1/nodes?watch=1&timeoutSeconds=1&resourceVersion=" + std::to_string(from));
  EXPECT_TRUE(StreamLines(r, 10).empty());
}

}  // namespace
}  // namespace steward::kube::testing

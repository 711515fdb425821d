#include "live/informer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "live_test_util.h"

namespace steward::live {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using testing::Eventually;
using testing::KubeTestServer;

std::string Name(const json& o) { return o["metadata"]["name"].get<std::string>(); }

// Records what the handlers were told, by object name.
struct Recorder {
  std::mutex mu;
  std::map<std::string, int> adds, updates, deletes;
  int synced = 0;
  InformerHandlers Handlers() {
    return {.on_add = [this](const json& o) { Bump(adds, Name(o)); },
            .on_update = [this](const json&, const json& o) { Bump(updates, Name(o)); },
            .on_delete = [this](const json& o) { Bump(deletes, Name(o)); },
            .on_synced =
                [this] {
                  std::lock_guard<std::mutex> lock(mu);
                  ++synced;
                }};
  }
  void Bump(std::map<std::string, int>& m, const std::string& name) {
    std::lock_guard<std::mutex> lock(mu);
    ++m[name];
  }
  int Count(std::map<std::string, int>& m, const std::string& name) {
    std::lock_guard<std::mutex> lock(mu);
    return m.count(name) ? m[name] : 0;
  }
  size_t Size(std::map<std::string, int>& m) {
    std::lock_guard<std::mutex> lock(mu);
    return m.size();
  }
};

class InformerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KubeClientOptions o;
    o.initial_backoff = milliseconds(10);
    o.max_backoff = milliseconds(50);
    o.qps = 0;  // Unlimited: the informer tests measure behaviour, not pacing.
    auto c = KubeClient::Create(server_->Config(), o);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    client_ = std::move(c).value();
  }
  InformerOptions Options(ResourceRef ref) {
    InformerOptions o;
    o.resource = std::move(ref);
    o.page_size = 2;
    o.initial_backoff = milliseconds(10);
    o.max_backoff = milliseconds(40);
    return o;
  }
  std::unique_ptr<KubeTestServer> server_ =
      std::make_unique<KubeTestServer>(testing::KubeTestServerOptions{.max_history_events = 4});
  std::unique_ptr<KubeClient> client_;
  Recorder rec_;
};

TEST_F(InformerTest, ListsInPagesThenFollowsTheWatch) {
  for (const char* n : {"a", "b", "c"}) server_->PutNode(n);
  Informer informer(client_.get(), Options(ResourceRef::Core("nodes", false)), rec_.Handlers());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(std::chrono::seconds(10)));
  EXPECT_EQ(informer.List().size(), 3u);
  EXPECT_EQ(rec_.Size(rec_.adds), 3u);

  server_->PutNode("b", {{"gpu", "h100"}});  // MODIFIED
  server_->PutNode("d");                     // ADDED
  server_->DeleteNode("a");                  // DELETED
  ASSERT_TRUE(Eventually([&] { return rec_.Count(rec_.deletes, "a") == 1; }));
  EXPECT_EQ(rec_.Count(rec_.updates, "b"), 1);
  EXPECT_EQ(rec_.Count(rec_.adds, "d"), 1);
  EXPECT_FALSE(informer.Get("", "a").has_value());
  ASSERT_TRUE(informer.Get("", "b").has_value());
  EXPECT_EQ((*informer.Get("", "b"))["metadata"]["labels"]["gpu"], "h100");
  const Informer::Stats s = informer.stats();
  EXPECT_EQ(s.lists, 1);
  EXPECT_EQ(s.relists_after_gone, 0);
  EXPECT_EQ(s.events, 3);
  EXPECT_EQ(s.resource_version, std::to_string(server_->store().resource_version()));
  informer.Stop();
}

// A burst of changes larger than the server's history window cuts the watch with 410: the
// informer re-lists and delivers every change it had not seen, as adds, updates and deletes.
TEST_F(InformerTest, RelistsOnGoneWithoutMissingAChange) {
  for (const char* n : {"keep", "change", "remove"}) server_->PutNode(n);
  Informer informer(client_.get(), Options(ResourceRef::Core("nodes", false)), rec_.Handlers());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(std::chrono::seconds(10)));
  ASSERT_TRUE(Eventually([&] { return server_->api().open_watches() == 1; }));

  std::vector<kube::ObjectStore::Change> burst;
  for (int i = 0; i < 8; ++i) {
    const std::string name = "new-" + std::to_string(i);
    burst.push_back({server_->nodes_id(), "", name,
                     json{{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}}}});
  }
  burst.push_back({server_->nodes_id(), "", "change",
                   json{{"apiVersion", "v1"},
                        {"kind", "Node"},
                        {"metadata", {{"name", "change"}, {"labels", {{"v", "2"}}}}}}});
  burst.push_back({server_->nodes_id(), "", "remove", std::nullopt});
  server_->store().Commit(std::move(burst));

  ASSERT_TRUE(Eventually([&] { return informer.stats().relists_after_gone >= 1; }))
      << informer.stats().last_error;
  ASSERT_TRUE(Eventually([&] { return rec_.Count(rec_.deletes, "remove") == 1; }));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(rec_.Count(rec_.adds, "new-" + std::to_string(i)), 1) << i;
  EXPECT_EQ(rec_.Count(rec_.updates, "change"), 1);
  EXPECT_EQ(rec_.Count(rec_.updates, "keep"), 0);  // Unchanged: no spurious update.
  EXPECT_EQ(informer.List().size(), 10u);
  EXPECT_EQ((*informer.Get("", "change"))["metadata"]["labels"]["v"], "2");
  EXPECT_GE(informer.stats().lists, 2);
  EXPECT_THAT(informer.stats().last_error, ::testing::HasSubstr("410"));

  // And it keeps watching after the re-list.
  server_->PutNode("after");
  ASSERT_TRUE(Eventually([&] { return rec_.Count(rec_.adds, "after") == 1; }));
  informer.Stop();
}

TEST_F(InformerTest, FilterTurnsAnObjectThatStopsMatchingIntoADelete) {
  server_->PutPod("team-a", "train", "n1", /*gpus=*/2);
  server_->PutPod("team-a", "web", "n1", /*gpus=*/0);
  InformerOptions o = Options(ResourceRef::Core("pods", true));
  o.filter = [](const json& pod) { return pod["spec"]["containers"][0].contains("resources"); };
  Informer informer(client_.get(), o, rec_.Handlers());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(std::chrono::seconds(10)));
  ASSERT_EQ(informer.List().size(), 1u);
  EXPECT_TRUE(informer.Get("team-a", "train").has_value());
  server_->PutPod("team-a", "train", "n1", /*gpus=*/0);
  ASSERT_TRUE(Eventually([&] { return rec_.Count(rec_.deletes, "train") == 1; }));
  EXPECT_TRUE(informer.List().empty());
  informer.Stop();
}

TEST_F(InformerTest, RewatchesWhenTheServerEndsTheStream) {
  server_->PutNode("a");
  InformerOptions o = Options(ResourceRef::Core("nodes", false));
  o.watch_timeout = std::chrono::seconds(1);
  Informer informer(client_.get(), o, rec_.Handlers());
  informer.Start();
  ASSERT_TRUE(Eventually([&] { return informer.stats().watches >= 2; }));
  EXPECT_EQ(informer.stats().lists, 1);  // Resumed from its version, not re-listed.
  server_->PutNode("b");
  ASSERT_TRUE(Eventually([&] { return rec_.Count(rec_.adds, "b") == 1; }));
  informer.Stop();
}

TEST_F(InformerTest, BacksOffWhileTheServerIsDownAndStopsPromptly) {
  RestConfig config = server_->Config();
  server_.reset();  // Nothing listens any more.
  KubeClientOptions co;
  co.max_retries = 0;
  co.qps = 0;
  auto client = KubeClient::Create(config, co);
  ASSERT_TRUE(client.ok());
  Informer informer(client->get(), Options(ResourceRef::Core("nodes", false)), rec_.Handlers());
  informer.Start();
  ASSERT_TRUE(Eventually([&] { return informer.stats().failures >= 3; }));
  EXPECT_FALSE(informer.synced());
  EXPECT_THAT(informer.stats().last_error, ::testing::HasSubstr("list /api/v1/nodes"));
  EXPECT_FALSE(informer.WaitForSync(milliseconds(20)));
  informer.Stop();
}

}  // namespace
}  // namespace steward::live

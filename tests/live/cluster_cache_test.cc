#include "live/cluster_cache.h"

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

std::set<std::string> Names(const std::vector<kube::Pod>& pods) {
  std::set<std::string> out;
  for (const kube::Pod& p : pods) out.insert(p.metadata.namespace_name + "/" + p.metadata.name);
  return out;
}

class ClusterCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.PutNamespace("team-a");
    server_.PutNamespace("team-b");
    server_.PutNode("gpu-1");
    server_.PutNode("gpu-2");
    server_.PutPod("team-a", "train-0", "gpu-1", 4, "Job", "train");
    server_.PutPod("team-a", "train-1", "gpu-2", 4, "Job", "train");
    server_.PutPod("team-b", "infer", "gpu-1", 1, "ReplicaSet", "infer-7f9");
    server_.PutPod("team-b", "web", "gpu-2", 0, "ReplicaSet", "web-1");  // No GPU.
    server_.PutClusterQueue("cq-a", 16);
    KubeClientOptions o;
    o.qps = 0;
    auto c = KubeClient::Create(server_.Config(), o);
    ASSERT_TRUE(c.ok());
    client_ = std::move(c).value();
  }
  std::unique_ptr<ClusterCache> Start(ClusterCacheOptions o = {}) {
    o.informer.initial_backoff = milliseconds(10);
    o.informer.max_backoff = milliseconds(40);
    auto cache = ClusterCache::Start(client_.get(), std::move(o));
    EXPECT_TRUE(cache.ok()) << cache.status().ToString();
    EXPECT_TRUE((*cache)->WaitForSync(std::chrono::seconds(20)));
    return std::move(cache).value();
  }
  KubeTestServer server_;
  std::unique_ptr<KubeClient> client_;
};

TEST_F(ClusterCacheTest, HoldsGpuPodsWithIndexesAndDecodedObjects) {
  auto cache = Start();
  EXPECT_EQ(cache->Nodes().size(), 2u);
  ASSERT_TRUE(cache->GetNode("gpu-1").has_value());
  EXPECT_EQ(cache->GetNode("gpu-1")->GpuCapacity(), 8);
  EXPECT_EQ(Names(cache->Pods()),
            (std::set<std::string>{"team-a/train-0", "team-a/train-1", "team-b/infer"}));
  EXPECT_EQ(Names(cache->PodsOnNode("gpu-1")),
            (std::set<std::string>{"team-a/train-0", "team-b/infer"}));
  EXPECT_EQ(Names(cache->PodsInNamespace("team-a")),
            (std::set<std::string>{"team-a/train-0", "team-a/train-1"}));
  EXPECT_EQ(Names(cache->PodsOwnedBy("team-a", "Job", "train")),
            (std::set<std::string>{"team-a/train-0", "team-a/train-1"}));
  EXPECT_TRUE(cache->PodsOwnedBy("team-b", "Job", "train").empty());
  ASSERT_TRUE(cache->GetPod("team-a", "train-0").has_value());
  EXPECT_EQ(cache->GetPod("team-a", "train-0")->GpuRequest(), 4);
  EXPECT_FALSE(cache->GetPod("team-b", "web").has_value());
  EXPECT_EQ(cache->Namespaces().size(), 2u);
  EXPECT_EQ(cache->decode_errors(), 0);
  cache->Stop();
}

TEST_F(ClusterCacheTest, DiscoversKueueButNotVolcano) {
  auto cache = Start();
  std::set<std::string> custom;
  for (const ResourceRef& r : cache->custom_resources()) custom.insert(r.Name());
  EXPECT_TRUE(custom.count("clusterqueues.kueue.x-k8s.io"));
  EXPECT_TRUE(custom.count("workloads.kueue.x-k8s.io"));
  EXPECT_FALSE(custom.count("podgroups.scheduling.volcano.sh"));
  EXPECT_TRUE(cache->Serves("clusterqueues"));
  EXPECT_FALSE(cache->Serves("podgroups"));
  EXPECT_TRUE(cache->Custom("podgroups").empty());
  ASSERT_EQ(cache->Custom("clusterqueues").size(), 1u);
  std::optional<json> cq = cache->GetCustom("clusterqueues", "", "cq-a");
  ASSERT_TRUE(cq.has_value());
  EXPECT_EQ((*cq)["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"], 16);
  EXPECT_TRUE(cache->Custom("leases").empty());  // Built-in kinds are not "custom".
  cache->Stop();
}

TEST_F(ClusterCacheTest, IndexesFollowChanges) {
  std::mutex mu;
  std::vector<CacheChange> changes;
  ClusterCacheOptions o;
  o.on_change = [&](const CacheChange& c) {
    std::lock_guard<std::mutex> lock(mu);
    changes.push_back(c);
  };
  auto cache = Start(o);
  // train-0 is rescheduled to gpu-2; infer is deleted; a new GPU pod appears; web gains a GPU.
  server_.PutPod("team-a", "train-0", "gpu-2", 4, "Job", "train");
  server_.DeletePod("team-b", "infer");
  server_.PutPod("team-b", "new", "gpu-1", 2);
  server_.PutPod("team-b", "web", "gpu-2", 1, "ReplicaSet", "web-1");
  ASSERT_TRUE(Eventually([&] { return cache->PodsOnNode("gpu-2").size() == 3; }));
  ASSERT_TRUE(Eventually([&] { return cache->PodsOnNode("gpu-1").size() == 1; }));
  EXPECT_EQ(Names(cache->PodsOnNode("gpu-1")), (std::set<std::string>{"team-b/new"}));
  EXPECT_EQ(Names(cache->PodsOnNode("gpu-2")),
            (std::set<std::string>{"team-a/train-0", "team-a/train-1", "team-b/web"}));
  EXPECT_TRUE(cache->PodsOwnedBy("team-b", "ReplicaSet", "infer-7f9").empty());
  EXPECT_EQ(Names(cache->PodsInNamespace("team-b")),
            (std::set<std::string>{"team-b/new", "team-b/web"}));
  std::lock_guard<std::mutex> lock(mu);
  bool saw_delete = false;
  for (const CacheChange& c : changes)
    saw_delete |= c.resource == "pods" && c.type == "DELETED" && c.name == "infer";
  EXPECT_TRUE(saw_delete);
  cache->Stop();
}

TEST_F(ClusterCacheTest, AllPodsOptionKeepsPodsWithoutGpus) {
  ClusterCacheOptions o;
  o.all_pods = true;
  auto cache = Start(o);
  EXPECT_EQ(cache->Pods().size(), 4u);
  EXPECT_TRUE(cache->GetPod("team-b", "web").has_value());
  cache->Stop();
}

TEST_F(ClusterCacheTest, FailedDiscoveryIsAnError) {
  RestConfig unreachable;
  unreachable.server = "http://127.0.0.1:1";
  KubeClientOptions o;
  o.max_retries = 0;
  auto client = KubeClient::Create(unreachable, o);
  ASSERT_TRUE(client.ok());
  auto cache = ClusterCache::Start(client->get());
  ASSERT_FALSE(cache.ok());
  EXPECT_THAT(cache.status().message(), ::testing::HasSubstr("discovery /apis"));
}

}  // namespace
}  // namespace steward::live

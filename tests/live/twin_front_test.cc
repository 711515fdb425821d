// The live client, informers and cache against the twin's Kubernetes API front (what
// `steward serve --kube-port` runs), in-process, over TLS with a self-signed certificate and a
// bearer token: from the kubeconfig the front writes, and from an exec-plugin kubeconfig.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../server/server_test_util.h"
#include "kubefront/kube_front.h"
#include "live/cluster_cache.h"
#include "live/kube_client.h"
#include "live/kubeconfig.h"
#include "live/live_control.h"
#include "live_test_util.h"

namespace steward::live {
namespace {

using nlohmann::json;
using testing::Eventually;
using testing::TempDir;
using testing::TestCerts;
namespace fs = std::filesystem;

constexpr char kToken[] = "twin-token-123";

class TwinFrontTest : public ::testing::Test {
 protected:
  void SetUp() override {
    live_ = server::testing::MakeKueueLive();
    kubefront::KubeFrontOptions o;
    o.token = kToken;
    o.tls_cert_file = TestCerts::Get().self_signed_cert.string();
    o.tls_key_file = TestCerts::Get().self_signed_key.string();
    o.epoch_micros = testing::FakeClock::kWallStart;
    front_ = std::make_unique<kubefront::KubeFront>(live_.get(), o);
    Result<int> port = front_->Start();
    ASSERT_TRUE(port.ok()) << port.status().ToString();
    live_->Step(SimDuration::Micros(60'000'000));  // Kueue admits; the pods start.
    kubeconfig_ = dir_.path() / "kubeconfig";
    ASSERT_TRUE(front_->WriteKubeconfig(kubeconfig_.string()).ok());
  }
  void TearDown() override {
    if (front_) front_->Stop();
  }
  std::unique_ptr<KubeClient> Client(const fs::path& kubeconfig) {
    Result<RestConfig> config = LoadKubeconfig(kubeconfig);
    EXPECT_TRUE(config.ok()) << config.status().ToString();
    KubeClientOptions o;
    o.qps = 0;
    auto client = KubeClient::Create(*config, o);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return std::move(client).value();
  }

  TempDir dir_;
  std::unique_ptr<server::LiveTwin> live_;
  std::unique_ptr<kubefront::KubeFront> front_;
  fs::path kubeconfig_;
};

TEST_F(TwinFrontTest, CacheMirrorsTheTwinAndSeesACordon) {
  auto client = Client(kubeconfig_);
  ClusterCacheOptions options;
  options.informer.initial_backoff = std::chrono::milliseconds(10);
  auto cache_or = ClusterCache::Start(client.get(), options);
  ASSERT_TRUE(cache_or.ok()) << cache_or.status().ToString();
  ClusterCache& cache = **cache_or;
  ASSERT_TRUE(cache.WaitForSync(std::chrono::seconds(20)));

  // What the cache holds equals what a direct list says.
  ApiResult nodes = client->List("/api/v1/nodes");
  ASSERT_TRUE(nodes.ok()) << nodes.error().message;
  EXPECT_EQ(cache.Nodes().size(), nodes.value()["items"].size());
  EXPECT_EQ(cache.Nodes().size(), 2u);
  ApiResult pods = client->List("/api/v1/pods");
  ASSERT_TRUE(pods.ok());
  size_t gpu_pods = 0;
  for (const json& p : pods.value()["items"]) {
    kube::JsonDecoder d("pod");
    gpu_pods += kube::DecodePod(d, p).GpuRequest() > 0;
  }
  ASSERT_GT(gpu_pods, 0u);
  EXPECT_EQ(cache.Pods().size(), gpu_pods);
  for (const kube::Pod& p : cache.Pods()) {
    if (p.node_name.empty()) continue;
    bool indexed = false;
    for (const kube::Pod& q : cache.PodsOnNode(p.node_name))
      indexed |= q.metadata.name == p.metadata.name;
    EXPECT_TRUE(indexed) << p.metadata.name;
  }
  EXPECT_TRUE(cache.Serves("clusterqueues"));
  EXPECT_EQ(cache.Custom("clusterqueues").size(), 2u);

  // A server-side dry-run cordon changes nothing; a real one reaches the cache by the watch.
  const std::string node = cache.Nodes().front().metadata.name;
  ASSERT_FALSE(cache.GetNode(node)->unschedulable);
  const std::string path = ResourceRef::Core("nodes", false).Path("", node);
  const json cordon = {{"spec", {{"unschedulable", true}}}};
  ApiResult dry = client->Patch(path, PatchType::kStrategicMerge, cordon, {.dry_run = true});
  ASSERT_TRUE(dry.ok()) << dry.error().message;
  EXPECT_EQ(dry.value()["spec"]["unschedulable"], true);
  ApiResult wet = client->Patch(path, PatchType::kStrategicMerge, cordon);
  ASSERT_TRUE(wet.ok()) << wet.error().message;
  ASSERT_TRUE(Eventually([&] { return cache.GetNode(node)->unschedulable; }));
  cache.Stop();
}

TEST_F(TwinFrontTest, ExecPluginKubeconfigOverTls) {
  dir_.Write("bin/token-plugin",
             "#!/bin/sh\n"
             "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
             "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"" +
                 std::string(kToken) + "\",\"expirationTimestamp\":\"2099-01-01T00:00:00Z\"}}'\n",
             /*executable=*/true);
  fs::copy_file(TestCerts::Get().self_signed_cert, dir_.path() / "twin-ca.crt");
  const fs::path kc = dir_.Write(
      "exec-kubeconfig",
      "apiVersion: v1\nkind: Config\ncurrent-context: twin-exec\n"
      "contexts: [{name: twin-exec, context: {cluster: twin, user: plugin, namespace: team-a}}]\n"
      "clusters: [{name: twin, cluster: {server: \"https://127.0.0.1:" +
          std::to_string(front_->port()) +
          "\", certificate-authority: twin-ca.crt}}]\n"
          "users:\n- name: plugin\n  user:\n    exec:\n"
          "      apiVersion: client.authentication.k8s.io/v1beta1\n"
          "      command: bin/token-plugin\n");
  auto client = Client(kc);
  EXPECT_EQ(client->config().namespace_name, "team-a");
  ApiResult cqs = client->List("/apis/kueue.x-k8s.io/v1beta1/clusterqueues");
  ASSERT_TRUE(cqs.ok()) << cqs.error().message;
  EXPECT_EQ(cqs.value()["items"].size(), 2u);
  EXPECT_EQ(client->stats().credential_runs, 1);

  // The same server refuses a client without the token.
  RestConfig anonymous = client->config();
  anonymous.exec.reset();
  auto bare = KubeClient::Create(anonymous);
  ASSERT_TRUE(bare.ok());
  ApiResult refused = (*bare)->Get("/api/v1/nodes");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, 401);
}

}  // namespace
}  // namespace steward::live

namespace steward::live {
namespace {

// Quota patches through the control interface: the resourceVersion read travels with the patch,
// so another writer's change in between is a 409 (Aborted), never overwritten.
TEST_F(TwinFrontTest, QueueQuotaPatchCarriesTheVersionRead) {
  auto client = Client(kubeconfig_);
  auto cache_or = ClusterCache::Start(client.get(), {});
  ASSERT_TRUE(cache_or.ok()) << cache_or.status().ToString();
  ClusterCache& cache = **cache_or;
  ASSERT_TRUE(cache.WaitForSync(std::chrono::seconds(20)));
  LiveClusterControl control(client.get(), &cache, {});

  std::vector<control::QueueInfo> queues = control.ClusterQueues();
  ASSERT_EQ(queues.size(), 2u);
  EXPECT_EQ(queues[0].name, "team-a");
  EXPECT_EQ(queues[0].cohort, "org");
  ASSERT_EQ(queues[0].quotas.size(), 1u);
  const control::QueueQuota q = queues[0].quotas[0];
  EXPECT_EQ(q.flavor, "h100");
  EXPECT_EQ(q.resource, "nvidia.com/gpu");
  EXPECT_EQ(q.nominal, "8");
  const std::string read_at = queues[0].resource_version;

  control::QueueQuota more = q;
  more.nominal = "16";
  ASSERT_TRUE(control.PatchQueueQuota("team-a", read_at, more, "test").ok());
  auto nominal_now = [&] {
    for (const control::QueueInfo& i : control.ClusterQueues())
      if (i.name == "team-a") return i.quotas[0].nominal;
    return std::string();
  };
  ASSERT_TRUE(Eventually([&] { return nominal_now() == "16"; }));

  // The version read before that change is stale now: refused before anything is sent.
  more.nominal = "4";
  EXPECT_EQ(control.PatchQueueQuota("team-a", read_at, more, "test").code(),
            Status::Code::kAborted);
  EXPECT_EQ(nominal_now(), "16");

  // Another writer changes the queue while this cache does not see it (stopped): the API
  // server's 409 comes back as Aborted.
  const std::string current = control.ClusterQueues()[0].resource_version;
  cache.Stop();
  const json other = json::parse(R"({"spec": {"resourceGroups": [{
      "coveredResources": ["nvidia.com/gpu"],
      "flavors": [{"name": "h100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "12"}]}]
  }]}})");
  ApiResult changed =
      client->Patch("/apis/kueue.x-k8s.io/v1beta1/clusterqueues/team-a", PatchType::kMerge, other);
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  more.nominal = "20";
  Status s = control.PatchQueueQuota("team-a", current, more, "test");
  EXPECT_EQ(s.code(), Status::Code::kAborted) << s.ToString();
  ApiResult now = client->Get("/apis/kueue.x-k8s.io/v1beta1/clusterqueues/team-a");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now.value()["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"],
            "12");
}

// The tidal controller's lendingLimit form on a live cluster: the same merge patch of
// spec.resourceGroups as a nominal change, with the resource's lendingLimit set (or removed),
// resourceVersion-checked; the twin's front applies it to the ClusterQueue Kueue admits by.
TEST_F(TwinFrontTest, QueueLendingLimitPatchReachesTheClusterQueue) {
  auto client = Client(kubeconfig_);
  auto cache_or = ClusterCache::Start(client.get(), {});
  ASSERT_TRUE(cache_or.ok()) << cache_or.status().ToString();
  ClusterCache& cache = **cache_or;
  ASSERT_TRUE(cache.WaitForSync(std::chrono::seconds(20)));
  LiveClusterControl control(client.get(), &cache, {});
  auto team_b = [&] {
    for (const control::QueueInfo& i : control.ClusterQueues())
      if (i.name == "team-b") return i;
    return control::QueueInfo{};
  };
  control::QueueInfo q = team_b();
  ASSERT_EQ(q.quotas.size(), 1u);
  EXPECT_FALSE(q.quotas[0].lending_limit.has_value());  // Everything lendable.
  control::QueueQuota quota = q.quotas[0];
  quota.lending_limit = "0";
  Status s = control.PatchQueueQuota("team-b", q.resource_version, quota, "tidal-lend");
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(Eventually([&] { return team_b().quotas[0].lending_limit == "0"; }));
  ApiResult now = client->Get("/apis/kueue.x-k8s.io/v1beta1/clusterqueues/team-b");
  ASSERT_TRUE(now.ok());
  const json& r = now.value()["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0];
  EXPECT_EQ(r["lendingLimit"], "0");
  EXPECT_EQ(r["nominalQuota"], "8");
  // Above the nominal quota: Kueue's validation refuses it, nothing changes.
  q = team_b();
  quota.lending_limit = "16";
  EXPECT_FALSE(control.PatchQueueQuota("team-b", q.resource_version, quota, "tidal-lend").ok());
  EXPECT_EQ(team_b().quotas[0].lending_limit, std::optional<std::string>("0"));
  // Removed: the key leaves the patch's resource, and the queue lends everything again.
  quota.lending_limit.reset();
  s = control.PatchQueueQuota("team-b", q.resource_version, quota, "tidal-reclaim");
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(Eventually([&] { return !team_b().quotas[0].lending_limit.has_value(); }));
}

}  // namespace
}  // namespace steward::live

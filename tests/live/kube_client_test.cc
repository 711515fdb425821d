#include "live/kube_client.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "live_test_util.h"

namespace steward::live {
namespace {

using std::chrono::milliseconds;
using testing::FakeClock;
using ::testing::HasSubstr;
using testing::KubeTestServer;
using testing::TempDir;
namespace fs = std::filesystem;

// A plain httplib server whose answers a test scripts, recording what it was sent.
class ScriptedServer {
 public:
  using Answer = std::function<void(const httplib::Request&, httplib::Response&, int call)>;
  explicit ScriptedServer(Answer answer) : answer_(std::move(answer)) {
    auto handle = [this](const httplib::Request& req, httplib::Response& res) {
      int call;
      {
        std::lock_guard<std::mutex> lock(mu_);
        call = static_cast<int>(requests_.size());
        requests_.push_back(req);
      }
      answer_(req, res, call);
    };
    server_.Get(".*", handle);
    server_.Post(".*", handle);
    server_.Patch(".*", handle);
    server_.Put(".*", handle);
    server_.Delete(".*", handle);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(milliseconds(1));
  }
  ~ScriptedServer() {
    server_.stop();
    thread_.join();
  }
  RestConfig Config() const {
    RestConfig c;
    c.source = "test";
    c.server = "http://127.0.0.1:" + std::to_string(port_);
    return c;
  }
  std::vector<httplib::Request> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  int calls() { return static_cast<int>(requests().size()); }

 private:
  Answer answer_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::vector<httplib::Request> requests_;
};

void StatusReply(httplib::Response& res, int code, const std::string& reason) {
  res.status = code;
  res.set_content(nlohmann::json{{"kind", "Status"},
                                 {"apiVersion", "v1"},
                                 {"status", "Failure"},
                                 {"code", code},
                                 {"reason", reason},
                                 {"message", reason + " from the test server"}}
                      .dump(),
                  "application/json");
}

class KubeClientTest : public ::testing::Test {
 protected:
  KubeClientOptions Options() {
    KubeClientOptions o;
    o.clock = &clock_;
    o.max_retries = 3;
    o.initial_backoff = milliseconds(100);
    o.max_backoff = milliseconds(5000);
    o.connect_timeout = milliseconds(2000);
    o.read_timeout = milliseconds(5000);
    return o;
  }
  std::unique_ptr<KubeClient> Client(RestConfig config) { return Client(config, Options()); }
  std::unique_ptr<KubeClient> Client(RestConfig config, KubeClientOptions o) {
    Result<std::unique_ptr<KubeClient>> c = KubeClient::Create(std::move(config), o);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : nullptr;
  }
  FakeClock clock_;
};

TEST_F(KubeClientTest, RetriesA429AfterRetryAfterThenSucceeds) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, int call) {
    if (call == 0) {
      StatusReply(res, 429, "TooManyRequests");
      res.set_header("Retry-After", "3");
      return;
    }
    res.set_content(R"({"kind":"NodeList","items":[]})", "application/json");
  });
  auto client = Client(server.Config());
  ApiResult r = client->Get("/api/v1/nodes");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value()["kind"], "NodeList");
  EXPECT_EQ(server.calls(), 2);
  // The wait is what the server asked for, not the 100 ms first backoff.
  EXPECT_EQ(clock_.slept(), std::chrono::seconds(3));
  EXPECT_EQ(client->stats().retries, 1);
}

TEST_F(KubeClientTest, RetryAfterInTheStatusBodyCountsToo) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, int call) {
    if (call == 0) {
      res.status = 429;
      res.set_content(R"({"kind":"Status","code":429,"reason":"TooManyRequests",
                          "details":{"retryAfterSeconds":2}})",
                      "application/json");
      return;
    }
    res.set_content(R"({"kind":"Status","status":"Success"})", "application/json");
  });
  auto client = Client(server.Config());
  ApiResult r = client->Create("/api/v1/namespaces/a/pods/p/eviction", {{"kind", "Eviction"}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(server.calls(), 2);
  EXPECT_EQ(clock_.slept(), std::chrono::seconds(2));
}

TEST_F(KubeClientTest, RetriesAreBoundedWithExponentialBackoff) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, int) {
    StatusReply(res, 503, "ServiceUnavailable");
  });
  auto client = Client(server.Config());
  ApiResult r = client->Get("/api/v1/nodes");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, 503);
  EXPECT_EQ(r.error().reason, "ServiceUnavailable");
  EXPECT_EQ(server.calls(), 4);  // 1 + max_retries.
  EXPECT_EQ(clock_.slept(), milliseconds(100 + 200 + 400));
}

TEST_F(KubeClientTest, LongRetryAfterIsCappedAtMaxBackoff) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, int call) {
    StatusReply(res, call == 0 ? 429 : 200, call == 0 ? "TooManyRequests" : "");
    if (call == 0) res.set_header("Retry-After", "3600");
  });
  auto client = Client(server.Config());
  (void)client->Get("/api/v1/nodes");
  EXPECT_EQ(clock_.slept(), milliseconds(5000));
}

TEST_F(KubeClientTest, AWriteIsNotRepeatedAfterAServerError) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, int) {
    StatusReply(res, 500, "InternalError");
  });
  auto client = Client(server.Config());
  ApiResult r = client->Create("/api/v1/namespaces/a/configmaps", {{"kind", "ConfigMap"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, 500);
  EXPECT_EQ(server.calls(), 1);
}

TEST_F(KubeClientTest, MaxRetriesZeroHandsThe429ToTheCaller) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, int) {
    StatusReply(res, 429, "TooManyRequests");
  });
  auto client = Client(server.Config());
  ApiResult r = client->Create("/api/v1/namespaces/a/pods/p/eviction", {{"kind", "Eviction"}},
                               {.max_retries = 0});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, 429);
  EXPECT_EQ(server.calls(), 1);
}

TEST_F(KubeClientTest, ConnectionRefusedIsATransportErrorAfterRetries) {
  // A port that was free a moment ago: bound, never listened on, closed.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), len), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int port = ntohs(addr.sin_port);
  close(fd);
  RestConfig c;
  c.server = "http://127.0.0.1:" + std::to_string(port);
  auto client = Client(c);
  ApiResult r = client->Create("/api/v1/namespaces", {{"kind", "Namespace"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, 0);
  EXPECT_EQ(r.error().reason, "ConnectionFailed");
  EXPECT_THAT(r.error().message, HasSubstr(c.server));
  EXPECT_EQ(client->stats().retries, 3);  // Nothing was sent: a write may be retried.
  EXPECT_EQ(r.ToStatus().code(), Status::Code::kIoError);
}

TEST_F(KubeClientTest, SendsAuthQueryDryRunAndPatchContentType) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, int) {
    res.set_content("{}", "application/json");
  });
  RestConfig c = server.Config();
  c.token = "t0ken";
  auto client = Client(c);
  ASSERT_TRUE(client
                  ->Patch("/api/v1/nodes/n1", PatchType::kStrategicMerge,
                          {{"spec", {{"unschedulable", true}}}},
                          {.dry_run = true, .field_manager = "steward"})
                  .ok());
  ASSERT_TRUE(client
                  ->Get("/api/v1/pods", {.query = {{"labelSelector", "app in (a,b),tier!=x"},
                                                   {"fieldSelector", "spec.nodeName=n 1"}}})
                  .ok());
  ASSERT_TRUE(client
                  ->Patch("/apis/kueue.x-k8s.io/v1beta1/clusterqueues/cq", PatchType::kMerge,
                          {{"spec", nullptr}})
                  .ok());
  ASSERT_TRUE(
      client->Patch("/api/v1/nodes/n1", PatchType::kJsonPatch, nlohmann::json::array()).ok());
  ASSERT_TRUE(client->Delete("/api/v1/namespaces/a/pods/p", {}, {{"gracePeriodSeconds", 0}}).ok());
  std::vector<httplib::Request> reqs = server.requests();
  ASSERT_EQ(reqs.size(), 5u);
  EXPECT_EQ(reqs[0].method, "PATCH");
  EXPECT_EQ(reqs[0].get_header_value("Authorization"), "Bearer t0ken");
  EXPECT_EQ(reqs[0].get_header_value("Content-Type"), "application/strategic-merge-patch+json");
  EXPECT_EQ(reqs[0].get_param_value("dryRun"), "All");
  EXPECT_EQ(reqs[0].get_param_value("fieldManager"), "steward");
  EXPECT_EQ(nlohmann::json::parse(reqs[0].body)["spec"]["unschedulable"], true);
  EXPECT_EQ(reqs[1].get_param_value("labelSelector"), "app in (a,b),tier!=x");
  EXPECT_EQ(reqs[1].get_param_value("fieldSelector"), "spec.nodeName=n 1");
  EXPECT_FALSE(reqs[1].has_param("dryRun"));
  EXPECT_EQ(reqs[2].get_header_value("Content-Type"), "application/merge-patch+json");
  EXPECT_EQ(reqs[3].get_header_value("Content-Type"), "application/json-patch+json");
  EXPECT_EQ(reqs[4].method, "DELETE");
  EXPECT_EQ(nlohmann::json::parse(reqs[4].body)["gracePeriodSeconds"], 0);
}

TEST_F(KubeClientTest, BasicAuthAndTokenFileRotation) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, int) {
    res.set_content("{}", "application/json");
  });
  RestConfig basic = server.Config();
  basic.username = "alice";
  basic.password = "pw";
  ASSERT_TRUE(Client(basic)->Get("/version").ok());
  EXPECT_EQ(server.requests().back().get_header_value("Authorization"), "Basic YWxpY2U6cHc=");

  TempDir dir;
  RestConfig file = server.Config();
  file.token_file = dir.Write("token", "first\n").string();
  auto client = Client(file);
  ASSERT_TRUE(client->Get("/version").ok());
  EXPECT_EQ(server.requests().back().get_header_value("Authorization"), "Bearer first");
  dir.Write("token", "second\n");  // Rotated: read again once the cached copy is a minute old.
  ASSERT_TRUE(client->Get("/version").ok());
  EXPECT_EQ(server.requests().back().get_header_value("Authorization"), "Bearer first");
  clock_.Advance(std::chrono::seconds(61));
  ASSERT_TRUE(client->Get("/version").ok());
  EXPECT_EQ(server.requests().back().get_header_value("Authorization"), "Bearer second");
}

TEST_F(KubeClientTest, ClientSideRateLimitPacesRequests) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, int) {
    res.set_content("{}", "application/json");
  });
  KubeClientOptions o = Options();
  o.qps = 5;
  o.burst = 2;
  auto client = Client(server.Config(), o);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(client->Get("/version").ok());
  // Two from the burst, then one every 200 ms (the fake clock only moves when slept).
  EXPECT_EQ(clock_.slept(), milliseconds(400));
  EXPECT_EQ(client->stats().throttled_micros, 400'000);
}

TEST_F(KubeClientTest, CreateRejectsBadConfig) {
  RestConfig c;
  c.source = "kc.yaml";
  c.server = "ftp://x";
  EXPECT_FALSE(KubeClient::Create(c).ok());
  c.server = "https://h:99999";
  EXPECT_THAT(KubeClient::Create(c).status().message(), HasSubstr("bad port"));
  c.server = "https://h";
  c.ca_pem = "not a certificate";
  EXPECT_THAT(KubeClient::Create(c).status().message(), HasSubstr("certificate-authority"));
}

TEST(ResourceRefTest, Paths) {
  EXPECT_EQ(ResourceRef::Core("nodes", false).Path("ignored", "n1"), "/api/v1/nodes/n1");
  EXPECT_EQ(ResourceRef::Core("pods", true).Path(), "/api/v1/pods");
  EXPECT_EQ(ResourceRef::Core("pods", true).Path("a", "p", "eviction"),
            "/api/v1/namespaces/a/pods/p/eviction");
  ResourceRef cq{"kueue.x-k8s.io", "v1beta1", "clusterqueues", false};
  EXPECT_EQ(cq.Path("", "cq"), "/apis/kueue.x-k8s.io/v1beta1/clusterqueues/cq");
  EXPECT_EQ(cq.Name(), "clusterqueues.kueue.x-k8s.io");
}

// Against kube::ApiServer over real sockets.
class KubeClientApiTest : public KubeClientTest {
 protected:
  KubeTestServer server_{{.max_history_events = 8}};
};

TEST_F(KubeClientApiTest, GetListPagesAndDecodesErrors) {
  for (int i = 0; i < 5; ++i) server_.PutNode("node-" + std::to_string(i));
  auto client = Client(server_.Config());
  ApiResult node = client->Get("/api/v1/nodes/node-3");
  ASSERT_TRUE(node.ok()) << node.error().message;
  EXPECT_EQ(node.value()["metadata"]["name"], "node-3");

  const int before = server_.requests();
  ApiResult list = client->List("/api/v1/nodes", {}, /*page_size=*/2);
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_EQ(list.value()["items"].size(), 5u);
  EXPECT_EQ(server_.requests() - before, 3);  // Pages of 2, 2, 1.
  EXPECT_EQ(list.value()["metadata"]["resourceVersion"],
            std::to_string(server_.store().resource_version()));
  EXPECT_FALSE(list.value()["metadata"].contains("continue"));

  ApiResult missing = client->Get("/api/v1/nodes/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, 404);
  EXPECT_EQ(missing.error().reason, "NotFound");
  EXPECT_EQ(missing.ToStatus().code(), Status::Code::kNotFound);
}

TEST_F(KubeClientApiTest, WritesAndServerDryRun) {
  server_.PutNode("n1");
  auto client = Client(server_.Config());
  ApiResult dry = client->Patch("/api/v1/nodes/n1", PatchType::kStrategicMerge,
                                {{"spec", {{"unschedulable", true}}}}, {.dry_run = true});
  ASSERT_TRUE(dry.ok()) << dry.error().message;
  EXPECT_EQ(dry.value()["spec"]["unschedulable"], true);
  EXPECT_FALSE(client->Get("/api/v1/nodes/n1").value()["spec"].contains("unschedulable"));
  ApiResult wet = client->Patch("/api/v1/nodes/n1", PatchType::kStrategicMerge,
                                {{"spec", {{"unschedulable", true}}}});
  ASSERT_TRUE(wet.ok());
  EXPECT_EQ(client->Get("/api/v1/nodes/n1").value()["spec"]["unschedulable"], true);
  ApiResult conflict = client->Replace("/api/v1/nodes/n1",
                                       {{"apiVersion", "v1"},
                                        {"kind", "Node"},
                                        {"metadata", {{"name", "n1"}, {"resourceVersion", "1"}}}});
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().code, 409);
}

TEST_F(KubeClientApiTest, WatchStreamsEventsFromAResourceVersion) {
  server_.PutNode("n1");
  auto client = Client(server_.Config());
  const std::string rv = std::to_string(server_.store().resource_version());
  server_.PutNode("n2");
  server_.PutNode("n1", {{"gpu", "h100"}});
  std::vector<std::pair<std::string, std::string>> seen;
  ApiResult end =
      client->Watch("/api/v1/nodes", {.query = {{"resourceVersion", rv}, {"timeoutSeconds", "5"}}},
                    [&](WatchEvent e) {
                      seen.emplace_back(e.type, e.object["metadata"]["name"].get<std::string>());
                      return seen.size() < 2;
                    });
  ASSERT_TRUE(end.ok()) << end.error().message;
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], (std::pair<std::string, std::string>{"ADDED", "n2"}));
  EXPECT_EQ(seen[1], (std::pair<std::string, std::string>{"MODIFIED", "n1"}));
}

TEST_F(KubeClientApiTest, WatchFromACompactedVersionIsGone) {
  server_.PutNode("n0");
  const std::string old_rv = "1";
  for (int i = 0; i < 20; ++i) server_.PutNode("n" + std::to_string(i), {{"i", std::to_string(i)}});
  auto client = Client(server_.Config());
  int events = 0;
  ApiResult r = client->Watch("/api/v1/nodes", {.query = {{"resourceVersion", old_rv}}},
                              [&](WatchEvent) { return ++events < 100; });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, 410);
  EXPECT_EQ(r.error().reason, "Expired");
  EXPECT_EQ(events, 0);
}

TEST_F(KubeClientApiTest, CancelEndsAnIdleWatchAtOnce) {
  auto client = Client(server_.Config());
  WatchCancel cancel;
  std::atomic<bool> returned{false};
  std::thread watcher([&] {
    ApiResult r = client->Watch(
        "/api/v1/nodes",
        {.query = {{"resourceVersion", std::to_string(server_.store().resource_version())}}},
        [](WatchEvent) { return true; }, &cancel);
    EXPECT_TRUE(r.ok());
    returned = true;
  });
  // Wait until the server holds the stream open, then cancel.
  for (int i = 0; i < 500 && server_.api().open_watches() == 0; ++i)
    std::this_thread::sleep_for(milliseconds(10));
  ASSERT_EQ(server_.api().open_watches(), 1);
  cancel.Cancel();
  watcher.join();
  EXPECT_TRUE(returned);
}

class KubeClientTlsTest : public KubeClientTest {
 protected:
  KubeTestServer server_{{.token = "s3cret", .tls = true}};
};

TEST_F(KubeClientTlsTest, VerifiesTheServerAgainstTheKubeconfigCa) {
  ASSERT_TRUE(Client(server_.Config())->Get("/api/v1/nodes").ok());

  RestConfig system_store = server_.Config();  // The test CA is in no system store.
  system_store.ca_pem.clear();
  ApiResult r = Client(system_store)->Get("/api/v1/nodes");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().reason, "TLSError");

  RestConfig other_ca = server_.Config();
  other_ca.ca_pem = testing::ReadText(testing::TestCerts::Get().other_ca_cert);
  EXPECT_FALSE(Client(other_ca)->Get("/api/v1/nodes").ok());

  RestConfig insecure = server_.Config();
  insecure.ca_pem.clear();
  insecure.insecure_skip_tls_verify = true;
  EXPECT_TRUE(Client(insecure)->Get("/api/v1/nodes").ok());
}

TEST_F(KubeClientTlsTest, TlsServerNameIsWhatTheCertificateIsCheckedAgainst) {
  RestConfig named = server_.Config();
  named.tls_server_name = "kube.test";  // In the certificate's SANs; the URL says 127.0.0.1.
  EXPECT_TRUE(Client(named)->Get("/api/v1/nodes").ok());
  named.tls_server_name = "other.test";
  EXPECT_FALSE(Client(named)->Get("/api/v1/nodes").ok());
}

TEST_F(KubeClientTlsTest, ClientCertificateIsLoadedAndTokenIsRequired) {
  RestConfig with_cert = server_.Config();
  with_cert.client_certificate_pem = testing::ReadText(testing::TestCerts::Get().client_cert);
  with_cert.client_key_pem = testing::ReadText(testing::TestCerts::Get().client_key);
  EXPECT_TRUE(Client(with_cert)->Get("/api/v1/nodes").ok());

  RestConfig no_token = server_.Config();
  no_token.token.clear();
  ApiResult r = Client(no_token)->Get("/api/v1/nodes");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, 401);
}

TEST_F(KubeClientTlsTest, ExecPluginKubeconfigAuthenticatesAndRenewsOn401) {
  TempDir dir;
  // The first run prints a stale token (the server answers 401), the next the right one.
  dir.Write(
      "plugin.sh",
      "#!/bin/sh\n"
      "echo x >> \"$(dirname \"$0\")/runs\"\n"
      "if [ \"$(wc -l < \"$(dirname \"$0\")/runs\")\" -eq 1 ]; then t=stale; else t=s3cret; fi\n"
      "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
      "\"status\":{\"token\":\"'$t'\"}}'\n",
      /*executable=*/true);
  dir.Write("ca.crt", testing::ReadText(testing::TestCerts::Get().ca_cert));
  const fs::path kc = dir.Write("kubeconfig",
                                "apiVersion: v1\nkind: Config\ncurrent-context: twin\n"
                                "contexts: [{name: twin, context: {cluster: c, user: u}}]\n"
                                "clusters: [{name: c, cluster: {server: \"" +
                                    server_.url() +
                                    "\", certificate-authority: ca.crt}}]\n"
                                    "users:\n- name: u\n  user:\n    exec:\n"
                                    "      apiVersion: client.authentication.k8s.io/v1\n"
                                    "      command: ./plugin.sh\n");
  Result<RestConfig> config = LoadKubeconfig(kc);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto client = Client(*config);
  ApiResult r = client->Get("/api/v1/nodes");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(client->stats().credential_runs, 2);
  ASSERT_TRUE(client->Get("/api/v1/namespaces").ok());  // Cached: no third run.
  EXPECT_EQ(client->stats().credential_runs, 2);
}

}  // namespace
}  // namespace steward::live

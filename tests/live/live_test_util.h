// Fixtures for the live client's tests: a fake clock that advances instead of sleeping, scratch
// directories, certificates made with the openssl CLI at test time, and a loopback Kubernetes
// API server (kube::ApiServer over an ObjectStore, served by http::Server, optionally with TLS
// and a bearer token) that the client talks to over real sockets.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "http/server.h"
#include "kube/api_server.h"
#include "kube/json_decoder.h"
#include "kube/object_store.h"
#include "kube/resources.h"
#include "live/clock.h"
#include "live/kubeconfig.h"

namespace steward::live::testing {

using nlohmann::json;
namespace fs = std::filesystem;

// Advances its time by what callers ask to sleep; records the total.
class FakeClock : public Clock {
 public:
  std::chrono::steady_clock::time_point Now() override {
    std::lock_guard<std::mutex> lock(mu_);
    return start_ + offset_;
  }
  int64_t WallMicros() override {
    std::lock_guard<std::mutex> lock(mu_);
    return wall_start_micros_ +
           std::chrono::duration_cast<std::chrono::microseconds>(offset_).count();
  }
  void SleepFor(std::chrono::nanoseconds d) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (d.count() > 0) {
      offset_ += d;
      slept_ += d;
    }
    ++sleeps_;
  }
  void Advance(std::chrono::nanoseconds d) {
    std::lock_guard<std::mutex> lock(mu_);
    offset_ += d;
  }
  std::chrono::nanoseconds slept() {
    std::lock_guard<std::mutex> lock(mu_);
    return slept_;
  }
  int sleeps() {
    std::lock_guard<std::mutex> lock(mu_);
    return sleeps_;
  }
  static constexpr int64_t kWallStart = 1'780'000'000'000'000;  // 2026-05-28.

 private:
  std::mutex mu_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  const int64_t wall_start_micros_ = kWallStart;
  std::chrono::nanoseconds offset_{0}, slept_{0};
  int sleeps_ = 0;
};

// A scratch directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "steward-live-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path Write(const std::string& name, const std::string& text, bool executable = false) const {
    const fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    if (executable) fs::permissions(p, fs::perms::owner_all, fs::perm_options::add);
    return p;
  }

 private:
  fs::path path_;
};

inline std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A CA and a server certificate for 127.0.0.1 and "kube.test" it signs, plus an unrelated CA,
// made once per test binary with the openssl CLI (EC keys: fast).
struct TestCerts {
  fs::path dir, ca_cert, server_cert, server_key, other_ca_cert, client_cert, client_key;
  // Self-signed for 127.0.0.1 (its own CA, as `steward serve --tls-cert` users make them).
  fs::path self_signed_cert, self_signed_key;
  static const TestCerts& Get() {
    static TestCerts certs = Make();
    return certs;
  }

 private:
  static TestCerts Make() {
    static TempDir tmp;  // Lives for the process.
    TestCerts c;
    c.dir = tmp.path();
    const std::string d = c.dir.string();
    const std::string key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    std::ofstream(c.dir / "san.ext") << "subjectAltName=IP:127.0.0.1,DNS:kube.test\n";
    const std::string script =
        "set -e; cd '" + d + "'; " + "openssl req -x509 " + key +
        " -keyout ca.key -out ca.crt -days 2 -subj /CN=test-ca; " + "openssl req -x509 " + key +
        " -keyout other.key -out other.crt -days 2 -subj /CN=other; " + "openssl req " + key +
        " -keyout server.key -out server.csr -subj /CN=kube.test; " +
        "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial " +
        "-out server.crt -days 2 -extfile san.ext; " + "openssl req " + key +
        " -keyout client.key -out client.csr -subj /CN=steward; " +
        "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial " +
        "-out client.crt -days 2; " + "openssl req -x509 " + key +
        " -keyout self.key -out self.crt -days 2 " +
        "-subj /CN=steward-twin -addext subjectAltName=IP:127.0.0.1";
    const std::string cmd = "sh -c \"" + script + "\" >/dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << "openssl failed: " << cmd;
    c.ca_cert = c.dir / "ca.crt";
    c.server_cert = c.dir / "server.crt";
    c.server_key = c.dir / "server.key";
    c.other_ca_cert = c.dir / "other.crt";
    c.client_cert = c.dir / "client.crt";
    c.client_key = c.dir / "client.key";
    c.self_signed_cert = c.dir / "self.crt";
    c.self_signed_key = c.dir / "self.key";
    return c;
  }
};

struct KubeTestServerOptions {
  std::string token{};  // Required for every request when set.
  bool tls = false;
  size_t max_history_events = 200000;
  std::chrono::milliseconds bookmark_interval{std::chrono::seconds(10)};
  // Runs on the server's worker before each request is handled (e.g. to hold writes back so
  // that two clients race).
  std::function<void(const http::Request&)> before_request{};
  bool serve_jobs = false;  // batch/v1 Jobs too (writable): elastic resizes patch them.
};

// kube::ApiServer with the resources the cluster cache reads, on a loopback port.
class KubeTestServer {
 public:
  explicit KubeTestServer(KubeTestServerOptions o = {})
      : options_(o), store_(StoreOptions(o)), api_(&store_, ApiOptions(o)) {
    auto writable = [](kube::ApiResourceSpec s) {
      s.verbs = {"get", "list", "watch", "create", "update", "patch", "delete"};
      return s;
    };
    nodes_ = api_.AddResource(writable(kube::NodesResource()));
    pods_ = api_.AddResource(writable(kube::PodsResource()));
    namespaces_ = api_.AddResource(writable(kube::NamespacesResource()));
    api_.AddResource(writable(kube::EventsResource()));
    api_.AddResource(writable(kube::PodDisruptionBudgetsResource()));
    api_.AddResource(writable(kube::LeasesResource()));
    api_.AddResource(writable(kube::ConfigMapsResource()));
    cluster_queues_ = api_.AddResource(writable(kube::KueueResource("clusterqueues")));
    api_.AddResource(writable(kube::KueueResource("localqueues")));
    api_.AddResource(writable(kube::KueueResource("resourceflavors")));
    api_.AddResource(writable(kube::KueueResource("workloads")));
    if (o.serve_jobs) jobs_ = api_.AddResource(writable(kube::JobsResource()));
    http::ServerOptions h;
    h.port = 0;
    h.threads = 16;
    if (o.tls) {
      h.tls_cert_file = TestCerts::Get().server_cert.string();
      h.tls_key_file = TestCerts::Get().server_key.string();
    }
    h.access.token = o.token;
    h.access.require = o.token.empty() ? http::AccessOptions::Require::kNothing
                                       : http::AccessOptions::Require::kEverything;
    h.refusal = [](int status, std::string_view message) {
      kube::ApiError e;
      e.code = status;
      e.reason = status == 401 ? "Unauthorized" : "BadRequest";
      e.message = std::string(message);
      return kube::ErrorReply(e);
    };
    server_ = std::make_unique<http::Server>(h, [this](const http::Request& r) {
      ++requests_;
      if (options_.before_request) options_.before_request(r);
      return api_.Handle(r);
    });
    Result<int> port = server_->Start();
    EXPECT_TRUE(port.ok()) << port.status().ToString();
    port_ = port.ok() ? *port : 0;
  }
  ~KubeTestServer() { Stop(); }
  void Stop() {
    store_.Close();  // Ends watches so the server's workers finish.
    if (server_) server_->Stop();
  }

  std::string url() const {
    return (options_.tls ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port_);
  }
  // A RestConfig that reaches this server (CA and token included).
  RestConfig Config() const {
    RestConfig c;
    c.source = "test";
    c.server = url();
    c.token = options_.token;
    if (options_.tls) c.ca_pem = ReadText(TestCerts::Get().ca_cert);
    return c;
  }
  int requests() const { return requests_.load(); }

  kube::ObjectStore& store() { return store_; }
  kube::ApiServer& api() { return api_; }

  void PutNode(const std::string& name, json labels = json::object(), bool unschedulable = false) {
    json node = {{"apiVersion", "v1"},
                 {"kind", "Node"},
                 {"metadata", {{"name", name}, {"labels", labels}}},
                 {"spec", json::object()},
                 {"status", {{"capacity", {{"nvidia.com/gpu", "8"}}}}}};
    if (unschedulable) node["spec"]["unschedulable"] = true;
    store_.Commit({{nodes_, "", name, node}});
  }
  static json PodJson(const std::string& ns, const std::string& name, const std::string& node,
                      int gpus, const std::string& owner_kind = "",
                      const std::string& owner_name = "") {
    json container = {{"name", "main"}, {"image", "trainer"}};
    if (gpus > 0) container["resources"] = {{"limits", {{"nvidia.com/gpu", std::to_string(gpus)}}}};
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", ns}}},
                {"spec", {{"nodeName", node}, {"containers", json::array({container})}}},
                {"status", {{"phase", "Running"}}}};
    if (!owner_kind.empty())
      pod["metadata"]["ownerReferences"] = {{{"apiVersion", "batch/v1"},
                                             {"kind", owner_kind},
                                             {"name", owner_name},
                                             {"uid", "uid-" + owner_name},
                                             {"controller", true}}};
    return pod;
  }
  void PutPod(const std::string& ns, const std::string& name, const std::string& node, int gpus,
              const std::string& owner_kind = "", const std::string& owner_name = "") {
    store_.Commit({{pods_, ns, name, PodJson(ns, name, node, gpus, owner_kind, owner_name)}});
  }
  void DeleteNode(const std::string& name) { store_.Commit({{nodes_, "", name, std::nullopt}}); }
  void DeletePod(const std::string& ns, const std::string& name) {
    store_.Commit({{pods_, ns, name, std::nullopt}});
  }
  void PutNamespace(const std::string& name) {
    store_.Commit({{namespaces_, "", name,
                    json{{"apiVersion", "v1"},
                         {"kind", "Namespace"},
                         {"metadata", {{"name", name}}},
                         {"status", {{"phase", "Active"}}}}}});
  }
  void PutClusterQueue(const std::string& name, int gpus) {
    store_.Commit(
        {{cluster_queues_, "", name,
          json{{"apiVersion", "kueue.x-k8s.io/v1beta1"},
               {"kind", "ClusterQueue"},
               {"metadata", {{"name", name}}},
               {"spec",
                {{"resourceGroups",
                  {{{"coveredResources", {"nvidia.com/gpu"}},
                    {"flavors",
                     {{{"name", "h100"},
                       {"resources",
                        {{{"name", "nvidia.com/gpu"}, {"nominalQuota", gpus}}}}}}}}}}}}}}});
  }
  // A batch/v1 Job with spec.parallelism (serve_jobs only).
  void PutJob(const std::string& ns, const std::string& name, int parallelism) {
    store_.Commit({{jobs_, ns, name,
                    json{{"apiVersion", "batch/v1"},
                         {"kind", "Job"},
                         {"metadata", {{"name", name}, {"namespace", ns}}},
                         {"spec", {{"parallelism", parallelism}, {"completions", parallelism}}}}}});
  }
  int pods_id() const { return pods_; }
  int nodes_id() const { return nodes_; }

 private:
  static kube::ObjectStoreOptions StoreOptions(const KubeTestServerOptions& o) {
    kube::ObjectStoreOptions s;
    s.max_history_events = o.max_history_events;
    return s;
  }
  static kube::ApiServerOptions ApiOptions(const KubeTestServerOptions& o) {
    kube::ApiServerOptions a;
    a.now_micros = [] { return FakeClock::kWallStart; };
    a.bookmark_interval = o.bookmark_interval;
    return a;
  }

  KubeTestServerOptions options_;
  kube::ObjectStore store_;
  kube::ApiServer api_;
  std::unique_ptr<http::Server> server_;
  int port_ = 0;
  int nodes_ = 0, pods_ = 0, namespaces_ = 0, cluster_queues_ = 0, jobs_ = -1;
  std::atomic<int> requests_{0};
};

}  // namespace steward::live::testing

namespace steward::live::testing {

// Polls `condition` every 5 ms until it holds or `timeout` passes (for changes that arrive on
// another thread); returns whether it held.
inline bool Eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return condition();
}

}  // namespace steward::live::testing

// Test fixture for kube::ApiServer: the built-in resource definitions over an ObjectStore with a
// fake history clock, a pods backend that records what it is asked, and request helpers.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "http/message.h"
#include "kube/api_server.h"
#include "kube/json_decoder.h"
#include "kube/object_store.h"
#include "kube/resources.h"

namespace steward::kube::testing {

using nlohmann::json;

inline constexpr int64_t kNowMicros = 1'780'000'000'000'000;  // The server's fixed clock.
inline constexpr char kKubectlTableAccept[] =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";

// A request as http::Server hands it over: `target` may carry a query (values already decoded).
inline http::Request Req(std::string method, std::string target, std::string body = "",
                         std::vector<std::pair<std::string, std::string>> headers = {}) {
  http::Request r;
  r.method = std::move(method);
  const size_t q = target.find('?');
  r.path = target.substr(0, q);
  if (q != std::string::npos) {
    std::string query = target.substr(q + 1);
    size_t i = 0;
    while (i <= query.size()) {
      size_t amp = query.find('&', i);
      if (amp == std::string::npos) amp = query.size();
      const std::string kv = query.substr(i, amp - i);
      const size_t eq = kv.find('=');
      if (!kv.empty())
        r.params.emplace(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
      i = amp + 1;
    }
  }
  r.body = std::move(body);
  for (auto& [k, v] : headers) r.headers.emplace(k, v);
  return r;
}

inline json Body(const http::Reply& r) { return json::parse(r.body); }

// Pods writes and subresources go here, as the twin's backend would take them: writes are
// applied to the store (or only checked, dry run); an eviction answers what the test set.
class RecordingPodBackend : public ResourceBackend {
 public:
  explicit RecordingPodBackend(ApiServer* api) : api_(api) {}
  std::variant<ApiAnswer, ApiError> Write(const WriteRequest& w) override {
    writes.push_back(w);
    const int id = api_->StoreId(w.resource);
    ObjectPtr current = api_->store().Get(id, w.namespace_name, w.name);
    if (w.verb == WriteRequest::Verb::kDelete) {
      if (!current) return ApiError::NotFound("pods", "", w.name);
      if (!w.dry_run) api_->store().Commit({{id, w.namespace_name, w.name, std::nullopt}});
      return ApiAnswer{200, current->Parse()};
    }
    auto desired = w.transform(current.get());
    if (auto* e = std::get_if<ApiError>(&desired)) return *e;
    json object = std::get<json>(desired);
    if (!w.dry_run)
      object = api_->store().Commit({{id, w.namespace_name, w.name, object}})[0]->Parse();
    return ApiAnswer{w.verb == WriteRequest::Verb::kCreate ? 201 : 200, object};
  }
  std::variant<ApiAnswer, ApiError> Subresource(const SubresourceRequest& s) override {
    evictions.push_back(s);
    if (refuse_evictions)
      return ApiError::TooManyRequests(
          "Cannot evict pod as it would violate the pod's disruption budget.", 10);
    if (!s.dry_run)
      api_->store().Commit({{api_->StoreId(s.resource), s.namespace_name, s.name, std::nullopt}});
    return ApiAnswer{201, {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Success"}}};
  }

  std::vector<WriteRequest> writes;
  std::vector<SubresourceRequest> evictions;
  bool refuse_evictions = false;

 private:
  ApiServer* api_;
};

class ApiServerTest : public ::testing::Test {
 protected:
  explicit ApiServerTest(ApiServerOptions options = {})
      : store_({.clock = [this] { return history_now_; }}),
        api_(&store_, WithClock(std::move(options))),
        pods_backend_(&api_) {
    ApiResourceSpec nodes = NodesResource();
    nodes.verbs = {"get", "list", "watch", "patch", "update"};
    nodes_ = api_.AddResource(std::move(nodes));
    ApiResourceSpec pods = PodsResource();
    pods.verbs = {"get", "list", "watch", "create", "delete"};
    pods.subresources = {"eviction"};
    pods.backend = &pods_backend_;
    pods_ = api_.AddResource(std::move(pods));
    namespaces_ = api_.AddResource(NamespacesResource());
    configmaps_ = api_.AddResource(ConfigMapsResource());
    leases_ = api_.AddResource(LeasesResource());
    api_.AddResource(PodDisruptionBudgetsResource());
    ApiResourceSpec cq = KueueResource("clusterqueues");
    cq.verbs = {"get", "list", "watch", "create", "update", "patch", "delete"};
    clusterqueues_ = api_.AddResource(std::move(cq));
    for (const char* ns : {"default", "team-a", "team-b"}) AddNamespace(ns);
  }

  static ApiServerOptions WithClock(ApiServerOptions o) {
    o.now_micros = [] { return kNowMicros; };
    return o;
  }

  void AddNamespace(const std::string& name) {
    store_.Commit({{namespaces_, "", name,
                    json{{"apiVersion", "v1"},
                         {"kind", "Namespace"},
                         {"metadata", {{"name", name}}},
                         {"status", {{"phase", "Active"}}}}}});
  }
  // A node created `age_seconds` before the server's clock.
  ObjectPtr AddNode(const std::string& name, bool ready = true, json labels = json::object(),
                    int64_t age_seconds = 300, bool unschedulable = false) {
    json node = {
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata",
         {{"name", name}, {"labels", labels}, {"creationTimestamp", FormatTimeAgo(age_seconds)}}},
        {"spec", json::object()},
        {"status",
         {{"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}},
          {"nodeInfo", {{"kubeletVersion", "v1.32.4"}}}}}};
    if (unschedulable) node["spec"]["unschedulable"] = true;
    return store_.Commit({{nodes_, "", name, node}})[0];
  }
  ObjectPtr AddPod(const std::string& ns, const std::string& name, const std::string& node,
                   json labels = json::object(), json status = json::object()) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata",
                 {{"name", name},
                  {"namespace", ns},
                  {"labels", labels},
                  {"creationTimestamp", FormatTimeAgo(60)}}},
                {"spec", {{"nodeName", node}, {"containers", {{{"name", "main"}}}}}},
                {"status", status.empty() ? json{{"phase", "Running"}} : status}};
    return store_.Commit({{pods_, ns, name, pod}})[0];
  }
  static std::string FormatTimeAgo(int64_t seconds) {
    return FormatTime(kNowMicros - seconds * 1'000'000);
  }

  http::Reply Do(std::string method, std::string target, std::string body = "",
                 std::vector<std::pair<std::string, std::string>> headers = {}) {
    return api_.Handle(
        Req(std::move(method), std::move(target), std::move(body), std::move(headers)));
  }
  json Get(const std::string& target) {
    http::Reply r = Do("GET", target);
    EXPECT_EQ(r.status, 200) << target << ": " << r.body;
    return Body(r);
  }
  // Names of a list's items.
  static std::vector<std::string> Names(const json& list) {
    std::vector<std::string> out;
    for (const json& item : list["items"]) out.push_back(item["metadata"]["name"]);
    return out;
  }

  std::chrono::steady_clock::time_point history_now_ =
      std::chrono::steady_clock::time_point() + std::chrono::hours(1000);
  ObjectStore store_;
  ApiServer api_;
  RecordingPodBackend pods_backend_;
  int nodes_ = 0, pods_ = 0, namespaces_ = 0, configmaps_ = 0, leases_ = 0, clusterqueues_ = 0;
};

// The lines a watch writes, until `max_lines` (then the writer reports the client gone) or the
// stream's own end (timeoutSeconds, an ERROR).
inline std::vector<json> StreamLines(const http::Reply& reply, size_t max_lines) {
  std::vector<json> lines;
  std::string pending;
  EXPECT_TRUE(static_cast<bool>(reply.stream)) << reply.status << " " << reply.body;
  if (!reply.stream) return lines;
  reply.stream([&](std::string_view piece) {
    pending += piece;
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      lines.push_back(json::parse(pending.substr(0, nl)));
      pending.erase(0, nl + 1);
    }
    return lines.size() < max_lines;
  });
  return lines;
}

}  // namespace steward::kube::testing

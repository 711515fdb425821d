// kube::ParseRequestInfo: the authorizer's attributes of a request, as kube-apiserver derives
// them, for the calls Steward's client and kubectl make.
#include "kube/request_info.h"

#include <gtest/gtest.h>

namespace steward::kube {
namespace {

http::Request Req(std::string method, std::string path,
                  std::multimap<std::string, std::string> params = {}) {
  http::Request r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.params = std::move(params);
  return r;
}

TEST(RequestInfo, CollectionGetIsListOrWatch) {
  RequestInfo list = ParseRequestInfo(Req("GET", "/api/v1/pods", {{"limit", "500"}}));
  EXPECT_TRUE(list.is_resource_request);
  EXPECT_EQ(list.verb, "list");
  EXPECT_EQ(list.resource, "pods");
  EXPECT_EQ(list.api_group, "");
  EXPECT_EQ(list.namespace_name, "");
  RequestInfo watch = ParseRequestInfo(Req("GET", "/apis/coordination.k8s.io/v1/leases",
                                           {{"watch", "1"}, {"resourceVersion", "7"}}));
  EXPECT_EQ(watch.verb, "watch");
  EXPECT_EQ(watch.api_group, "coordination.k8s.io");
  EXPECT_EQ(watch.api_version, "v1");
  EXPECT_EQ(watch.resource, "leases");
  EXPECT_EQ(ParseRequestInfo(Req("GET", "/api/v1/nodes", {{"watch", "false"}})).verb, "list");
  EXPECT_EQ(ParseRequestInfo(Req("GET", "/api/v1/watch/nodes")).verb, "watch");
}

TEST(RequestInfo, NamedObjectsAndSubresources) {
  RequestInfo evict = ParseRequestInfo(
      Req("POST", "/api/v1/namespaces/ml/pods/train-0/eviction", {{"dryRun", "All"}}));
  EXPECT_EQ(evict.verb, "create");
  EXPECT_EQ(evict.resource, "pods");
  EXPECT_EQ(evict.subresource, "eviction");
  EXPECT_EQ(evict.namespace_name, "ml");
  EXPECT_EQ(evict.name, "train-0");
  EXPECT_TRUE(evict.dry_run);
  RequestInfo cordon = ParseRequestInfo(Req("PATCH", "/api/v1/nodes/gpu-1"));
  EXPECT_EQ(cordon.verb, "patch");
  EXPECT_EQ(cordon.name, "gpu-1");
  EXPECT_FALSE(cordon.dry_run);
  RequestInfo lease = ParseRequestInfo(
      Req("PUT", "/apis/coordination.k8s.io/v1/namespaces/steward-system/leases/steward-operate"));
  EXPECT_EQ(lease.verb, "update");
  EXPECT_EQ(lease.namespace_name, "steward-system");
  EXPECT_EQ(lease.name, "steward-operate");
  EXPECT_EQ(
      ParseRequestInfo(Req("GET", "/api/v1/namespaces/steward-system/configmaps/steward")).verb,
      "get");
  EXPECT_EQ(ParseRequestInfo(Req("DELETE", "/api/v1/namespaces/ml/pods")).verb, "deletecollection");
}

TEST(RequestInfo, NamespaceObjectItself) {
  RequestInfo ns = ParseRequestInfo(Req("GET", "/api/v1/namespaces/ml"));
  EXPECT_EQ(ns.resource, "namespaces");
  EXPECT_EQ(ns.name, "ml");
  EXPECT_EQ(ns.verb, "get");
  RequestInfo finalize = ParseRequestInfo(Req("PUT", "/api/v1/namespaces/ml/finalize"));
  EXPECT_EQ(finalize.resource, "namespaces");
  EXPECT_EQ(finalize.subresource, "finalize");
}

TEST(RequestInfo, ListByExactNameCarriesTheName) {
  RequestInfo r = ParseRequestInfo(
      Req("GET", "/api/v1/nodes", {{"fieldSelector", "metadata.name=gpu-3"}, {"watch", "true"}}));
  EXPECT_EQ(r.verb, "watch");
  EXPECT_EQ(r.name, "gpu-3");
}

TEST(RequestInfo, DiscoveryIsNonResource) {
  for (const char* path :
       {"/api", "/api/v1", "/apis", "/apis/kueue.x-k8s.io/v1beta1", "/version"}) {
    RequestInfo r = ParseRequestInfo(Req("GET", path));
    EXPECT_FALSE(r.is_resource_request) << path;
    EXPECT_EQ(r.verb, "get") << path;
    EXPECT_EQ(r.path, path);
  }
}

TEST(RequestInfo, AuditEventCarriesObjectRef) {
  http::Request r = Req("POST", "/api/v1/namespaces/default/events");
  r.headers["User-Agent"] = "steward-live/1";
  nlohmann::json e = AuditEventJson(ParseRequestInfo(r), r, 201);
  EXPECT_EQ(e["verb"], "create");
  EXPECT_EQ(e["objectRef"]["resource"], "events");
  EXPECT_EQ(e["objectRef"]["namespace"], "default");
  EXPECT_EQ(e["responseStatus"]["code"], 201);
  EXPECT_EQ(e["userAgent"], "steward-live/1");
  EXPECT_FALSE(e.contains("dryRun"));
  http::Request d = Req("GET", "/apis");
  EXPECT_FALSE(AuditEventJson(ParseRequestInfo(d), d, 200).contains("objectRef"));
}

}  // namespace
}  // namespace steward::kube

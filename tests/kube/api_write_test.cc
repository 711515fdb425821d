// ApiServer writes: create / update / patch / delete with the codes clients branch on (409 on a
// stale resourceVersion, 415 for strategic merge patch on a custom resource, 422 with causes,
// 404, 405 with Allow, 429 with Retry-After), server-side dry run, and the eviction
// subresource (kube-api-facts.md §3.1, §3.2, §3.5, §3.6).
#include <gtest/gtest.h>

#include "api_test_util.h"
#include "kube/lease.h"
#include "kube/policy_v1.h"

namespace steward::kube::testing {
namespace {

constexpr char kMerge[] = "application/merge-patch+json";
constexpr char kJsonPatch[] = "application/json-patch+json";
constexpr char kStrategic[] = "application/strategic-merge-patch+json";

class ApiWriteTest : public ApiServerTest {
 protected:
  http::Reply Patch(const std::string& target, const json& patch, const char* type) {
    return Do("PATCH", target, patch.dump(), {{"Content-Type", type}});
  }
  json LeaseBody(const std::string& name, const std::string& holder) {
    Lease l;
    l.metadata.name = name;
    l.holder_identity = holder;
    l.lease_duration_seconds = 15;
    l.renew_time = kNowMicros;
    return ToJson(l);
  }
};

TEST_F(ApiWriteTest, CreateFillsServerFieldsAndRefusesADuplicate) {
  http::Reply r = Do("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases",
                     LeaseBody("leader", "a").dump());
  ASSERT_EQ(r.status, 201) << r.body;
  json created = Body(r);
  EXPECT_EQ(created["metadata"]["namespace"], "default");
  EXPECT_FALSE(created["metadata"]["uid"].get<std::string>().empty());
  EXPECT_EQ(created["metadata"]["resourceVersion"], std::to_string(store_.resource_version()));
  EXPECT_TRUE(created["metadata"].contains("creationTimestamp"));
  EXPECT_EQ(Get("/apis/coordination.k8s.io/v1/namespaces/default/leases/leader"), created);

  http::Reply again = Do("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases",
                         LeaseBody("leader", "b").dump());
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(Body(again)["reason"], "AlreadyExists");
}

TEST_F(ApiWriteTest, GenerateNameMakesAUniqueName) {
  json body = {{"metadata", {{"generateName", "cm-"}}}, {"data", {{"k", "v"}}}};
  json a = Body(Do("POST", "/api/v1/namespaces/default/configmaps", body.dump()));
  json b = Body(Do("POST", "/api/v1/namespaces/default/configmaps", body.dump()));
  const std::string na = a["metadata"]["name"], nb = b["metadata"]["name"];
  EXPECT_TRUE(na.starts_with("cm-") && na.size() > 3);
  EXPECT_NE(na, nb);
  EXPECT_EQ(a["kind"], "ConfigMap");
  EXPECT_EQ(a["apiVersion"], "v1");
}

TEST_F(ApiWriteTest, CreateChecksNamesNamespacesAndKinds) {
  // 422 Invalid with a cause naming the field.
  http::Reply bad = Do("POST", "/api/v1/namespaces/default/configmaps",
                       json{{"metadata", {{"name", "Not_A_Name"}}}}.dump());
  ASSERT_EQ(bad.status, 422);
  json status = Body(bad);
  EXPECT_EQ(status["reason"], "Invalid");
  ASSERT_EQ(status["details"]["causes"].size(), 1u);
  EXPECT_EQ(status["details"]["causes"][0]["field"], "metadata.name");
  EXPECT_EQ(status["details"]["causes"][0]["reason"], "FieldValueInvalid");
  http::Reply unnamed =
      Do("POST", "/api/v1/namespaces/default/configmaps", json{{"data", json::object()}}.dump());
  EXPECT_EQ(unnamed.status, 422);
  EXPECT_EQ(Body(unnamed)["details"]["causes"][0]["reason"], "FieldValueRequired");
  // A namespace that does not exist: 404 for the namespace.
  http::Reply no_ns = Do("POST", "/api/v1/namespaces/nowhere/configmaps",
                         json{{"metadata", {{"name", "x"}}}}.dump());
  EXPECT_EQ(no_ns.status, 404);
  EXPECT_EQ(Body(no_ns)["details"]["kind"], "namespaces");
  // Body namespace differs from the URL's: 400.
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/configmaps",
               json{{"metadata", {{"name", "x"}, {"namespace", "team-a"}}}}.dump())
                .status,
            400);
  // Another kind: 400. Not JSON: 400.
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/configmaps",
               json{{"kind", "Secret"}, {"metadata", {{"name", "x"}}}}.dump())
                .status,
            400);
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/configmaps", "{").status, 400);
}

TEST_F(ApiWriteTest, LeaseUpdateIsOptimisticallyConcurrent) {
  const std::string url = "/apis/coordination.k8s.io/v1/namespaces/default/leases/leader";
  json created = Body(Do("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases",
                         LeaseBody("leader", "a").dump()));
  // Two candidates read the same version; the first write wins, the second is a 409.
  json by_b = created, by_c = created;
  by_b["spec"]["holderIdentity"] = "b";
  by_c["spec"]["holderIdentity"] = "c";
  http::Reply first = Do("PUT", url, by_b.dump());
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_NE(Body(first)["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
  http::Reply second = Do("PUT", url, by_c.dump());
  EXPECT_EQ(second.status, 409);
  EXPECT_EQ(Body(second)["reason"], "Conflict");
  JsonDecoder d("lease");
  Lease now = DecodeLease(d, Get(url));
  ASSERT_TRUE(d.status().ok());
  EXPECT_EQ(now.holder_identity, "b");
  // The server keeps uid and creationTimestamp whatever the client sends.
  json rewrite = Get(url);
  rewrite["metadata"]["uid"] = "forged";
  EXPECT_EQ(Body(Do("PUT", url, rewrite.dump()))["metadata"]["uid"], created["metadata"]["uid"]);
  // The URL's name must match the body's.
  EXPECT_EQ(Do("PUT", url, LeaseBody("other", "x").dump()).status, 400);
  EXPECT_EQ(Do("PUT", "/apis/coordination.k8s.io/v1/namespaces/default/leases/none",
               LeaseBody("none", "x").dump())
                .status,
            404);
}

TEST_F(ApiWriteTest, CordonAndUncordonByStrategicMergePatch) {
  AddNode("gpu-1");
  // What kubectl cordon sends.
  http::Reply r = Patch("/api/v1/nodes/gpu-1", {{"spec", {{"unschedulable", true}}}}, kStrategic);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["spec"]["unschedulable"], true);
  EXPECT_EQ(Get("/api/v1/nodes/gpu-1")["spec"]["unschedulable"], true);
  r = Patch("/api/v1/nodes/gpu-1", {{"spec", {{"unschedulable", nullptr}}}}, kStrategic);
  ASSERT_EQ(r.status, 200);
  EXPECT_FALSE(Get("/api/v1/nodes/gpu-1")["spec"].contains("unschedulable"));
  // Labels merge key by key.
  Patch("/api/v1/nodes/gpu-1", {{"metadata", {{"labels", {{"a", "1"}}}}}}, kStrategic);
  Patch("/api/v1/nodes/gpu-1", {{"metadata", {{"labels", {{"b", "2"}}}}}}, kMerge);
  EXPECT_EQ(Get("/api/v1/nodes/gpu-1")["metadata"]["labels"], (json{{"a", "1"}, {"b", "2"}}));
}

TEST_F(ApiWriteTest, CustomResourcesRefuseStrategicMergePatch) {
  ASSERT_EQ(Do("POST", "/apis/kueue.x-k8s.io/v1beta1/clusterqueues",
               json{{"metadata", {{"name", "cq"}}},
                    {"spec", {{"resourceGroups", json::array({{{"flavors", json::array()}}})}}}}
                   .dump())
                .status,
            201);
  const std::string url = "/apis/kueue.x-k8s.io/v1beta1/clusterqueues/cq";
  http::Reply smp = Patch(url, {{"spec", {{"cohort", "x"}}}}, kStrategic);
  EXPECT_EQ(smp.status, 415);
  EXPECT_EQ(Body(smp)["reason"], "UnsupportedMediaType");
  // Merge patch replaces a list whole; JSON patch edits in place.
  http::Reply merge = Patch(url, {{"spec", {{"resourceGroups", json::array()}}}}, kMerge);
  ASSERT_EQ(merge.status, 200) << merge.body;
  EXPECT_EQ(Body(merge)["spec"]["resourceGroups"], json::array());
  http::Reply jp = Patch(
      url, json::array({{{"op", "add"}, {"path", "/spec/cohort"}, {"value", "c"}}}), kJsonPatch);
  ASSERT_EQ(jp.status, 200) << jp.body;
  EXPECT_EQ(Get(url)["spec"]["cohort"], "c");
  // Server-side apply and unknown types: 415.
  EXPECT_EQ(Patch(url, json::object(), "application/apply-patch+yaml").status, 415);
  EXPECT_EQ(Patch(url, json::object(), "text/plain").status, 415);
}

TEST_F(ApiWriteTest, PatchWithAStaleResourceVersionIs409) {
  json cq = Body(Do("POST", "/apis/kueue.x-k8s.io/v1beta1/clusterqueues",
                    json{{"metadata", {{"name", "cq"}}}, {"spec", json::object()}}.dump()));
  const std::string url = "/apis/kueue.x-k8s.io/v1beta1/clusterqueues/cq";
  const std::string read_at = cq["metadata"]["resourceVersion"];
  ASSERT_EQ(Patch(url, {{"spec", {{"cohort", "a"}}}}, kMerge).status, 200);
  http::Reply stale = Patch(
      url, {{"metadata", {{"resourceVersion", read_at}}}, {"spec", {{"cohort", "b"}}}}, kMerge);
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(Get(url)["spec"]["cohort"], "a");
}

TEST_F(ApiWriteTest, PatchErrorsAre400Or422) {
  AddNode("gpu-1");
  // A failed JSON patch test: 422. A malformed patch document: 400.
  http::Reply test =
      Patch("/api/v1/nodes/gpu-1",
            json::array({{{"op", "test"}, {"path", "/spec/unschedulable"}, {"value", true}}}),
            kJsonPatch);
  EXPECT_EQ(test.status, 422) << test.body;
  EXPECT_EQ(Patch("/api/v1/nodes/gpu-1", {{"op", "nope"}}, kJsonPatch).status, 400);
  // Renaming by patch: 422 naming metadata.name.
  http::Reply rename = Patch("/api/v1/nodes/gpu-1", {{"metadata", {{"name", "gpu-2"}}}}, kMerge);
  ASSERT_EQ(rename.status, 422);
  EXPECT_EQ(Body(rename)["details"]["causes"][0]["field"], "metadata.name");
  EXPECT_EQ(Patch("/api/v1/nodes/none", {{"spec", json::object()}}, kMerge).status, 404);
}

TEST_F(ApiWriteTest, DryRunAnswersTheObjectAndAppliesNothing) {
  AddNode("gpu-1");
  const int64_t rv = store_.resource_version();
  http::Reply p =
      Patch("/api/v1/nodes/gpu-1?dryRun=All", {{"spec", {{"unschedulable", true}}}}, kStrategic);
  ASSERT_EQ(p.status, 200);
  EXPECT_EQ(Body(p)["spec"]["unschedulable"], true);
  EXPECT_FALSE(Get("/api/v1/nodes/gpu-1")["spec"].contains("unschedulable"));

  http::Reply c = Do("POST", "/api/v1/namespaces/default/configmaps?dryRun=All",
                     json{{"metadata", {{"name", "cm"}}}, {"data", {{"k", "v"}}}}.dump());
  ASSERT_EQ(c.status, 201);
  EXPECT_EQ(Body(c)["data"]["k"], "v");
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/configmaps/cm").status, 404);

  store_.Commit({{configmaps_, "default", "keep",
                  json{{"metadata", {{"name", "keep"}, {"namespace", "default"}}}}}});
  const int64_t before_delete = store_.resource_version();
  EXPECT_EQ(Do("DELETE", "/api/v1/namespaces/default/configmaps/keep?dryRun=All").status, 200);
  EXPECT_EQ(
      Do("DELETE", "/api/v1/namespaces/default/configmaps/keep", R"({"dryRun":["All"]})").status,
      200);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/configmaps/keep").status, 200);
  EXPECT_EQ(store_.resource_version(), before_delete);
  EXPECT_GT(before_delete, rv);
  // A backend is told it is a dry run.
  Do("DELETE", "/api/v1/namespaces/default/pods/none?dryRun=All");
  ASSERT_FALSE(pods_backend_.writes.empty());
  EXPECT_TRUE(pods_backend_.writes.back().dry_run);
  // "All" is the only value.
  EXPECT_EQ(Patch("/api/v1/nodes/gpu-1?dryRun=Some", json::object(), kMerge).status, 400);
}

TEST_F(ApiWriteTest, DeleteAnswersStatusAndHonoursPreconditions) {
  store_.Commit({{configmaps_, "default", "cm",
                  json{{"metadata", {{"name", "cm"}, {"namespace", "default"}}}}}});
  const std::string rv = std::to_string(store_.resource_version());
  DeleteOptions stale;
  stale.precondition_resource_version = "1";
  http::Reply conflict =
      Do("DELETE", "/api/v1/namespaces/default/configmaps/cm", ToJson(stale).dump());
  EXPECT_EQ(conflict.status, 409);
  DeleteOptions current;
  current.precondition_resource_version = rv;
  http::Reply ok = Do("DELETE", "/api/v1/namespaces/default/configmaps/cm", ToJson(current).dump());
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(Body(ok)["kind"], "Status");
  EXPECT_EQ(Body(ok)["status"], "Success");
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/configmaps/cm").status, 404);
  EXPECT_EQ(Do("DELETE", "/api/v1/namespaces/default/configmaps/cm").status, 404);
  // gracePeriodSeconds reaches the backend.
  AddPod("default", "p", "gpu-1");
  ASSERT_EQ(Do("DELETE", "/api/v1/namespaces/default/pods/p?gracePeriodSeconds=0").status, 200);
  EXPECT_EQ(pods_backend_.writes.back().delete_options.grace_period_seconds, 0);
  EXPECT_EQ(Do("DELETE", "/api/v1/namespaces/default/pods/p", "[1]").status, 400);
}

TEST_F(ApiWriteTest, MethodsAResourceDoesNotTakeAre405WithAllow) {
  AddNode("gpu-1");
  http::Reply del = Do("DELETE", "/api/v1/nodes/gpu-1");
  EXPECT_EQ(del.status, 405);
  EXPECT_EQ(del.Header("Allow"), "GET, PUT, PATCH");
  http::Reply post = Do("POST", "/api/v1/nodes", "{}");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.Header("Allow"), "GET");
  EXPECT_EQ(Body(post)["reason"], "MethodNotAllowed");
}

// ---- Eviction -----------------------------------------------------------------------------

json EvictionBody(const std::string& ns, const std::string& name, bool dry_run = false) {
  Eviction e;
  e.metadata.name = name;
  e.metadata.namespace_name = ns;
  if (dry_run) e.delete_options.dry_run = {"All"};
  e.delete_options.grace_period_seconds = 30;
  return ToJson(e);
}

TEST_F(ApiWriteTest, EvictionGoesToTheBackend) {
  AddPod("team-a", "train-0", "gpu-1");
  http::Reply r = Do("POST", "/api/v1/namespaces/team-a/pods/train-0/eviction",
                     EvictionBody("team-a", "train-0").dump());
  ASSERT_EQ(r.status, 201) << r.body;
  ASSERT_EQ(pods_backend_.evictions.size(), 1u);
  const SubresourceRequest& s = pods_backend_.evictions[0];
  EXPECT_EQ(s.subresource, "eviction");
  EXPECT_EQ(s.namespace_name, "team-a");
  EXPECT_EQ(s.name, "train-0");
  EXPECT_FALSE(s.dry_run);
  ASSERT_TRUE(s.current);
  EXPECT_EQ(s.body["deleteOptions"]["gracePeriodSeconds"], 30);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-a/pods/train-0").status, 404);
  // Evicting what is gone: 404, as kubectl drain expects.
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/team-a/pods/train-0/eviction",
               EvictionBody("team-a", "train-0").dump())
                .status,
            404);
}

TEST_F(ApiWriteTest, EvictionRefusedByABudgetIs429WithRetryAfter) {
  AddPod("team-a", "train-0", "gpu-1");
  pods_backend_.refuse_evictions = true;
  http::Reply r = Do("POST", "/api/v1/namespaces/team-a/pods/train-0/eviction",
                     EvictionBody("team-a", "train-0").dump());
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.Header("Retry-After"), "10");
  EXPECT_EQ(Body(r)["details"]["retryAfterSeconds"], 10);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-a/pods/train-0").status, 200);
}

TEST_F(ApiWriteTest, EvictionChecksItsBody) {
  AddPod("team-a", "train-0", "gpu-1");
  const std::string url = "/api/v1/namespaces/team-a/pods/train-0/eviction";
  // The URL's name must be the body's.
  EXPECT_EQ(Do("POST", url, EvictionBody("team-a", "other").dump()).status, 400);
  // The query's dryRun and the body's must agree.
  EXPECT_EQ(Do("POST", url + "?dryRun=All", EvictionBody("team-a", "train-0").dump()).status, 400);
  http::Reply dry = Do("POST", url + "?dryRun=All", EvictionBody("team-a", "train-0", true).dump());
  ASSERT_EQ(dry.status, 201) << dry.body;
  EXPECT_TRUE(pods_backend_.evictions.back().dry_run);
  EXPECT_TRUE(Do("POST", url, EvictionBody("team-a", "train-0", true).dump()).status == 201 &&
              pods_backend_.evictions.back().dry_run);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-a/pods/train-0").status, 200);
  // Only POST; only the subresources the resource has.
  http::Reply get = Do("GET", url);
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(get.Header("Allow"), "POST");
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/team-a/pods/train-0/binding", "{}").status, 404);
  EXPECT_EQ(Do("POST", url, "[]").status, 400);
}

}  // namespace
}  // namespace steward::kube::testing

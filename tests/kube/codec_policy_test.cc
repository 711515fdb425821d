// policy/v1 (PodDisruptionBudget with the disruption controller's arithmetic, Eviction,
// DeleteOptions), coordination/v1 Lease and the meta/v1 Status errors: round trips, the budget
// numbers computed by hand, and bad input named by field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "kube/api_error.h"
#include "kube/json_decoder.h"
#include "kube/lease.h"
#include "kube/policy_v1.h"

namespace steward::kube {
namespace {

using nlohmann::json;

constexpr int64_t kT = 1'796'332'018'000'000;  // 2026-12-03T21:06:58Z

TEST(IntOrPercentTest, IntegersAreTakenAsTheyAre) {
  EXPECT_EQ(*ResolveIntOrPercent(json(3), 10, true), 3);
  EXPECT_EQ(*ResolveIntOrPercent(json(0), 10, false), 0);
  EXPECT_EQ(*ResolveIntOrPercent(json(12), 10, true), 12);  // Not capped at the total.
}

TEST(IntOrPercentTest, PercentagesRoundUpOrDownAsAsked) {
  // 50% of 5 = 2.5: up 3, down 2. 10% of 7 = 0.7: up 1, down 0. 33% of 3 = 0.99: up 1.
  EXPECT_EQ(*ResolveIntOrPercent(json("50%"), 5, true), 3);
  EXPECT_EQ(*ResolveIntOrPercent(json("50%"), 5, false), 2);
  EXPECT_EQ(*ResolveIntOrPercent(json("10%"), 7, true), 1);
  EXPECT_EQ(*ResolveIntOrPercent(json("10%"), 7, false), 0);
  EXPECT_EQ(*ResolveIntOrPercent(json("33%"), 3, true), 1);
  // Exact products do not round: 25% of 8 = 2.
  EXPECT_EQ(*ResolveIntOrPercent(json("25%"), 8, true), 2);
  EXPECT_EQ(*ResolveIntOrPercent(json("100%"), 9, true), 9);
  EXPECT_EQ(*ResolveIntOrPercent(json("0%"), 9, true), 0);
  EXPECT_EQ(*ResolveIntOrPercent(json("1%"), 0, true), 0);
  EXPECT_EQ(*ResolveIntOrPercent(json("150%"), 4, true), 6);  // maxSurge-style values work.
}

TEST(IntOrPercentTest, MalformedValuesAreErrors) {
  for (const json& bad :
       {json("5"), json("%"), json("50"), json("50%%"), json(" 50%"), json("-10%"), json("+10%"),
        json("5.5%"), json("abc"), json(""), json(1.5), json(true), json(nullptr), json::array()}) {
    Result<int64_t> r = ResolveIntOrPercent(bad, 10, true);
    EXPECT_FALSE(r.ok()) << bad.dump();
  }
  // Past int64: an error, not an overflow.
  EXPECT_FALSE(ResolveIntOrPercent(json("9223372036854775807%"), 10, true).ok());
}

PodDisruptionBudget Budget(std::optional<json> min_available, std::optional<json> max_unavailable) {
  PodDisruptionBudget b;
  b.metadata.name = "web";
  b.metadata.generation = 4;
  b.min_available = std::move(min_available);
  b.max_unavailable = std::move(max_unavailable);
  return b;
}

TEST(PdbStatusTest, MinAvailable) {
  // 5 pods, 4 healthy, minAvailable 3: 4 - 3 = 1 disruption.
  PdbStatus s = ComputePdbStatus(Budget(json(3), std::nullopt), 5, 4);
  EXPECT_EQ(s, (PdbStatus{4, 1, 4, 3, 5}));
  // minAvailable 50% of 5 rounds up to 3.
  EXPECT_EQ(ComputePdbStatus(Budget(json("50%"), std::nullopt), 5, 5).desired_healthy, 3);
  EXPECT_EQ(ComputePdbStatus(Budget(json("50%"), std::nullopt), 5, 5).disruptions_allowed, 2);
  // Fewer healthy than desired: none allowed, never negative.
  EXPECT_EQ(ComputePdbStatus(Budget(json(3), std::nullopt), 5, 2).disruptions_allowed, 0);
  // minAvailable 100%: nothing may go.
  EXPECT_EQ(ComputePdbStatus(Budget(json("100%"), std::nullopt), 4, 4).disruptions_allowed, 0);
}

TEST(PdbStatusTest, MaxUnavailable) {
  // maxUnavailable 1 of 4: desired 3, healthy 4 -> 1.
  EXPECT_EQ(ComputePdbStatus(Budget(std::nullopt, json(1)), 4, 4), (PdbStatus{4, 1, 4, 3, 4}));
  // 30% of 5 = 1.5 rounds up to 2 unavailable: desired 3.
  PdbStatus s = ComputePdbStatus(Budget(std::nullopt, json("30%")), 5, 5);
  EXPECT_EQ(s.desired_healthy, 3);
  EXPECT_EQ(s.disruptions_allowed, 2);
  // One pod already down uses the budget: healthy 4 of 5, desired 3 -> 1.
  EXPECT_EQ(ComputePdbStatus(Budget(std::nullopt, json("30%")), 5, 4).disruptions_allowed, 1);
  // More unavailable allowed than pods: desired is 0, not negative.
  EXPECT_EQ(ComputePdbStatus(Budget(std::nullopt, json(10)), 3, 3).desired_healthy, 0);
  EXPECT_EQ(ComputePdbStatus(Budget(std::nullopt, json(10)), 3, 3).disruptions_allowed, 3);
  // maxUnavailable 0: nothing.
  EXPECT_EQ(ComputePdbStatus(Budget(std::nullopt, json(0)), 3, 3).disruptions_allowed, 0);
}

TEST(PdbStatusTest, NoExpectedPodsOrNoRuleAllowsNothing) {
  // The controller allows no disruption while a budget expects no pods.
  EXPECT_EQ(ComputePdbStatus(Budget(json(0), std::nullopt), 0, 0).disruptions_allowed, 0);
  EXPECT_EQ(ComputePdbStatus(Budget(std::nullopt, json(5)), 0, 0).disruptions_allowed, 0);
  // Neither field: both counts stay 0 (getExpectedPodCount sets neither).
  EXPECT_EQ(ComputePdbStatus(Budget(std::nullopt, std::nullopt), 3, 3), (PdbStatus{4, 0, 3, 0, 0}));
  // A value that does not resolve fails safe.
  PdbStatus bad = ComputePdbStatus(Budget(json("five"), std::nullopt), 5, 5);
  EXPECT_EQ(bad.disruptions_allowed, 0);
  EXPECT_EQ(bad.desired_healthy, 5);
}

TEST(PdbCodecTest, RoundTripsIntsPercentsAndSelector) {
  for (const json& v : {json(2), json("25%")}) {
    PodDisruptionBudget b = Budget(std::nullopt, v);
    b.metadata.namespace_name = "team-a";
    b.selector = {{"matchLabels", {{"app", "web"}}}};
    b.unhealthy_pod_eviction_policy = "AlwaysAllow";
    b.status = ComputePdbStatus(b, 4, 4);
    JsonDecoder d("PodDisruptionBudget team-a/web");
    const PodDisruptionBudget back = DecodePdb(d, json::parse(ToJson(b).dump()));
    ASSERT_TRUE(d.status().ok()) << d.status().message();
    EXPECT_EQ(back, b) << v.dump();
  }
  // A null selector stays null (selects nothing); an absent one decodes as {} (everything).
  JsonDecoder d("PodDisruptionBudget");
  EXPECT_TRUE(DecodePdb(d, json{{"spec", {{"selector", nullptr}}}}).selector.is_null());
  EXPECT_EQ(DecodePdb(d, json{{"spec", json::object()}}).selector, json::object());
  EXPECT_TRUE(d.status().ok());
}

TEST(PdbCodecTest, InvalidBudgetsNameTheField) {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"spec", {{"minAvailable", 1.5}}}}, "spec.minAvailable"},
      {{{"spec", {{"minAvailable", "5"}}}}, "spec.minAvailable"},
      {{{"spec", {{"minAvailable", -1}}}}, "spec.minAvailable"},
      {{{"spec", {{"maxUnavailable", "150%"}}}}, "spec.maxUnavailable"},
      {{{"spec", {{"maxUnavailable", "-5%"}}}}, "spec.maxUnavailable"},
      {{{"spec", {{"maxUnavailable", 4294967296LL}}}}, "spec.maxUnavailable"},
      {{{"spec", {{"minAvailable", 1}, {"maxUnavailable", 1}}}}, "spec"},
      {{{"spec", {{"selector", "app=web"}}}}, "spec.selector"},
      {{{"status", {{"disruptionsAllowed", "1"}}}}, "status.disruptionsAllowed"},
  };
  for (const auto& [j, field] : cases) {
    JsonDecoder d("PodDisruptionBudget team-a/web");
    DecodePdb(d, j);
    ASSERT_FALSE(d.status().ok()) << j.dump();
    EXPECT_NE(d.status().message().find("PodDisruptionBudget team-a/web: " + field + ":"),
              std::string::npos)
        << d.status().message();
  }
}

TEST(EvictionCodecTest, RoundTripsWithDeleteOptions) {
  Eviction e;
  e.metadata.name = "train-0";
  e.metadata.namespace_name = "team-a";
  e.delete_options = {30, {"All"}, "uid-1", "17", "Foreground"};
  JsonDecoder d("Eviction");
  const json j = ToJson(e);
  EXPECT_EQ(j["apiVersion"], "policy/v1");
  EXPECT_EQ(j["deleteOptions"]["preconditions"]["resourceVersion"], "17");
  EXPECT_EQ(DecodeEviction(d, json::parse(j.dump())), e);
  EXPECT_TRUE(d.status().ok());
  // No options: no deleteOptions member at all.
  Eviction bare;
  bare.metadata.name = "x";
  EXPECT_FALSE(ToJson(bare).contains("deleteOptions"));
  EXPECT_EQ(DecodeEviction(d, ToJson(bare)), bare);
}

TEST(EvictionCodecTest, BadDeleteOptionsNameTheField) {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"deleteOptions", {{"gracePeriodSeconds", "30"}}}}, "deleteOptions.gracePeriodSeconds"},
      {{{"deleteOptions", {{"dryRun", "All"}}}}, "deleteOptions.dryRun"},
      {{{"deleteOptions", {{"dryRun", {1}}}}}, "deleteOptions.dryRun[]"},
      {{{"deleteOptions", {{"preconditions", {{"uid", 5}}}}}}, "deleteOptions.preconditions.uid"},
      {{{"deleteOptions", json::array()}}, "deleteOptions"},
  };
  for (const auto& [j, field] : cases) {
    JsonDecoder d("Eviction team-a/x");
    DecodeEviction(d, j);
    ASSERT_FALSE(d.status().ok()) << j.dump();
    EXPECT_NE(d.status().message().find("Eviction team-a/x: " + field + ":"), std::string::npos)
        << d.status().message();
  }
}

TEST(LeaseCodecTest, RoundTripsMicroTimes) {
  Lease l;
  l.metadata.name = "steward-operator";
  l.metadata.namespace_name = "steward";
  l.holder_identity = "steward-0_1234";
  l.lease_duration_seconds = 15;
  l.acquire_time = kT + 1;
  l.renew_time = kT + 654321;
  l.lease_transitions = 2;
  const json j = ToJson(l);
  EXPECT_EQ(j["spec"]["acquireTime"], "2026-12-03T21:06:58.000001Z");
  EXPECT_EQ(j["spec"]["renewTime"], "2026-12-03T21:06:58.654321Z");
  JsonDecoder d("Lease steward/steward-operator");
  EXPECT_EQ(DecodeLease(d, json::parse(j.dump())), l);
  EXPECT_TRUE(d.status().ok());
  // An empty lease has an empty spec.
  EXPECT_EQ(ToJson(Lease{})["spec"], json::object());
  JsonDecoder bad("Lease steward/x");
  DecodeLease(bad, json{{"spec", {{"renewTime", "2026-12-03T21:06:58.654321"}}}});
  EXPECT_NE(bad.status().message().find("spec.renewTime"), std::string::npos);
  JsonDecoder bad2("Lease steward/x");
  DecodeLease(bad2, json{{"spec", {{"leaseDurationSeconds", "15s"}}}});
  EXPECT_NE(bad2.status().message().find("spec.leaseDurationSeconds"), std::string::npos);
}

TEST(ApiErrorTest, StatusBodiesRoundTrip) {
  const std::vector<ApiError> errors = {
      ApiError::NotFound("pods", "", "train-0"),
      ApiError::AlreadyExists("clusterqueues", "kueue.x-k8s.io", "team-a"),
      ApiError::Conflict("nodes", "", "gpu-1", "the object has been modified"),
      ApiError::Invalid("Node", "", "gpu-1",
                        {{"FieldValueInvalid", "must be a boolean", "spec.unschedulable"}}),
      ApiError::TooManyRequests("Cannot evict pod", 10),
      ApiError::Gone("too old resource version: 5 (9)"),
      ApiError::Timeout("Too large resource version"),
  };
  for (const ApiError& e : errors) {
    const json j = ToJson(e);
    EXPECT_EQ(j["kind"], "Status");
    EXPECT_EQ(j["status"], "Failure");
    const ApiError back = DecodeApiError(e.code, j.dump());
    EXPECT_EQ(back.code, e.code);
    EXPECT_EQ(back.reason, e.reason);
    EXPECT_EQ(back.message, e.message);
    EXPECT_EQ(back.name, e.name);
    EXPECT_EQ(back.group, e.group);
    EXPECT_EQ(back.kind, e.kind);
    EXPECT_EQ(back.retry_after_seconds, e.retry_after_seconds);
    ASSERT_EQ(back.causes.size(), e.causes.size());
    for (size_t i = 0; i < e.causes.size(); ++i) {
      EXPECT_EQ(back.causes[i].type, e.causes[i].type);
      EXPECT_EQ(back.causes[i].field, e.causes[i].field);
      EXPECT_EQ(back.causes[i].message, e.causes[i].message);
    }
  }
}

TEST(ApiErrorTest, MessagesAndDetailsAsKubernetesWritesThem) {
  const ApiError nf = ApiError::NotFound("clusterqueues", "kueue.x-k8s.io", "a");
  EXPECT_EQ(nf.code, 404);
  EXPECT_EQ(nf.message, "clusterqueues.kueue.x-k8s.io \"a\" not found");
  EXPECT_EQ(ToJson(nf)["details"]["kind"], "clusterqueues");
  EXPECT_EQ(ApiError::NotFound("pods", "", "x").message, "pods \"x\" not found");
  const ApiError conflict = ApiError::Conflict("nodes", "", "n", "please retry");
  EXPECT_EQ(conflict.message, "Operation cannot be fulfilled on nodes \"n\": please retry");
  EXPECT_EQ(ApiError::Gone("x").reason, "Expired");
  EXPECT_EQ(ApiError::Gone("x").code, 410);
  // One cause prints bare, several in brackets (an aggregate of field errors).
  EXPECT_EQ(
      ApiError::Invalid("Pod", "", "p", {{"FieldValueRequired", "Required value", "a"}}).message,
      "Pod \"p\" is invalid: a: Required value");
  EXPECT_EQ(ApiError::Invalid("ListOptions", "meta.k8s.io", "",
                              {{"", "Forbidden: x", "a"}, {"", "Forbidden: y", "b"}})
                .message,
            "ListOptions.meta.k8s.io \"\" is invalid: [a: Forbidden: x, b: Forbidden: y]");
  const json tmr = ToJson(ApiError::TooManyRequests("slow down", 7));
  EXPECT_EQ(tmr["details"]["retryAfterSeconds"], 7);
  EXPECT_FALSE(ToJson(ApiError::BadRequest("x")).contains("details"));
  EXPECT_EQ(ApiError::FromStatus(Status::InvalidArgument("bad")).code, 400);
  EXPECT_EQ(ApiError::FromStatus(Status::NotFound("gone")).reason, "NotFound");
  EXPECT_EQ(ApiError::FromStatus(Status::FailedPrecondition("stale")).code, 409);
  EXPECT_EQ(ApiError::FromStatus(Status::IoError("disk")).code, 500);
}

TEST(ApiErrorTest, AnswersWithoutAStatusGetTheReasonOfTheirCode) {
  const ApiError html = DecodeApiError(404, "<html>404 page not found</html>");
  EXPECT_EQ(html.code, 404);
  EXPECT_EQ(html.reason, "NotFound");
  EXPECT_EQ(html.message, "<html>404 page not found</html>");
  EXPECT_EQ(DecodeApiError(409, "").reason, "Conflict");
  EXPECT_EQ(DecodeApiError(429, "slow").reason, "TooManyRequests");
  EXPECT_EQ(DecodeApiError(502, "bad gateway").reason, "InternalError");
  EXPECT_EQ(DecodeApiError(418, "teapot").reason, "Unknown");
  // A huge body is cut to its start.
  EXPECT_EQ(DecodeApiError(500, std::string(10000, 'x')).message.size(), 512u);
  // A Status without a reason, or with wrong types, still decodes.
  const ApiError partial =
      DecodeApiError(403, R"({"kind":"Status","code":"403","message":7,"details":[1]})");
  EXPECT_EQ(partial.code, 403);
  EXPECT_EQ(partial.reason, "Forbidden");
  EXPECT_EQ(partial.message, "");
  const ApiError weird = DecodeApiError(
      500, R"({"kind":"Status","code":99999,"details":{"retryAfterSeconds":-5,"causes":[1,{}]}})");
  EXPECT_EQ(weird.code, 500);
  EXPECT_EQ(weird.retry_after_seconds, 0);
  EXPECT_EQ(weird.causes.size(), 1u);
}

}  // namespace
}  // namespace steward::kube

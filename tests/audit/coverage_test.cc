// The "not read" accounting: which checks cannot run, or run incomplete, when kinds could not
// be read (a cluster that does not serve them), and that skipped checks report nothing.
#include "audit/coverage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "audit/check.h"
#include "audit/loader.h"
#include "audit/report.h"

namespace steward::audit {
namespace {

const CheckCoverage* Find(const std::vector<CheckCoverage>& gaps, std::string_view id) {
  for (const CheckCoverage& g : gaps)
    if (g.id == id) return &g;
  return nullptr;
}

ObjectSet Example() {
  ObjectSet set;
  Status s = LoadPaths({std::string(STEWARD_SOURCE_DIR) + "/examples/tenancy/cluster"}, &set);
  EXPECT_TRUE(s.ok()) << s.message();
  return set;
}

TEST(CoverageTest, EveryCheckHasInputsAndEveryInputIsAnAuditedKind) {
  for (const Check& c : AllChecks()) {
    const CheckInputs in = InputsOf(c.id);
    EXPECT_FALSE(in.required.empty()) << c.id;
    for (const auto* kinds : {&in.required, &in.used})
      for (std::string_view k : *kinds)
        EXPECT_NE(std::ranges::count(AuditedKinds(), k), 0) << c.id << " reads " << k;
  }
}

TEST(CoverageTest, NothingUnreadNoGaps) { EXPECT_TRUE(CoverageGaps({}).empty()); }

TEST(CoverageTest, UnreadBindingsStopEveryRbacCheckAndNothingElse) {
  const auto gaps = CoverageGaps({{"RoleBinding", "forbidden"}});
  for (const Check& c : AllChecks()) {
    const CheckCoverage* g = Find(gaps, c.id);
    if (c.layer == Layer::kRbac) {
      ASSERT_NE(g, nullptr) << c.id;
      EXPECT_FALSE(g->run) << c.id;
      EXPECT_EQ(g->missing, std::vector<std::string>{"RoleBinding"});
    } else {
      EXPECT_EQ(g, nullptr) << c.id;
    }
  }
}

TEST(CoverageTest, UnreadQuotasStopTheUnboundedCheckAndMakeOvercommitIncomplete) {
  const auto gaps = CoverageGaps({{"ResourceQuota", "not served"}});
  const CheckCoverage* unbounded = Find(gaps, "quota.gpu-unbounded");
  ASSERT_NE(unbounded, nullptr);
  EXPECT_FALSE(unbounded->run);
  const CheckCoverage* overcommit = Find(gaps, "quota.pool-overcommitted");
  ASSERT_NE(overcommit, nullptr);
  EXPECT_TRUE(overcommit->run);
  EXPECT_EQ(Find(gaps, "nodes.gpu-pool-untainted"), nullptr);
}

TEST(CoverageTest, UnreadTenantKindsMakeEveryOtherCheckIncomplete) {
  const auto gaps = CoverageGaps({{"LocalQueue", "forbidden"}});
  EXPECT_EQ(gaps.size(), AllChecks().size());
  for (const CheckCoverage& g : gaps) EXPECT_TRUE(g.run) << g.id;
}

TEST(CoverageTest, SkippedChecksReportNothingAndTheRestIsUnchanged) {
  ObjectSet all = Example();
  const AuditResult full = RunAudit(all, {});
  ObjectSet partial = Example();
  partial.not_read = {{"NetworkPolicy", "not served"}};
  const AuditResult r = RunAudit(partial, {});
  EXPECT_EQ(r.checks_run, AllChecks().size() - 3);
  size_t network = 0;
  for (const Finding& f : full.findings) network += f.layer == Layer::kNetwork;
  ASSERT_GT(network, 0u);  // The example plants network violations: the test can fail.
  EXPECT_EQ(r.findings.size(), full.findings.size() - network);
  for (const Finding& f : r.findings) EXPECT_NE(f.layer, Layer::kNetwork) << f.id;

  const nlohmann::json j = FindingsJson(r);
  ASSERT_EQ(j["not_read"].size(), 1u);
  EXPECT_EQ(j["not_read"][0]["kind"], "NetworkPolicy");
  EXPECT_EQ(j["checks_not_run"].size(), 3u);
  EXPECT_NE(FindingsTable(r).find("NOT READ"), std::string::npos);
  const nlohmann::json inv = FindingsSarif(r)["runs"][0]["invocations"][0];
  EXPECT_EQ(inv["properties"]["notRead"][0]["kind"], "NetworkPolicy");
  EXPECT_EQ(inv["toolExecutionNotifications"].size(), 1u + 3u);
  // Without unread kinds the report has no such section.
  EXPECT_EQ(FindingsTable(full).find("NOT READ"), std::string::npos);
  EXPECT_TRUE(FindingsJson(full)["not_read"].empty());
}

TEST(ApiListTest, ObjectsFromAnApiAnswerHaveNoFileAndErrorsNameTheSource) {
  ObjectSet set;
  nlohmann::json list = {
      {"kind", "List"},
      {"items",
       {{{"apiVersion", "v1"},
         {"kind", "Namespace"},
         {"metadata", {{"name", "team-a"}, {"labels", {{"steward.io/tenant", "team-a"}}}}}},
        {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
         {"kind", "LocalQueue"},
         {"metadata", {{"name", "q"}, {"namespace", "team-a"}}},
         {"spec", {{"clusterQueue", "team-a"}}}}}}};
  ASSERT_TRUE(ParseApiList(list, "https://k/api/v1/namespaces", &set).ok());
  ASSERT_EQ(set.namespaces.size(), 1u);
  EXPECT_TRUE(set.namespaces[0].meta.ref.file.empty());
  EXPECT_EQ(set.namespaces[0].meta.ref.line, 0);
  ASSERT_EQ(set.policy.local_queues.size(), 1u);
  EXPECT_TRUE(set.policy.local_queues[0].source.file.empty());

  nlohmann::json bad = {{"apiVersion", "v1"},
                        {"kind", "Node"},
                        {"metadata", {{"name", "n1"}}},
                        {"spec", {{"taints", "not-a-list"}}}};
  Status s = ParseApiList(bad, "https://k/api/v1/nodes", &set);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("https://k/api/v1/nodes"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("spec.taints"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace steward::audit

// examples/tenancy/cluster holds one planted violation per check, listed in
// examples/tenancy/planted.tsv; the audit must find exactly those, and the output formats must
// carry them.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "audit/check.h"
#include "audit/loader.h"
#include "audit/report.h"

namespace steward::audit {
namespace {

using Key = std::tuple<std::string, std::string, std::string>;  // id, tenant, first object.

std::string Example(const std::string& rel) {
  return std::string(STEWARD_SOURCE_DIR) + "/examples/tenancy/" + rel;
}

std::multiset<Key> Planted() {
  std::multiset<Key> out;
  std::ifstream in(Example("planted.tsv"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    std::string id, tenant, object;
    std::getline(ss, id, '\t');
    std::getline(ss, tenant, '\t');
    std::getline(ss, object, '\t');
    out.insert({id, tenant, object});
  }
  return out;
}

AuditResult AuditExample() {
  ObjectSet o;
  Status s = LoadPaths({Example("cluster")}, &o);
  EXPECT_TRUE(s.ok()) << s.message();
  return RunAudit(o, AuditOptions{});
}

TEST(TenancyExample, FindsExactlyThePlantedViolations) {
  const AuditResult r = AuditExample();
  std::multiset<Key> found;
  for (const Finding& f : r.findings)
    found.insert({f.id, f.tenant, f.objects.empty() ? "" : f.objects.front().Id()});
  const std::multiset<Key> planted = Planted();
  ASSERT_FALSE(planted.empty());
  EXPECT_EQ(found, planted);
  std::set<std::string> ids;
  for (const Check& c : AllChecks()) ids.insert(std::string(c.id));
  std::set<std::string> planted_ids;
  for (const auto& k : planted) planted_ids.insert(std::get<0>(k));
  EXPECT_EQ(planted_ids, ids) << "the example plants one violation of every check";
  EXPECT_EQ(r.tenants.size(), 4u);  // team-a, team-b, team-c (LocalQueue), team-d.
}

TEST(TenancyExample, JsonAndSarifCarryEveryFinding) {
  const AuditResult r = AuditExample();
  const nlohmann::json j = FindingsJson(r);
  ASSERT_EQ(j["findings"].size(), r.findings.size());
  for (const auto& f : j["findings"])
    for (const char* field : {"id", "layer", "severity", "tenant", "objects", "message", "fix"})
      EXPECT_TRUE(f.contains(field)) << field;
  const nlohmann::json s = FindingsSarif(r);
  EXPECT_EQ(s["version"], "2.1.0");
  ASSERT_EQ(s["runs"].size(), 1u);
  EXPECT_EQ(s["runs"][0]["results"].size(), r.findings.size());
  EXPECT_EQ(s["runs"][0]["tool"]["driver"]["rules"].size(), AllChecks().size());
  for (const auto& res : s["runs"][0]["results"]) {
    const int idx = res["ruleIndex"];
    EXPECT_EQ(s["runs"][0]["tool"]["driver"]["rules"][idx]["id"], res["ruleId"]);
    EXPECT_TRUE(res["level"] == "error" || res["level"] == "warning");
    EXPECT_TRUE(res["locations"][0].contains("physicalLocation") ||
                res["locations"][0].contains("logicalLocations"));
  }
  const std::string table = FindingsTable(r);
  for (const Finding& f : r.findings) EXPECT_NE(table.find(f.id), std::string::npos);
}

TEST(FailOn, SeverityThresholds) {
  AuditResult warn_only;
  warn_only.findings.push_back(Finding{"x", Layer::kQuota, Severity::kWarning, "", {}, "m", "f"});
  EXPECT_FALSE(ShouldFail(warn_only, *ParseFailOn("critical")));
  EXPECT_TRUE(ShouldFail(warn_only, *ParseFailOn("warning")));
  EXPECT_FALSE(ShouldFail(warn_only, *ParseFailOn("never")));
  EXPECT_FALSE(ShouldFail(AuditResult{}, *ParseFailOn("warning")));
  EXPECT_FALSE(ParseFailOn("sometimes").ok());
}

}  // namespace
}  // namespace steward::audit

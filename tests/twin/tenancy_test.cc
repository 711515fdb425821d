// The scenario's tenancy section: parsed, audited with the twin's own nodes and policy, carried
// into the report; bad sections and bad object files name scenario, file, line and field.
#include "twin/tenancy.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "twin/twin.h"

namespace steward::twin {
namespace {

namespace fs = std::filesystem;

class TenancyScenario : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("steward_twin_tenancy_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  // Two tenant pools (team-b's untainted) and fifo-quota teams.
  std::string Scenario(const std::string& tenancy) {
    return "name: t\nhorizon_days: 0.1\ncluster:\n  gpu_models: [{name: H100, product_label: "
           "H100}]\n  pools:\n  - {name: a, nodes: 1, gpu_model: H100, labels: "
           "{steward.io/tenant: team-a}, taints: [{key: steward.io/tenant, value: team-a, "
           "effect: NoSchedule}]}\n  - {name: b, nodes: 1, gpu_model: H100, labels: "
           "{steward.io/tenant: team-b}}\nteams:\n  - {name: team-a, quota_gpus: 8}\n  - "
           "{name: team-b, quota_gpus: 8}\ngenerators:\n  - {name: g, team: team-a, kind: "
           "batch, arrival: {rate_per_hour: 1}}\n" +
           tenancy;
  }
  fs::path dir_;
};

const char* kNamespaces =
    "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: "
    "team-a}}\n- {apiVersion: v1, kind: Namespace, metadata: {name: team-b}}\n";

TEST_F(TenancyScenario, AuditsTheFilesWithTheTwinsNodesAndPolicy) {
  Write("ns.yaml", kNamespaces);
  auto s = LoadScenario(Write("s.yaml", Scenario("tenancy:\n  files: [ns.yaml]\n")));
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(s->tenancy.enabled());
  EXPECT_EQ(s->tenancy.files[0], dir_ / "ns.yaml");  // Relative to the scenario.
  auto twin = Twin::Create(*s);
  ASSERT_TRUE(twin.ok()) << twin.status().message();
  const auto& t = (*twin)->tenancy();
  ASSERT_TRUE(t.has_value());
  // Tenants come from the twin's fifo-quota LocalQueues; pools from its node labels.
  EXPECT_EQ(t->tenants.size(), 2u);
  int untainted = 0, no_deny = 0;
  for (const audit::Finding& f : t->findings) {
    if (f.id == "nodes.gpu-pool-untainted") {
      ++untainted;
      EXPECT_EQ(f.tenant, "team-b");
      EXPECT_EQ(f.objects.front().name, "b-0000");
    }
    no_deny += f.id == "network.no-default-deny";
  }
  EXPECT_EQ(untainted, 1);
  EXPECT_EQ(no_deny, 2);
  const Report r = (*twin)->Run();
  ASSERT_TRUE(r.tenancy.has_value());
  EXPECT_EQ(r.tenancy->findings.size(), t->findings.size());
  const nlohmann::json j = ToJson(r);
  ASSERT_TRUE(j.contains("tenancy"));
  EXPECT_EQ(j["tenancy"]["findings"].size(), t->findings.size());
  EXPECT_NE(ToText(r).find("nodes.gpu-pool-untainted"), std::string::npos);
  EXPECT_NE(ToHtml(r).find("Tenant isolation"), std::string::npos);
}

TEST_F(TenancyScenario, WithoutTheSectionThereIsNoAudit) {
  auto s = LoadScenario(Write("s.yaml", Scenario("")));
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto twin = Twin::Create(*s);
  ASSERT_TRUE(twin.ok());
  EXPECT_FALSE((*twin)->tenancy().has_value());
  EXPECT_FALSE(ToJson((*twin)->Run()).contains("tenancy"));
}

TEST_F(TenancyScenario, SectionErrorsNameTheField) {
  auto empty = LoadScenario(Write("s.yaml", Scenario("tenancy:\n  files: []\n")));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("tenancy.files"), std::string::npos);
  auto unknown = LoadScenario(Write("s2.yaml", Scenario("tenancy:\n  files: [x]\n  lable: y\n")));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("lable"), std::string::npos);
}

TEST_F(TenancyScenario, ObjectFileErrorsNameScenarioFileLineAndField) {
  Write("bad.yaml",
        "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: "
        "team-a}\nspec: {hard: {requests.nvidia.com/gpu: lots}}\n");
  auto s = LoadScenario(Write("s.yaml", Scenario("tenancy:\n  files: [bad.yaml]\n")));
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto twin = Twin::Create(*s);
  ASSERT_FALSE(twin.ok());
  const std::string& m = twin.status().message();
  EXPECT_NE(m.find("s.yaml:"), std::string::npos) << m;
  EXPECT_NE(m.find("bad.yaml:4:"), std::string::npos) << m;
  EXPECT_NE(m.find("ResourceQuota team-a/q: spec.hard.requests.nvidia.com/gpu"), std::string::npos)
      << m;
}

}  // namespace
}  // namespace steward::twin

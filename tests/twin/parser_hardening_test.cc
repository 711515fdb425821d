// Crafted scenario and trace inputs that used to be read as wrong numbers: counts that wrap
// around, NaN and infinity, duplicate keys and columns, CR-only line endings.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "twin/build_cluster.h"
#include "twin/scenario.h"
#include "twin/trace.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

using ::testing::HasSubstr;

// The small scenario with one generator whose `field: value` line is given.
std::string WithGenerator(const std::string& line) {
  return testing::SmallScenarioYaml(
      2, "a:16",
      "generators:\n  - name: g\n    team: a\n    kind: batch\n    arrival: {process: once, "
      "count: 1}\n    " +
          line + "\n");
}

TEST(ScenarioHardeningTest, GeneratorBaselineParses) {
  Result<Scenario> s = ParseScenario(WithGenerator("gpus_per_pod: 8"), "ok.yaml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->generators.size(), 1u);
  EXPECT_EQ(s->generators[0].gpus_per_pod.value, 8);
}

TEST(ScenarioHardeningTest, CraftedNumbersAreErrorsNamingTheField) {
  struct Case {
    std::string line, expect;
  };
  const Case cases[] = {
      // 2^32 + 8: stored as an int after rounding, it ran as 8.
      {"gpus_per_pod: 4294967304", "gpus_per_pod: 4294967304 is out of range"},
      {"gpus_per_pod: {dist: choice, values: [1, 4294967304]}", "is out of range"},
      {"gpus_per_pod: 2.5", "2.5 is not a whole number"},
      {"pods: 1e12", "pods: 1000000000000 is out of range"},
      {"gpus_per_pod: {dist: lognormal, median: 2, sigma: 1, max: 1e12}", "max 1000000000000"},
      {"duration_hours: .nan", "duration_hours: '.nan' is not a finite number"},
      {"duration_hours: .inf", "is not a finite number"},
      {"duration_hours: {dist: exponential, mean: .inf}", "mean: '.inf' is not a finite number"},
      {"duration_hours: 1e400", "beyond the range of a double"},
  };
  for (const Case& c : cases) {
    Result<Scenario> s = ParseScenario(WithGenerator(c.line), "bad.yaml");
    ASSERT_FALSE(s.ok()) << c.line;
    EXPECT_THAT(s.status().message(), HasSubstr(c.expect)) << c.line;
    EXPECT_THAT(s.status().message(), HasSubstr("bad.yaml:")) << c.line;
  }
}

TEST(ScenarioHardeningTest, IntegerFieldsRefuseWrapAround) {
  std::string yaml = testing::SmallScenarioYaml(2, "a:16", "");
  // seed is a uint64: 2^64 does not fit.
  yaml.replace(yaml.find("seed: 7"), 7, "seed: 18446744073709551616");
  Result<Scenario> s = ParseScenario(yaml, "bad.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("seed: '18446744073709551616' is out of range"));
}

TEST(ScenarioHardeningTest, DuplicateKeysAreRefused) {
  std::string yaml = testing::SmallScenarioYaml(2, "a:16", "");
  yaml.replace(yaml.find("seed: 7\n"), 8, "seed: 7\nseed: 8\n");
  Result<Scenario> s = ParseScenario(yaml, "dup.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("dup.yaml:3:1: seed: duplicate key"));
}

TEST(ScenarioHardeningTest, CrOnlyLineEndingsReadLikeLf) {
  const std::string lf = std::string(DefaultScenarioYaml());
  std::string cr = lf;
  std::replace(cr.begin(), cr.end(), '\n', '\r');
  Result<Scenario> a = ParseScenario(lf, "lf.yaml");
  Result<Scenario> b = ParseScenario(cr, "cr.yaml");
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(a->name, b->name);
  EXPECT_EQ(a->teams.size(), b->teams.size());
  ASSERT_EQ(a->generators.size(), b->generators.size());
  for (size_t i = 0; i < a->generators.size(); ++i) {
    EXPECT_EQ(a->generators[i].name, b->generators[i].name);
    EXPECT_EQ(a->generators[i].gpus_per_pod.Mean(), b->generators[i].gpus_per_pod.Mean());
  }
  // A CR-only error names the line an editor shows.
  std::string bad = lf + "bogus_field: 1\n";
  const int lines = static_cast<int>(std::count(bad.begin(), bad.end(), '\n'));
  std::replace(bad.begin(), bad.end(), '\n', '\r');
  Result<Scenario> e = ParseScenario(bad, "cr.yaml");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("cr.yaml:" + std::to_string(lines) + ":1: bogus"));
}

Result<TraceLoad> LoadCsv(const std::string& name, const std::string& csv) {
  Scenario s = testing::MustParse(testing::SmallScenarioYaml(2, "a:16", ""));
  TraceSpec spec;
  spec.path = testing::WriteTempFile(name, csv);
  auto cluster = BuildCluster(s);
  if (!cluster.ok()) return cluster.status();
  return LoadTrace(spec, s, *cluster);
}

constexpr char kHeader[] = "submit_seconds,name,team,kind,pods,gpus_per_pod,duration_seconds";

TEST(TraceHardeningTest, NonFiniteNumbersAreRefused) {
  for (const char* duration : {"nan", "NaN", "inf", "-inf", "infinity"}) {
    Result<TraceLoad> r =
        LoadCsv("nan.csv", std::string(kHeader) + "\n0,j,a,batch,1,1," + duration + "\n");
    ASSERT_FALSE(r.ok()) << duration;
    EXPECT_THAT(r.status().message(), HasSubstr("nan.csv:2:7: duration_seconds")) << duration;
    EXPECT_THAT(r.status().message(), HasSubstr("not a finite number")) << duration;
  }
  Result<TraceLoad> submit = LoadCsv("nan.csv", std::string(kHeader) + "\nnan,j,a,batch,1,1,60\n");
  ASSERT_FALSE(submit.ok());
  EXPECT_THAT(submit.status().message(), HasSubstr("submit_seconds"));
}

TEST(TraceHardeningTest, DuplicateColumnsAreRefused) {
  Result<TraceLoad> r = LoadCsv("dup.csv", std::string(kHeader) + ",pods\n0,j,a,batch,1,1,60,4\n");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("dup.csv:1:8: pods: duplicate column"));
}

TEST(TraceHardeningTest, CrOnlyAndCrLfFilesReadLikeLf) {
  const std::string lf = std::string(kHeader) + "\n0,j1,a,batch,1,2,60\n10,j2,a,batch,2,1,120\n";
  std::string cr = lf, crlf;
  std::replace(cr.begin(), cr.end(), '\n', '\r');
  for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  for (const auto& [name, text] :
       {std::pair{"lf.csv", lf}, std::pair{"cr.csv", cr}, std::pair{"crlf.csv", crlf}}) {
    Result<TraceLoad> r = LoadCsv(name, text);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().message();
    ASSERT_EQ(r->workloads.size(), 2u) << name;
    EXPECT_EQ(r->workloads[1].name, "j2") << name;
  }
  // Line numbers count CRs as line ends.
  std::string bad = std::string(kHeader) + "\n0,j1,a,batch,1,2,60\n10,j2,a,batch,1,x,60\n";
  std::replace(bad.begin(), bad.end(), '\n', '\r');
  Result<TraceLoad> r = LoadCsv("crbad.csv", bad);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("crbad.csv:3:6: gpus_per_pod"));
}

}  // namespace
}  // namespace steward::twin

#include "model/yaml_checked.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/text.h"

namespace steward::model {
namespace {

using ::testing::HasSubstr;

template <typename T>
Result<T> Read(const std::string& scalar) {
  T v{};
  Status s = ReadYamlNumber(YAML::Load(scalar), &v);
  if (!s.ok()) return s;
  return v;
}

TEST(YamlCheckedTest, FiniteNumbersOnly) {
  EXPECT_EQ(*Read<double>("1.5"), 1.5);
  EXPECT_EQ(*Read<double>("-2e3"), -2000);
  EXPECT_EQ(*Read<double>("+7"), 7);
  EXPECT_EQ(*Read<double>("1e-400"), 0);  // Underflow is zero, not an error.
  for (const char* bad : {".nan", ".NaN", "nan", ".inf", "-.inf", "inf", "infinity", "1e400"}) {
    Result<double> r = Read<double>(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("finite")) << bad;
  }
  EXPECT_THAT(Read<double>("lots").status().message(), HasSubstr("cannot read 'lots'"));
  EXPECT_FALSE(Read<float>("1e300").ok());  // Beyond a float.
}

TEST(YamlCheckedTest, IntegersInRangeOfTheirType) {
  EXPECT_EQ(*Read<int>("1280"), 1280);
  EXPECT_EQ(*Read<int>("1.28e3"), 1280);
  EXPECT_EQ(*Read<int>("-5"), -5);
  // 4294967304 = 2^32 + 8: a wrap-around would read 8.
  Result<int> wrapped = Read<int>("4294967304");
  ASSERT_FALSE(wrapped.ok());
  EXPECT_THAT(wrapped.status().message(), HasSubstr("out of range [-2147483648, 2147483647]"));
  EXPECT_FALSE(Read<int>("4.294967304e9").ok());
  EXPECT_FALSE(Read<int32_t>("2147483648").ok());
  EXPECT_EQ(*Read<int64_t>("9223372036854775807"), INT64_MAX);
  EXPECT_FALSE(Read<int64_t>("9223372036854775808").ok());
  EXPECT_FALSE(Read<int64_t>("9.3e18").ok());
  EXPECT_EQ(*Read<uint64_t>("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(Read<uint64_t>("18446744073709551616").ok());
  EXPECT_FALSE(Read<uint64_t>("-1").ok());
  EXPECT_FALSE(Read<uint32_t>("4294967296").ok());
  EXPECT_THAT(Read<int>("12.5").status().message(), HasSubstr("must be an integer"));
  EXPECT_THAT(Read<int>("two").status().message(), HasSubstr("cannot read 'two' as an integer"));
  EXPECT_THAT(Read<int>(".nan").status().message(), HasSubstr("finite"));
  EXPECT_FALSE(Read<int>("[1]").ok());  // Not a scalar.
}

TEST(YamlCheckedTest, DuplicateKeysNamedWithTheirPosition) {
  EXPECT_TRUE(CheckYamlDuplicateKeys(YAML::Load("a: 1\nb: {c: 1, d: 2}\n"), "f.yaml").ok());
  Status top = CheckYamlDuplicateKeys(YAML::Load("a: 1\nb: 2\na: 3\n"), "f.yaml");
  ASSERT_FALSE(top.ok());
  EXPECT_THAT(top.message(), HasSubstr("f.yaml:3:1: a: duplicate key"));
  Status nested =
      CheckYamlDuplicateKeys(YAML::Load("items:\n- name: x\n  spec:\n    n: 1\n    n: 2\n"), "g");
  ASSERT_FALSE(nested.ok());
  EXPECT_THAT(nested.message(), HasSubstr("g:5:5: n: duplicate key"));
}

// yaml-cpp's LoadAll never returns on these (found by tests/fuzz/policy_yaml_fuzz.cc).
TEST(YamlCheckedTest, StrayFlowIndicatorsAreErrorsNotHangs) {
  for (const char* text : {",", ", x", ",\0\0", "[a, b]\n,", "a: 1\n---\n,\n"}) {
    Result<std::vector<YAML::Node>> docs = LoadYamlDocuments(text, "f.yaml");
    ASSERT_FALSE(docs.ok()) << text;
    EXPECT_THAT(docs.status().message(), HasSubstr("f.yaml:")) << text;
  }
  Result<std::vector<YAML::Node>> ok = LoadYamlDocuments("a: 1\r---\rb: 2\r---\n", "f.yaml");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  ASSERT_EQ(ok->size(), 3u);  // The trailing `---` starts an empty (null) document.
  EXPECT_EQ((*ok)[1]["b"].Scalar(), "2");
  EXPECT_EQ((*ok)[1]["b"].Mark().line, 2);  // CR-only lines counted.
  Result<std::vector<YAML::Node>> bad = LoadYamlDocuments("a: [1\n", "f.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("f.yaml:2:"));
}

TEST(TextTest, LineEndingsNormalized) {
  EXPECT_EQ(NormalizeLineEndings("a\rb\r\nc\n\rd"), "a\nb\nc\n\nd");
  EXPECT_EQ(NormalizeLineEndings("plain\n"), "plain\n");
}

}  // namespace
}  // namespace steward::model

// YAML to JSON as kubectl sends it: sigs.k8s.io/yaml reads YAML with goyaml.v2 (YAML 1.1
// resolution of plain scalars; its resolve.go), so `yes` is true, 0x1F and 017 are integers and
// a quoted or !!str scalar stays a string. Errors name the source, line and column.
#include "kube/yaml_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace steward::kube {
namespace {

using nlohmann::json;

json Convert(const std::string& yaml) {
  Result<json> j = YamlToJson(YAML::Load(yaml), "test.yaml");
  EXPECT_TRUE(j.ok()) << yaml << ": " << j.status().message();
  return j.ok() ? *j : json();
}

// The value of `v: <scalar>`.
json Value(const std::string& scalar) { return Convert("v: " + scalar)["v"]; }

std::string Error(const std::string& yaml) {
  Result<json> j = YamlToJson(YAML::Load(yaml), "test.yaml");
  EXPECT_FALSE(j.ok()) << yaml << " converted to " << (j.ok() ? j->dump() : "");
  return j.ok() ? "" : j.status().message();
}

TEST(YamlJsonTest, AManifestBecomesTheJsonKubectlSends) {
  const json j = Convert(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: team-a
  labels:
    tier: "1"
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, "nvidia.com/gpu"]
    flavors:
    - name: h100
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 16
        borrowingLimit: 0
  preemption:
    withinClusterQueue: LowerPriority
  stopPolicy: null
  fairSharing: {weight: 1.5}
)");
  EXPECT_EQ(j, json::parse(R"({
    "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
    "metadata": {"name": "team-a", "labels": {"tier": "1"}},
    "spec": {"namespaceSelector": {},
             "resourceGroups": [{"coveredResources": ["cpu", "nvidia.com/gpu"],
                                 "flavors": [{"name": "h100", "resources": [
                                   {"name": "nvidia.com/gpu", "nominalQuota": 16,
                                    "borrowingLimit": 0}]}]}],
             "preemption": {"withinClusterQueue": "LowerPriority"},
             "stopPolicy": null, "fairSharing": {"weight": 1.5}}})"));
}

TEST(YamlJsonTest, BooleansAreYaml11s) {
  for (const char* t : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"})
    EXPECT_EQ(Value(t), json(true)) << t;
  for (const char* f : {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"})
    EXPECT_EQ(Value(f), json(false)) << f;
  for (const char* s : {"tRUE", "yES", "oN", "enabled", "t", "f"})
    EXPECT_EQ(Value(s), json(s)) << s;
}

TEST(YamlJsonTest, Nulls) {
  for (const char* n : {"null", "Null", "NULL", "~", ""}) EXPECT_TRUE(Value(n).is_null()) << n;
  EXPECT_EQ(Value("nULL"), json("nULL"));
  EXPECT_TRUE(Convert("a:\nb: 1\n")["a"].is_null());
  EXPECT_TRUE(Convert("- \n- ~\n")[1].is_null());
}

TEST(YamlJsonTest, IntegersAsGoParsesThem) {
  EXPECT_EQ(Value("0"), json(0));
  EXPECT_EQ(Value("42"), json(42));
  EXPECT_EQ(Value("-17"), json(-17));
  EXPECT_EQ(Value("+5"), json(5));
  EXPECT_EQ(Value("1_000_000"), json(1000000));
  EXPECT_EQ(Value("0x1F"), json(31));
  EXPECT_EQ(Value("0X1f"), json(31));
  EXPECT_EQ(Value("-0x10"), json(-16));
  EXPECT_EQ(Value("0o17"), json(15));
  EXPECT_EQ(Value("0b101"), json(5));
  EXPECT_EQ(Value("017"), json(15));  // A leading 0 is octal for Go's ParseInt(s, 0, 64).
  EXPECT_EQ(Value("9223372036854775807"), json(INT64_MAX));
  EXPECT_EQ(Value("-9223372036854775808"), json(INT64_MIN));
  EXPECT_EQ(Value("18446744073709551615"), json(UINT64_MAX));
  // Not integers: strings.
  for (const char* s : {"0x", "0xZZ", "1.2.3", "12abc", "0o8", "--1", "1-2", "v1"})
    EXPECT_EQ(Value(s), json(s)) << s;
}

TEST(YamlJsonTest, FloatsAndWhatGoesOverTheWire) {
  EXPECT_EQ(Value("1.5"), json(1.5));
  EXPECT_EQ(Value("-0.25"), json(-0.25));
  EXPECT_EQ(Value(".5"), json(0.5));
  EXPECT_EQ(Value("+.5e1"), json(5));
  EXPECT_EQ(Value("1e-3"), json(0.001));
  // An integral float goes over the wire as an integer (Go prints 1000.0 as 1000).
  EXPECT_EQ(Value("1e3"), json(1000));
  EXPECT_TRUE(Value("1e3").is_number_integer());
  EXPECT_EQ(Value("2."), json(2));
  // "08" is no octal number but is a YAML-style float: 8.
  EXPECT_EQ(Value("08"), json(8));
  EXPECT_EQ(Value("09.5"), json(9.5));
  for (const char* s : {"1e", "e3", "1.5e+", "1,5", "1e400", "0x1p3", "1.0.0", "."})
    EXPECT_EQ(Value(s), json(s)) << s;
  // JSON has no infinity or NaN: an error naming the place, as sigs.k8s.io/yaml fails.
  for (const char* s : {".inf", "-.Inf", "+.INF", ".nan", ".NaN"})
    EXPECT_NE(Error(std::string("a:\n  v: ") + s).find("test.yaml:2:6"), std::string::npos) << s;
}

TEST(YamlJsonTest, TimestampsBecomeRfc3339) {
  EXPECT_EQ(Value("2024-01-02"), json("2024-01-02T00:00:00Z"));
  EXPECT_EQ(Value("2024-1-2"), json("2024-01-02T00:00:00Z"));
  EXPECT_EQ(Value("2026-12-03T21:06:58Z"), json("2026-12-03T21:06:58Z"));
  EXPECT_EQ(Value("2026-12-03t21:06:58.500Z"), json("2026-12-03T21:06:58.5Z"));
  EXPECT_EQ(Value("2026-12-03T21:06:58+02:00"), json("2026-12-03T21:06:58+02:00"));
  EXPECT_EQ(Value("2026-12-03T21:06:58-00:00"), json("2026-12-03T21:06:58Z"));
  EXPECT_EQ(Value("\"2026-12-03 1:2:3.000000001\""), json("2026-12-03 1:2:3.000000001"));
  EXPECT_EQ(Value("2026-12-03 1:2:3.000000001"), json("2026-12-03T01:02:03.000000001Z"));
  // Not timestamps: left as text (a T form needs a zone; days must exist).
  for (const char* s : {"2026-12-03T21:06:58", "2026-02-30", "2025-02-29", "2026-13-01",
                        "2026-12-03 25:00:00", "2026-12-03x"})
    EXPECT_EQ(Value(s), json(s)) << s;
  EXPECT_EQ(Value("2024-02-29"), json("2024-02-29T00:00:00Z"));
}

TEST(YamlJsonTest, QuotedAndBlockScalarsStayStrings) {
  EXPECT_EQ(Value("\"3\""), json("3"));
  EXPECT_EQ(Value("'true'"), json("true"));
  EXPECT_EQ(Value("'~'"), json("~"));
  EXPECT_EQ(Value("\"0x10\""), json("0x10"));
  EXPECT_EQ(Value("''"), json(""));
  EXPECT_EQ(Value("\"tab\\there\\n\""), json("tab\there\n"));
  EXPECT_EQ(Value("'it''s'"), json("it's"));
  EXPECT_EQ(Convert("v: |\n  line 1\n  line 2\n")["v"], json("line 1\nline 2\n"));
  EXPECT_EQ(Convert("v: |-\n  42\n")["v"], json("42"));
  EXPECT_EQ(Convert("v: >\n  folded\n  text\n\n  para\n")["v"], json("folded text\npara\n"));
  EXPECT_EQ(Convert("v: plain\n  continued\n")["v"], json("plain continued"));
}

TEST(YamlJsonTest, ExplicitTags) {
  EXPECT_EQ(Value("!!str 3"), json("3"));
  EXPECT_EQ(Value("!!str true"), json("true"));
  EXPECT_EQ(Value("!!str ~"), json("~"));
  EXPECT_EQ(Value("!!str 2024-01-02"), json("2024-01-02"));
  EXPECT_EQ(Value("!!int \"7\""), json(7));
  EXPECT_EQ(Value("!!int 0x10"), json(16));
  EXPECT_EQ(Value("!!float 3"), json(3));
  EXPECT_EQ(Value("!!float '2.5'"), json(2.5));
  EXPECT_EQ(Value("!!bool 'yes'"), json(true));
  EXPECT_TRUE(Value("!!null ''").is_null());
  EXPECT_EQ(Value("!!timestamp 2024-01-02"), json("2024-01-02T00:00:00Z"));
  EXPECT_EQ(Value("!!binary aGVsbG8="), json("hello"));
  EXPECT_EQ(Value("!custom 12"), json("12"));  // An application tag: the text.
  // A tag the value does not fit is an error naming both.
  std::string e = Error("v: !!int abc\n");
  EXPECT_NE(e.find("test.yaml:1:4"), std::string::npos) << e;
  EXPECT_NE(e.find("cannot decode !!str `abc` as a !!int"), std::string::npos) << e;
  EXPECT_NE(Error("v: !!bool 1\n").find("as a !!bool"), std::string::npos);
  EXPECT_NE(Error("v: !!int 1.5\n").find("as a !!int"), std::string::npos);
  EXPECT_NE(Error("v: !!binary '*not base64*'\n").find("base64"), std::string::npos);
}

TEST(YamlJsonTest, KeysAreResolvedThenPrinted) {
  const json j = Convert("yes: 1\n0x10: 2\n1.5: 3\n'quoted': 4\n007: 5\n1e3: 6\nplain key: 7\n");
  EXPECT_EQ(j, json::parse(R"({"true":1,"16":2,"1.5":3,"quoted":4,"7":5,"1000":6,"plain key":7})"));
  // Large float keys print as Go's %g of a float32 does.
  EXPECT_EQ(Convert("1234567.0: x\n").begin().key(), "1.234567e+06");
  EXPECT_EQ(Convert("0.0001: x\n").begin().key(), "0.0001");
  EXPECT_EQ(Convert("0.00001: x\n").begin().key(), "1e-05");
  EXPECT_EQ(Convert("\"yes\": 1\n").begin().key(), "yes");
  EXPECT_EQ(Convert("!!str 12: 1\n").begin().key(), "12");
  // Keys JSON cannot name are errors with their place.
  EXPECT_NE(Error("a: 1\n~: 2\n").find("test.yaml:2:1"), std::string::npos);
  EXPECT_NE(Error("? [1, 2]\n: v\n").find("must be a scalar"), std::string::npos);
  EXPECT_NE(Error("2024-01-02: v\n").find("cannot be a mapping key"), std::string::npos);
  EXPECT_NE(Error(".nan: v\n").find("cannot be a mapping key"), std::string::npos);
}

TEST(YamlJsonTest, DuplicateKeysAreErrors) {
  std::string e = Error("a: 1\nb: 2\na: 3\n");
  EXPECT_NE(e.find("test.yaml:3:1: a: duplicate key"), std::string::npos) << e;
  // Keys that print the same collide too.
  EXPECT_NE(Error("true: 1\nyes: 2\n").find("duplicate key"), std::string::npos);
  EXPECT_NE(Error("16: 1\n0x10: 2\n").find("duplicate key"), std::string::npos);
}

TEST(YamlJsonTest, ListsAnchorsAndFlowStyle) {
  EXPECT_EQ(Convert("- 1\n- two\n- [3, {four: 4}]\n- {}\n- []\n"),
            json::parse(R"([1, "two", [3, {"four": 4}], {}, []])"));
  EXPECT_EQ(Convert("base: &b {cpu: 2}\ncopy: *b\n")["copy"], json::parse(R"({"cpu": 2})"));
  EXPECT_EQ(Convert("42"), json(42));  // A document that is one scalar.
  EXPECT_TRUE(Convert("").is_null());
}

TEST(YamlJsonTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += "[";
  for (int i = 0; i < 300; ++i) deep += "]";
  EXPECT_NE(Error(deep).find("nesting too deep"), std::string::npos);
  std::string ok;
  for (int i = 0; i < 100; ++i) ok += "[";
  for (int i = 0; i < 100; ++i) ok += "]";
  EXPECT_TRUE(YamlToJson(YAML::Load(ok), "ok").ok());
}

}  // namespace
}  // namespace steward::kube

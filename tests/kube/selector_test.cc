#include "kube/selector.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace steward::kube {
namespace {

using nlohmann::json;
using Labels = std::map<std::string, std::string>;

// --- Label selector syntax ---

struct ParseCase {
  std::string text;
  std::string canonical;  // ToString() of the parsed selector.
};

TEST(LabelSelectorTest, ParsesTheQuerySyntaxToCanonicalText) {
  const ParseCase kCases[] = {
      {"", ""},
      {"x=a", "x=a"},
      {"  x = a  ", "x=a"},
      {"x==a", "x=a"},
      {"x!=a", "x!=a"},
      {"x", "x"},
      {"!x", "!x"},
      {" ! x ", "!x"},
      {"x=", "x="},                            // Empty value.
      {"x!=", "x!="},                          // Not the empty value.
      {"x in (b,a,b)", "x in (a,b)"},          // Sorted, distinct.
      {"x notin (a)", "x notin (a)"},          //
      {"x in(a , b)", "x in (a,b)"},           // Whitespace inside the set.
      {"x in ()", "x in ()"},                  // The empty value.
      {"x in (,a)", "x in (,a)"},              // "" and a.
      {"x in (a,)", "x in (,a)"},              //
      {"x in (a,,b)", "x in (,a,b)"},          //
      {"x in (in,notin)", "x in (in,notin)"},  // Keywords are values in a set.
      {"in=notin", "in=notin"},                // ... and a key and a value elsewhere.
      {"b=2,a=1", "a=1,b=2"},                  // Sorted by key.
      {"x=a,x!=b", "x=a,x!=b"},                // Same key: given order kept.
      {"a=b,\tc in (d),\n!e", "a=b,c in (d),!e"},
      {"team=research,tier in (dev,ci),!spot", "!spot,team=research,tier in (ci,dev)"},
      {"example.com/team=research", "example.com/team=research"},
      {"nvidia.com/gpu.count>4", "nvidia.com/gpu.count>4"},
      {"nvidia.com/gpu.memory<81920", "nvidia.com/gpu.memory<81920"},
      {"A_b.c-D=Val_1.x-Y", "A_b.c-D=Val_1.x-Y"},
  };
  for (const ParseCase& c : kCases) {
    SCOPED_TRACE(c.text);
    Result<LabelSelector> s = LabelSelector::Parse(c.text);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->ToString(), c.canonical);
    EXPECT_EQ(s->empty(), c.canonical.empty());
    // The canonical form reads back to the same selector.
    Result<LabelSelector> again = LabelSelector::Parse(s->ToString());
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ(again->ToString(), c.canonical);
    ASSERT_EQ(again->requirements().size(), s->requirements().size());
    for (size_t i = 0; i < s->requirements().size(); ++i) {
      EXPECT_EQ(again->requirements()[i].key, s->requirements()[i].key);
      EXPECT_EQ(again->requirements()[i].op, s->requirements()[i].op);
      EXPECT_EQ(again->requirements()[i].values, s->requirements()[i].values);
    }
  }
}

TEST(LabelSelectorTest, RequirementsCarryOperatorAndValues) {
  Result<LabelSelector> s = LabelSelector::Parse("tier in (dev,ci),!spot,team==a,gpu>2,x");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const auto& r = s->requirements();
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].key, "gpu");
  EXPECT_EQ(r[0].op, LabelOp::kGreaterThan);
  EXPECT_EQ(r[0].values, std::vector<std::string>{"2"});
  EXPECT_EQ(r[1].key, "spot");
  EXPECT_EQ(r[1].op, LabelOp::kDoesNotExist);
  EXPECT_TRUE(r[1].values.empty());
  EXPECT_EQ(r[2].key, "team");
  EXPECT_EQ(r[2].op, LabelOp::kEquals);
  EXPECT_EQ(r[2].values, std::vector<std::string>{"a"});
  EXPECT_EQ(r[3].key, "tier");
  EXPECT_EQ(r[3].op, LabelOp::kIn);
  EXPECT_EQ(r[3].values, (std::vector<std::string>{"ci", "dev"}));
  EXPECT_EQ(r[4].key, "x");
  EXPECT_EQ(r[4].op, LabelOp::kExists);
}

struct ErrorCase {
  std::string text;
  std::string fragment;  // Part of the message naming what is wrong.
};

TEST(LabelSelectorTest, RejectsBadSyntaxNamingTheBadPart) {
  const ErrorCase kCases[] = {
      {"x=a b", "found 'b', expected: ',' or 'end of string'"},
      {"x=a=b", "found '=', expected: ',' or 'end of string'"},
      {"x=a,", "found 'end of string', expected: identifier after ','"},
      {",x", "found ',', expected: !, identifier, or 'end of string'"},
      {"x in a", "found 'a', expected: '('"},
      {"x notin", "found 'end of string', expected: '('"},
      {"x in (a", "found 'end of string', expected: ',' or ')'"},
      {"x in (a b)", "found 'b', expected: ',' or ')'"},
      {"x in (=)", "found '=', expected: ',', ')' or identifier"},
      {"x=(a)", "found '(', expected: identifier"},
      {"!", "found 'end of string', expected: identifier"},
      {"!x=a", "found '=', expected: ',' or 'end of string'"},
      {"x (a)", "found '(', expected: in, notin, =, ==, !=, gt, lt"},
      {"-x=a", "invalid label key \"-x\": name part must consist of alphanumeric"},
      {"x.=a", "invalid label key \"x.\""},
      {"x@y", "invalid label key \"x@y\""},
      {"a/b/c=d", "a valid label key must consist of alphanumeric"},
      {"/a=b", "prefix part must be non-empty"},
      {"a/=b", "name part must be non-empty"},
      {"Example.com/a=b", "prefix part a lowercase RFC 1123 subdomain"},
      {"example..com/a=b", "prefix part a lowercase RFC 1123 subdomain"},
      {std::string(64, 'k') + "=v", "name part must be no more than 63 bytes"},
      {"x=-a", "invalid label value \"-a\" for key \"x\""},
      {"x in (ok,bad.)", "invalid label value \"bad.\" for key \"x\""},
      {"x=" + std::string(64, 'v'), "must be no more than 63 bytes"},
      {"x>a", "for 'Gt', 'Lt' operators, the value must be an integer"},
      {"x<", "for 'Gt', 'Lt' operators, the value must be an integer"},
  };
  for (const ErrorCase& c : kCases) {
    SCOPED_TRACE(c.text);
    Result<LabelSelector> s = LabelSelector::Parse(c.text);
    ASSERT_FALSE(s.ok()) << s->ToString();
    EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(s.status().message().find(c.fragment), std::string::npos) << s.status().message();
  }
}

TEST(LabelSelectorTest, LabelKeyAndValueLimits) {
  const std::string prefix253 = std::string(63, 'a') + "." + std::string(63, 'b') + "." +
                                std::string(63, 'c') + "." + std::string(61, 'd');
  ASSERT_EQ(prefix253.size(), 253u);
  EXPECT_TRUE(CheckLabelKey(prefix253 + "/" + std::string(63, 'n')).ok());
  EXPECT_FALSE(CheckLabelKey(prefix253 + "d/n").ok());
  EXPECT_FALSE(CheckLabelKey(std::string(64, 'n')).ok());
  EXPECT_TRUE(CheckLabelKey("a").ok());
  EXPECT_TRUE(CheckLabelKey("nvidia.com/gpu.product").ok());
  EXPECT_FALSE(CheckLabelKey("").ok());
  EXPECT_TRUE(CheckLabelValue("").ok());
  EXPECT_TRUE(CheckLabelValue(std::string(63, 'v')).ok());
  EXPECT_FALSE(CheckLabelValue(std::string(64, 'v')).ok());
  EXPECT_TRUE(CheckLabelValue("NVIDIA-H100-80GB-HBM3").ok());
  EXPECT_FALSE(CheckLabelValue("a b").ok());
  EXPECT_FALSE(CheckLabelValue("_a").ok());
}

struct MatchCase {
  std::string selector;
  Labels labels;
  bool matches;
};

TEST(LabelSelectorTest, MatchesAsKubernetesDoes) {
  const Labels kGpuNode = {
      {"team", "research"}, {"tier", "dev"}, {"nvidia.com/gpu.count", "8"}, {"empty", ""}};
  const MatchCase kCases[] = {
      {"", kGpuNode, true},
      {"", {}, true},
      {"team=research", kGpuNode, true},
      {"team=infra", kGpuNode, false},
      {"team!=infra", kGpuNode, true},
      {"team!=research", kGpuNode, false},
      {"absent!=x", kGpuNode, true},  // != matches objects without the key.
      {"absent=x", kGpuNode, false},
      {"tier in (dev,ci)", kGpuNode, true},
      {"tier in (prod)", kGpuNode, false},
      {"absent in (x)", kGpuNode, false},
      {"tier notin (prod)", kGpuNode, true},
      {"tier notin (dev)", kGpuNode, false},
      {"absent notin (x)", kGpuNode, true},  // notin too.
      {"team", kGpuNode, true},
      {"absent", kGpuNode, false},
      {"!absent", kGpuNode, true},
      {"!team", kGpuNode, false},
      {"empty=", kGpuNode, true},
      {"empty", kGpuNode, true},
      {"absent=", kGpuNode, false},
      {"empty in ()", kGpuNode, true},
      {"nvidia.com/gpu.count>4", kGpuNode, true},
      {"nvidia.com/gpu.count>8", kGpuNode, false},
      {"nvidia.com/gpu.count<9", kGpuNode, true},
      {"team>1", kGpuNode, false},     // Not an integer: no match.
      {"absent<10", kGpuNode, false},  // Absent: no match.
      {"team=research,tier in (dev),!spot", kGpuNode, true},
      {"team=research,tier in (prod)", kGpuNode, false},
  };
  for (const MatchCase& c : kCases) {
    SCOPED_TRACE(c.selector);
    Result<LabelSelector> s = LabelSelector::Parse(c.selector);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->Matches(c.labels), c.matches);
    json as_json = json::object();
    for (const auto& [k, v] : c.labels) as_json[k] = v;
    EXPECT_EQ(s->Matches(as_json), c.matches);
  }
}

TEST(LabelSelectorTest, MatchesJsonLabelsWhenAbsentOrNull) {
  Result<LabelSelector> not_x = LabelSelector::Parse("!x,y!=1,z notin (a)");
  ASSERT_TRUE(not_x.ok());
  EXPECT_TRUE(not_x->Matches(json()));
  EXPECT_TRUE(not_x->Matches(json::object()));
  Result<LabelSelector> x = LabelSelector::Parse("x");
  ASSERT_TRUE(x.ok());
  EXPECT_FALSE(x->Matches(json()));
  EXPECT_TRUE(x->Matches(json{{"x", "1"}}));
}

// --- metav1.LabelSelector ---

struct JsonCase {
  std::string selector;   // JSON text.
  std::string canonical;  // ToString().
};

TEST(LabelSelectorTest, ReadsMetav1LabelSelector) {
  const JsonCase kCases[] = {
      {R"({})", ""},
      {R"({"matchLabels":{}, "matchExpressions":[]})", ""},
      {R"({"matchLabels":null})", ""},
      {R"({"matchLabels":{"app":"llm-serve","team":"infer"}})", "app=llm-serve,team=infer"},
      {R"({"matchExpressions":[{"key":"tier","operator":"In","values":["b","a","a"]}]})",
       "tier in (a,b)"},
      {R"({"matchExpressions":[{"key":"tier","operator":"NotIn","values":["a"]}]})",
       "tier notin (a)"},
      {R"({"matchExpressions":[{"key":"spot","operator":"Exists"}]})", "spot"},
      {R"({"matchExpressions":[{"key":"spot","operator":"DoesNotExist","values":[]}]})", "!spot"},
      {R"({"matchLabels":{"z":"1"},"matchExpressions":[{"key":"a","operator":"Exists"}]})",
       "a,z=1"},
      {R"({"matchLabels":{"x":""}})", "x="},
  };
  for (const JsonCase& c : kCases) {
    SCOPED_TRACE(c.selector);
    Result<LabelSelector> s = LabelSelector::FromJson(json::parse(c.selector));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->ToString(), c.canonical);
    EXPECT_FALSE(s->matches_nothing());
    EXPECT_EQ(s->empty(), c.canonical.empty());
  }
  Result<LabelSelector> pdb = LabelSelector::FromJson(json::parse(R"({"matchLabels":{"app":"llm"},
                      "matchExpressions":[{"key":"tier","operator":"NotIn","values":["ci"]}]})"));
  ASSERT_TRUE(pdb.ok());
  EXPECT_TRUE(pdb->Matches(Labels{{"app", "llm"}}));
  EXPECT_TRUE(pdb->Matches(Labels{{"app", "llm"}, {"tier", "prod"}}));
  EXPECT_FALSE(pdb->Matches(Labels{{"app", "llm"}, {"tier", "ci"}}));
  EXPECT_FALSE(pdb->Matches(Labels{{"app", "web"}}));
}

TEST(LabelSelectorTest, NullSelectorMatchesNothingAndEmptyMatchesEverything) {
  Result<LabelSelector> null_selector = LabelSelector::FromJson(json());
  ASSERT_TRUE(null_selector.ok());
  EXPECT_TRUE(null_selector->matches_nothing());
  EXPECT_FALSE(null_selector->empty());
  EXPECT_FALSE(null_selector->Matches(Labels{}));
  EXPECT_FALSE(null_selector->Matches(Labels{{"a", "b"}}));
  EXPECT_FALSE(null_selector->Matches(json{{"a", "b"}}));
  EXPECT_EQ(null_selector->ToString(), "");

  Result<LabelSelector> empty = LabelSelector::FromJson(json::object());
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  EXPECT_TRUE(empty->Matches(Labels{}));
  EXPECT_TRUE(empty->Matches(Labels{{"a", "b"}}));
  EXPECT_TRUE(LabelSelector().Matches(Labels{{"a", "b"}}));
}

TEST(LabelSelectorTest, RejectsBadMetav1LabelSelectors) {
  const ErrorCase kCases[] = {
      {R"([])", "label selector must be an object (got array)"},
      {R"({"matchLabels":[]})", "matchLabels must be an object"},
      {R"({"matchLabels":{"a":1}})", "matchLabels[\"a\"] must be a string"},
      {R"({"matchLabels":{"-a":"b"}})", "matchLabels[\"-a\"]: invalid label key \"-a\""},
      {R"({"matchLabels":{"a":"b c"}})", "invalid label value \"b c\" for key \"a\""},
      {R"({"matchExpressions":{}})", "matchExpressions must be a list"},
      {R"({"matchExpressions":[{"operator":"Exists"}]})", "matchExpressions[0].key"},
      {R"({"matchExpressions":[{"key":"a","operator":"Equals","values":["b"]}]})",
       "matchExpressions[0].operator: \"Equals\" is not a valid label selector operator"},
      {R"({"matchExpressions":[{"key":"a","operator":"In","values":[]}]})",
       "matchExpressions[0]: key \"a\": for 'in', 'notin' operators, values set can't be empty"},
      {R"({"matchExpressions":[{"key":"a","operator":"NotIn"}]})", "values set can't be empty"},
      {R"({"matchExpressions":[{"key":"a","operator":"Exists"},
                               {"key":"b","operator":"Exists","values":["x"]}]})",
       "matchExpressions[1]: key \"b\": values set must be empty for exists and does not exist"},
      {R"({"matchExpressions":[{"key":"a","operator":"DoesNotExist","values":["x"]}]})",
       "values set must be empty"},
      {R"({"matchExpressions":[{"key":"a","operator":"In","values":[1]}]})",
       "matchExpressions[0].values must be strings"},
  };
  for (const ErrorCase& c : kCases) {
    SCOPED_TRACE(c.text);
    Result<LabelSelector> s = LabelSelector::FromJson(json::parse(c.text));
    ASSERT_FALSE(s.ok()) << s->ToString();
    EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(s.status().message().find(c.fragment), std::string::npos) << s.status().message();
  }
}

// --- Field selectors ---

struct Pod {
  std::map<std::string, std::string, std::less<>> fields;
  std::optional<std::string> Get(std::string_view f) const {
    auto it = fields.find(f);
    if (it == fields.end()) return std::nullopt;
    return it->second;
  }
};

TEST(FieldSelectorTest, ParsesEqualityAndInequality) {
  Result<FieldSelector> f = FieldSelector::Parse("status.phase!=Failed,spec.nodeName=node-7");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_EQ(f->requirements().size(), 2u);
  // Terms are sorted as the API server sorts them.
  EXPECT_EQ(f->requirements()[0].field, "spec.nodeName");
  EXPECT_TRUE(f->requirements()[0].equals);
  EXPECT_EQ(f->requirements()[0].value, "node-7");
  EXPECT_EQ(f->requirements()[1].field, "status.phase");
  EXPECT_FALSE(f->requirements()[1].equals);
  EXPECT_EQ(f->requirements()[1].value, "Failed");
  EXPECT_EQ(f->ToString(), "spec.nodeName=node-7,status.phase!=Failed");
  EXPECT_EQ(f->EqualityValue("spec.nodeName"), "node-7");
  EXPECT_EQ(f->EqualityValue("status.phase"), std::nullopt);  // != pins nothing.
  EXPECT_EQ(f->EqualityValue("metadata.name"), std::nullopt);

  Result<FieldSelector> dbl = FieldSelector::Parse("metadata.name==p1");
  ASSERT_TRUE(dbl.ok());
  EXPECT_EQ(dbl->ToString(), "metadata.name=p1");
  EXPECT_EQ(dbl->EqualityValue("metadata.name"), "p1");
}

struct FieldCase {
  std::string text;
  std::string field;
  bool equals;
  std::string value;
  std::string canonical;
};

TEST(FieldSelectorTest, UnescapesValuesAndKeepsWhitespace) {
  const FieldCase kCases[] = {
      {R"(metadata.name=a\,b)", "metadata.name", true, "a,b", R"(metadata.name=a\,b)"},
      {R"(metadata.name=a\=b)", "metadata.name", true, "a=b", R"(metadata.name=a\=b)"},
      {R"(metadata.name=a\\b)", "metadata.name", true, R"(a\b)", R"(metadata.name=a\\b)"},
      {R"(metadata.name!=\,\=\\)", "metadata.name", false, R"(,=\)", R"(metadata.name!=\,\=\\)"},
      {"spec.nodeName=", "spec.nodeName", true, "", "spec.nodeName="},
      // No trimming: the field is "a " and the value " b", as the API server sees them.
      {"a = b", "a ", true, " b", "a = b"},
  };
  for (const FieldCase& c : kCases) {
    SCOPED_TRACE(c.text);
    Result<FieldSelector> f = FieldSelector::Parse(c.text);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    ASSERT_EQ(f->requirements().size(), 1u);
    EXPECT_EQ(f->requirements()[0].field, c.field);
    EXPECT_EQ(f->requirements()[0].equals, c.equals);
    EXPECT_EQ(f->requirements()[0].value, c.value);
    EXPECT_EQ(f->ToString(), c.canonical);
    Result<FieldSelector> again = FieldSelector::Parse(f->ToString());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->requirements()[0].value, c.value);
  }
  for (const char* everything : {"", ",", ",,", "="}) {
    Result<FieldSelector> f = FieldSelector::Parse(everything);
    ASSERT_TRUE(f.ok()) << everything;
    EXPECT_TRUE(f->empty()) << everything;
  }
}

TEST(FieldSelectorTest, RejectsMalformedTerms) {
  const ErrorCase kCases[] = {
      {"spec.nodeName", "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'"},
      {"a=b,c", "can't understand 'c'"},
      {"a=b=c", "unescaped character in value: ="},
      {R"(a=b\q)", R"(invalid escape sequence: \q)"},
      {R"(a=b\)", R"(invalid escape sequence: \)"},
  };
  for (const ErrorCase& c : kCases) {
    SCOPED_TRACE(c.text);
    Result<FieldSelector> f = FieldSelector::Parse(c.text);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(f.status().message().find(c.fragment), std::string::npos) << f.status().message();
  }
}

TEST(FieldSelectorTest, MatchesWithMissingFieldsAsEmpty) {
  const Pod kScheduled{{{"spec.nodeName", "node-7"}, {"status.phase", "Running"}}};
  const Pod kPending{{{"status.phase", "Pending"}}};
  struct Case {
    std::string selector;
    bool scheduled;
    bool pending;
  };
  const Case kCases[] = {
      {"", true, true},
      {"spec.nodeName=node-7", true, false},
      {"spec.nodeName!=node-7", false, true},
      {"spec.nodeName=", false, true},  // Unscheduled pods, as kubectl drain's filters ask.
      {"spec.nodeName!=", true, false},
      {"status.phase!=Failed,status.phase!=Succeeded", true, true},
      {"spec.nodeName=node-7,status.phase=Pending", false, false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.selector);
    Result<FieldSelector> f = FieldSelector::Parse(c.selector);
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(f->Matches([&](std::string_view x) { return kScheduled.Get(x); }), c.scheduled);
    EXPECT_EQ(f->Matches([&](std::string_view x) { return kPending.Get(x); }), c.pending);
  }
}

TEST(FieldSelectorTest, CheckFieldsNamesTheUnsupportedField) {
  const std::vector<std::string_view> kPodFields = {"metadata.name", "metadata.namespace",
                                                    "spec.nodeName", "status.phase"};
  Result<FieldSelector> ok = FieldSelector::Parse("spec.nodeName=n,status.phase!=Failed");
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->CheckFields(kPodFields).ok());
  Result<FieldSelector> bad = FieldSelector::Parse("spec.nodeName=n,spec.gpu=8");
  ASSERT_TRUE(bad.ok());
  Status s = bad->CheckFields(kPodFields);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "field label not supported: spec.gpu");
  EXPECT_TRUE(FieldSelector().CheckFields({}).ok());
}

}  // namespace
}  // namespace steward::kube

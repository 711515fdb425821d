#include "model/label_map.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace steward::model {
namespace {

TEST(LabelMapTest, CopiesShareUntilOneChanges) {
  const LabelMap shared({{"app", "llm"}, {"team", "research"}});
  LabelMap a = shared;
  LabelMap b = shared;
  EXPECT_EQ(&a.map(), &b.map());  // One map behind both copies.
  b["tier"] = "gold";             // b takes its own copy first.
  EXPECT_NE(&a.map(), &b.map());
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b.at("tier"), "gold");
  EXPECT_FALSE(a.contains("tier"));
  EXPECT_FALSE(shared.contains("tier"));
  EXPECT_EQ(a, shared);
  EXPECT_FALSE(a == b);
}

TEST(LabelMapTest, ReadsLikeAStdMap) {
  LabelMap m = std::map<std::string, std::string>{{"b", "2"}, {"a", "1"}};
  const std::map<std::string, std::string>& plain = m;
  EXPECT_EQ(plain.begin()->first, "a");
  EXPECT_EQ(m.find("b")->second, "2");
  EXPECT_EQ(m.find("c"), m.end());
  EXPECT_EQ(m.count("a"), 1u);
  std::string keys;
  for (const auto& [k, v] : m) keys += k + v;
  EXPECT_EQ(keys, "a1b2");
}

TEST(LabelMapTest, WritesOnAnEmptyOrSharedMapLeaveOthersAlone) {
  LabelMap empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.begin(), empty.end());
  LabelMap a = empty;
  EXPECT_TRUE(a.emplace("k", "v").second);
  EXPECT_TRUE(empty.empty());
  LabelMap b = a;
  EXPECT_EQ(b.erase("missing"), 0u);  // Nothing to erase: still shared.
  EXPECT_EQ(&a.map(), &b.map());
  EXPECT_EQ(b.erase("k"), 1u);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(a.at("k"), "v");
  b.insert_or_assign("k", "w");
  EXPECT_EQ(b.at("k"), "w");
  EXPECT_EQ(a.at("k"), "v");
  a.clear();
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(b.size(), 1u);
}

}  // namespace
}  // namespace steward::model

#include "model/json_text.h"

#include <gtest/gtest.h>

namespace steward::model {
namespace {

TEST(JsonTextTest, ParsesAndNamesTheLineAndColumnOfASyntaxError) {
  auto ok = ParseJsonText(R"({"items": [1, 2]})", "pods.json");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)["items"].size(), 2u);
  auto bad = ParseJsonText("{\n  \"items\": [1,\n  ]\n}", "pods.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("pods.json:3:3"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace steward::model

#include "model/text.h"

#include <gtest/gtest.h>

namespace steward::model {
namespace {

TEST(TextTest, HtmlEscapeCoversTextAndAttributes) {
  EXPECT_EQ(HtmlEscape(R"(a<b> & "c")"), "a&lt;b&gt; &amp; &quot;c&quot;");
  EXPECT_EQ(HtmlEscape("plain"), "plain");
}

TEST(TextTest, RoundToDecimals) {
  EXPECT_DOUBLE_EQ(RoundTo(0.123456, 4), 0.1235);
  EXPECT_DOUBLE_EQ(RoundTo(2.5, 0), 3);
  EXPECT_DOUBLE_EQ(RoundTo(1234.5678, 2), 1234.57);
}

}  // namespace
}  // namespace steward::model

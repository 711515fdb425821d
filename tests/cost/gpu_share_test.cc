#include "cost/gpu_share.h"

#include <gtest/gtest.h>

#include "case_name.h"

namespace steward::cost {
namespace {

struct ShareCase {
  const char* text;
  double share;
};

class GpuShareTest : public ::testing::TestWithParam<ShareCase> {};

TEST_P(GpuShareTest, Parses) {
  auto s = ParseGpuShare(GetParam().text);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_DOUBLE_EQ(*s, GetParam().share);
}

INSTANTIATE_TEST_SUITE_P(Forms, GpuShareTest,
                         ::testing::Values(ShareCase{"1", 1.0}, ShareCase{"0.25", 0.25},
                                           ShareCase{"1/7", 1.0 / 7}, ShareCase{"250m", 0.25},
                                           ShareCase{"25%", 0.25}, ShareCase{"1g.10gb", 1.0 / 7},
                                           ShareCase{"mig-3g.40gb", 3.0 / 7},
                                           ShareCase{"nvidia.com/mig-7g.80gb", 1.0},
                                           ShareCase{" 2g.20gb ", 2.0 / 7}),
                         CaseName<ShareCase>);

TEST(GpuShareErrorTest, RejectsOutOfRangeAndGarbage) {
  for (const char* bad :
       {"0", "-1", "1.5", "0m", "1500m", "8g.80gb", "0g.1gb", "1/0", "abc", "", "120%"}) {
    EXPECT_FALSE(ParseGpuShare(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace steward::cost

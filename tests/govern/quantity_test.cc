#include "govern/quantity.h"

#include <gtest/gtest.h>

namespace steward::govern {
namespace {

struct Case {
  const char* text;
  const char* resource;
  Amount want;
};

TEST(QuantityTest, ParsesKubernetesQuantitiesIntoInternalUnits) {
  const Case cases[] = {
      {"64", "nvidia.com/gpu", 64},
      {"500m", "cpu", 500},  // 0.5 cores, kept in millicores.
      {"2", "cpu", 2000},
      {"1.5", "cpu", 1500},
      {"0.0001", "cpu", 1},  // Rounded up, like Quantity.MilliValue.
      {"1Gi", "memory", 1073741824},
      {"1.5Gi", "memory", 1610612736},
      {"36Gi", "memory", 38654705664},
      {"1k", "memory", 1000},
      {"1M", "memory", 1000000},
      {"1e3", "memory", 1000},
      {"1E", "memory", 1000000000000000000},  // Exa suffix, not an exponent.
      {"100m", "memory", 1},                  // 0.1 byte rounds up to 1.
      {"+8", "nvidia.com/gpu", 8},
  };
  for (const auto& c : cases) {
    auto q = ParseQuantity(c.text, c.resource);
    ASSERT_TRUE(q.ok()) << c.text << ": " << q.status().ToString();
    EXPECT_EQ(*q, c.want) << c.text << " " << c.resource;
  }
}

TEST(QuantityTest, RejectsBadQuantities) {
  for (const char* bad : {"", "-1", "abc", "1Xi", "1.2.3", "1e", "99999999999999999999"}) {
    EXPECT_FALSE(ParseQuantity(bad, "memory").ok()) << bad;
  }
}

TEST(QuantityTest, FormatRoundTrips) {
  EXPECT_EQ(FormatQuantity(500, "cpu"), "500m");
  EXPECT_EQ(FormatQuantity(2000, "cpu"), "2");
  EXPECT_EQ(FormatQuantity(1073741824, "memory"), "1Gi");
  EXPECT_EQ(FormatQuantity(1000, "memory"), "1000");
  EXPECT_EQ(FormatQuantity(64, "nvidia.com/gpu"), "64");
  for (Amount a : {Amount{0}, Amount{1}, Amount{1536}, Amount{1610612736}}) {
    auto back = ParseQuantity(FormatQuantity(a, "memory"), "memory");
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, a);
  }
  EXPECT_DOUBLE_EQ(CanonicalValue(500, "cpu"), 0.5);
  EXPECT_DOUBLE_EQ(CanonicalValue(64, "nvidia.com/gpu"), 64.0);
}

}  // namespace
}  // namespace steward::govern

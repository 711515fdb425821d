#include "twin/report_json.h"

#include <gtest/gtest.h>

#include <sstream>

#include "twin/twin.h"

namespace steward::twin {
namespace {

std::string Written(const Report& r) {
  std::ostringstream out;
  WriteJson(r, out);
  return out.str();
}

// The streamed report is byte for byte the document's dump(2), series and pools included.
TEST(ReportJsonTest, StreamsTheSameBytesAsTheDocument) {
  TwinOptions o;
  o.days = 0.5;
  auto t = Twin::Create(DefaultScenario(), o);
  ASSERT_TRUE(t.ok());
  const Report r = (*t)->Run();
  ASSERT_GT(r.series.size(), 2u);
  ASSERT_FALSE(r.pools.empty());
  EXPECT_EQ(Written(r), ToJson(r).dump(2));
}

TEST(ReportJsonTest, EmptySeries) {
  Report r;
  EXPECT_EQ(Written(r), ToJson(r).dump(2));
}

}  // namespace
}  // namespace steward::twin

#include "twin/run_table.h"

#include <gtest/gtest.h>

namespace steward::twin {
namespace {

WorkloadRun MakeRun(model::WorkloadId id) {
  WorkloadRun r;
  r.spec.id = id;
  r.spec.name = "w" + std::to_string(id);
  return r;
}

TEST(RunTableTest, FindsHeldRunsAndForgetsReleasedOnes) {
  RunTable t;
  EXPECT_TRUE(t.empty());
  for (int i = 0; i < 5; ++i) EXPECT_EQ(t.Add(MakeRun(i)).spec.name, "w" + std::to_string(i));
  t.Release(1);
  t.Release(3);
  t.Release(3);  // Twice is a no-op.
  EXPECT_EQ(t.size(), 5u);
  EXPECT_EQ(t.held(), 3u);
  EXPECT_EQ(t.Find(1), nullptr);
  EXPECT_EQ(t.Find(5), nullptr);
  EXPECT_EQ(t.Find(-1), nullptr);
  ASSERT_NE(t.Find(4), nullptr);
  EXPECT_EQ(t[4].spec.name, "w4");
  std::vector<model::WorkloadId> ids;
  for (const WorkloadRun& r : t) ids.push_back(r.spec.id);
  EXPECT_EQ(ids, (std::vector<model::WorkloadId>{0, 2, 4}));
}

// Memory follows the runs held: a page whose ids are all released is freed, and iteration
// skips it.
TEST(RunTableTest, FreesPagesOfReleasedRuns) {
  RunTable t;
  const int n = 10 * static_cast<int>(RunTable::kPageSize);
  for (int i = 0; i < n; ++i) {
    t.Add(MakeRun(i));
    if (i >= 100) t.Release(i - 100);  // 100 alive at a time.
  }
  EXPECT_EQ(t.held(), 100u);
  EXPECT_LE(t.pages(), 2u);
  int seen = 0;
  for (const WorkloadRun& r : t) {
    EXPECT_GE(r.spec.id, n - 100);
    ++seen;
  }
  EXPECT_EQ(seen, 100);
}

}  // namespace
}  // namespace steward::twin

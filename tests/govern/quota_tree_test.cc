// Quota-tree arithmetic against hand-computed values (queue-semantics.md §2.1).
#include "govern/quota_tree.h"

#include <gtest/gtest.h>

#include <cmath>

namespace steward::govern {
namespace {

constexpr int kFr = 0;  // One flavor, one resource.

// The LendingLimit example of Kueue's ClusterQueue page: team-a 9 (no LL), team-b 12 (LL 1).
TEST(QuotaTreeTest, LendingLimitWorkedExample) {
  QuotaTree t(1, 1);
  int cohort = t.AddNode(false);
  int a = t.AddNode(true), b = t.AddNode(true);
  t.SetParent(a, cohort);
  t.SetParent(b, cohort);
  t.SetQuota(a, kFr, 9, kUnlimited, kUnlimited);
  t.SetQuota(b, kFr, 12, kUnlimited, 1);
  t.Finalize();
  EXPECT_EQ(t.LocalQuota(a, kFr), 0);          // No LL: everything pooled.
  EXPECT_EQ(t.LocalQuota(b, kFr), 11);         // 12 - 1.
  EXPECT_EQ(t.SubtreeQuota(cohort, kFr), 10);  // 9 + 1.
  EXPECT_EQ(t.PotentiallyAvailable(a, kFr), 10);
  EXPECT_EQ(t.PotentiallyAvailable(b, kFr), 21);  // 11 + 10.
  EXPECT_EQ(t.Available(a, kFr), 10);
  EXPECT_EQ(t.Available(b, kFr), 21);
  // team-b uses 15: 11 stay local, 4 bubble up; the cohort has 6 left for both.
  t.AddUsage(b, kFr, 15);
  EXPECT_EQ(t.Usage(cohort, kFr), 4);
  EXPECT_EQ(t.Available(a, kFr), 6);
  EXPECT_EQ(t.Available(b, kFr), 6);
  t.AddUsage(b, kFr, -15);
  EXPECT_EQ(t.Usage(cohort, kFr), 0);
}

// The borrowing-cohorts example: team-a 9 CPU with BL 6, team-b 12; team-a can hold 15.
TEST(QuotaTreeTest, BorrowingLimitWorkedExample) {
  QuotaTree t(1, 1);
  int cohort = t.AddNode(false);
  int a = t.AddNode(true), b = t.AddNode(true);
  t.SetParent(a, cohort);
  t.SetParent(b, cohort);
  t.SetQuota(a, kFr, 9000, 6000, kUnlimited);  // Millicores.
  t.SetQuota(b, kFr, 12000, kUnlimited, kUnlimited);
  t.Finalize();
  EXPECT_EQ(t.SubtreeQuota(cohort, kFr), 21000);
  EXPECT_EQ(t.PotentiallyAvailable(a, kFr), 15000);  // min(21, 9 + 6).
  EXPECT_EQ(t.PotentiallyAvailable(b, kFr), 21000);
  EXPECT_EQ(t.PotentialIgnoringBorrowingLimits(a, kFr), 21000);
  // team-b uses 3, team-a 12: cohort has 6 left but team-a may borrow only 3 more.
  t.AddUsage(b, kFr, 3000);
  t.AddUsage(a, kFr, 12000);
  EXPECT_EQ(t.Available(a, kFr), 3000);  // min(21 - 15, 9 - 12 + 6).
  EXPECT_EQ(t.AvailableIgnoringBorrowingLimits(a, kFr), 6000);
  EXPECT_EQ(t.Available(b, kFr), 6000);
  EXPECT_TRUE(t.Borrowing(a, kFr));
  EXPECT_FALSE(t.Borrowing(b, kFr));
}

// Root cohort R (own pool 10) with child cohort C (BL 5) holding x (4); y (6) directly in R.
TEST(QuotaTreeTest, HierarchicalCohortWithPoolAndBorrowingLimit) {
  QuotaTree t(1, 1);
  int r = t.AddNode(false), c = t.AddNode(false);
  int x = t.AddNode(true), y = t.AddNode(true);
  t.SetParent(c, r);
  t.SetParent(x, c);
  t.SetParent(y, r);
  t.SetQuota(r, kFr, 10, kUnlimited, kUnlimited);
  t.SetQuota(c, kFr, 0, 5, kUnlimited);
  t.SetQuota(x, kFr, 4, kUnlimited, kUnlimited);
  t.SetQuota(y, kFr, 6, kUnlimited, kUnlimited);
  t.Finalize();
  EXPECT_EQ(t.SubtreeQuota(c, kFr), 4);
  EXPECT_EQ(t.SubtreeQuota(r, kFr), 20);         // 10 + 4 + 6.
  EXPECT_EQ(t.PotentiallyAvailable(c, kFr), 9);  // min(20, 4 + 5).
  EXPECT_EQ(t.PotentiallyAvailable(x, kFr), 9);
  EXPECT_EQ(t.PotentiallyAvailable(y, kFr), 20);
  EXPECT_EQ(t.BorrowingLevel(x, kFr, 3), 0);
  EXPECT_EQ(t.BorrowingLevel(x, kFr, 6), 2);  // Above x's 4 and C's 4; fits in R.
  t.AddUsage(x, kFr, 7);
  EXPECT_EQ(t.Usage(c, kFr), 7);
  EXPECT_EQ(t.Usage(r, kFr), 7);
  EXPECT_EQ(t.Available(x, kFr), 2);   // C may draw 4 + 5 = 9 from R, 7 used.
  EXPECT_EQ(t.Available(y, kFr), 13);  // 20 - 7.
}

TEST(QuotaTreeTest, DominantResourceShare) {
  QuotaTree t(1, 1);
  int cohort = t.AddNode(false);
  int a = t.AddNode(true, 1.0), b = t.AddNode(true, 2.0), z = t.AddNode(true, 0.0);
  for (int n : {a, b, z}) {
    t.SetParent(n, cohort);
    t.SetQuota(n, kFr, 4, kUnlimited, kUnlimited);
  }
  t.Finalize();  // Cohort pool 12.
  EXPECT_DOUBLE_EQ(t.DominantResourceShare(a, {}), 0.0);
  t.AddUsage(a, kFr, 7);  // Borrows 3 of 12: 1000 * 3 / 12 = 250.
  EXPECT_DOUBLE_EQ(t.DominantResourceShare(a, {}), 250.0);
  EXPECT_DOUBLE_EQ(t.DominantResourceShare(b, {6}), 1000.0 * 2 / 12 / 2.0);  // Weight 2.
  EXPECT_TRUE(std::isinf(t.DominantResourceShare(z, {5})));    // Weight 0 while borrowing.
  EXPECT_DOUBLE_EQ(t.DominantResourceShare(cohort, {}), 0.0);  // Root.
}

}  // namespace
}  // namespace steward::govern

namespace steward::govern {
namespace {

// A live quota change keeps usage and recomputes what bubbles into the cohort: the LendingLimit
// example with team-b using 15, then team-b's lendingLimit lifted and its nominal cut to 8.
TEST(QuotaTreeTest, UpdateQuotaKeepsUsageAndRebubbles) {
  QuotaTree t(1, 1);
  int cohort = t.AddNode(false);
  int a = t.AddNode(true), b = t.AddNode(true);
  t.SetParent(a, cohort);
  t.SetParent(b, cohort);
  t.SetQuota(a, kFr, 9, kUnlimited, kUnlimited);
  t.SetQuota(b, kFr, 12, kUnlimited, 1);
  t.Finalize();
  t.AddUsage(b, kFr, 15);
  ASSERT_EQ(t.Usage(cohort, kFr), 4);  // 15 - local 11.
  t.UpdateQuota(b, kFr, 8, kUnlimited, kUnlimited);
  // No LL now: local 0, so all 15 bubble; cohort SQ = 9 + 8 = 17, 2 left for team-a.
  EXPECT_EQ(t.LocalQuota(b, kFr), 0);
  EXPECT_EQ(t.SubtreeQuota(cohort, kFr), 17);
  EXPECT_EQ(t.Usage(b, kFr), 15);
  EXPECT_EQ(t.Usage(cohort, kFr), 15);
  EXPECT_EQ(t.Available(a, kFr), 2);
  EXPECT_EQ(t.PotentiallyAvailable(a, kFr), 17);
  EXPECT_TRUE(t.Borrowing(b, kFr));  // 15 > 8.
}

// root <- cohort g (own quota 4) <- cq guaranteed (0); root <- cq best-effort (0). Both need 4
// and borrow one step up, but Kueue's level is the height of the lowest subtree that fits: g
// (height 1, its children are queues) for guaranteed, root (height 2, it holds cohort g) for
// best-effort, so guaranteed is "borrowing less". A request that fits in the queue is level 0.
TEST(QuotaTreeTest, BorrowingLevelAsKueueSubtreeHeight) {
  QuotaTree t(1, 1);
  int root = t.AddNode(false), g = t.AddNode(false);
  int guaranteed = t.AddNode(true), best_effort = t.AddNode(true);
  t.SetParent(g, root);
  t.SetParent(guaranteed, g);
  t.SetParent(best_effort, root);
  t.SetQuota(g, kFr, 4, kUnlimited, kUnlimited);
  t.SetQuota(guaranteed, kFr, 0, kUnlimited, kUnlimited);
  t.SetQuota(best_effort, kFr, 0, kUnlimited, kUnlimited);
  t.Finalize();
  EXPECT_EQ(t.BorrowingLevel(guaranteed, kFr, 4), 1);
  EXPECT_EQ(t.BorrowingLevel(best_effort, kFr, 4), 1);
  EXPECT_EQ(t.BorrowingLevel(guaranteed, kFr, 4, true), 1);
  EXPECT_EQ(t.BorrowingLevel(best_effort, kFr, 4, true), 2);
  EXPECT_EQ(t.BorrowingLevel(guaranteed, kFr, 0, true), 0);
  // Reclaim in the hierarchy: g holds guaranteed's 4 and is not the root; best-effort's lowest
  // fitting subtree is the root itself.
  EXPECT_TRUE(t.MayReclaimInHierarchy(guaranteed, kFr, 4));
  EXPECT_FALSE(t.MayReclaimInHierarchy(best_effort, kFr, 4));
}

}  // namespace
}  // namespace steward::govern

#include "server/twin_stack_health.h"

#include <gtest/gtest.h>

#include "server_test_util.h"

namespace steward::server {
namespace {

// The fingerprint moves exactly when something the stack checks read moves: running jobs do
// not change it, a broken GPU (allocatable drops) does, and so do the findings.
TEST(TwinStackHealthTest, FingerprintFollowsWhatTheChecksRead) {
  auto t = twin::Twin::Create(twin::testing::MustParse(testing::TwoNodeYaml()));
  ASSERT_TRUE(t.ok());
  twin::Twin& tw = **t;
  const uint64_t start = StackInputsFingerprint(tw);
  EXPECT_TRUE(TwinStackFindings(tw).empty());
  tw.RunUntil(tw.now() + Hours(1));
  EXPECT_EQ(StackInputsFingerprint(tw), start);
  ASSERT_TRUE(tw.InjectXid(1, 0, 48).ok());
  EXPECT_NE(StackInputsFingerprint(tw), start);
  const std::vector<health::StackFinding> findings = TwinStackFindings(tw);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].check, "gpus-unallocatable");
  EXPECT_EQ(findings[0].node, tw.cluster().node(1).name);
}

}  // namespace
}  // namespace steward::server

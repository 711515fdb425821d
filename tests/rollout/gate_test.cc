#include "rollout/gate.h"

#include <gtest/gtest.h>

#include <cmath>

namespace steward::rollout {
namespace {

GateSpec Gate(std::string success, std::string failure) {
  GateSpec g;
  g.metric = "xid_rate_delta";
  g.success_condition = std::move(success);
  g.failure_condition = std::move(failure);
  return g;
}

TEST(rollout_ConditionTest, ComparisonsAndConnectives) {
  EXPECT_TRUE(*EvaluateCondition("result >= 0.95", 0.95));
  EXPECT_FALSE(*EvaluateCondition("result > 0.95", 0.95));
  EXPECT_TRUE(*EvaluateCondition("result < 1 && result > 0", 0.5));
  EXPECT_FALSE(*EvaluateCondition("result < 1 && result > 0", 1));
  // && binds tighter than ||: false || (true && true).
  EXPECT_TRUE(*EvaluateCondition("result == 7 || result > 1 && result < 3", 2));
  EXPECT_TRUE(*EvaluateCondition("isNaN(result)", std::nan("")));
  EXPECT_FALSE(EvaluateCondition("result >> 3", 1).ok());
  EXPECT_FALSE(EvaluateCondition("value >= 3", 1).ok());
  EXPECT_FALSE(EvaluateCondition("result >= x", 1).ok());
}

TEST(rollout_AssessTest, ArgoMeasurementRules) {
  std::string why;
  const GateSpec both = Gate("result <= 0.5", "result > 2");
  EXPECT_EQ(AssessMeasurement(both, 0.1, &why), Verdict::kSuccessful);
  EXPECT_EQ(AssessMeasurement(both, 3, &why), Verdict::kFailed);
  // Neither matched with both set: inconclusive.
  EXPECT_EQ(AssessMeasurement(both, 1, &why), Verdict::kInconclusive);
  // Only successCondition: a non-match fails.
  EXPECT_EQ(AssessMeasurement(Gate("result <= 0.5", ""), 1, &why), Verdict::kFailed);
  // Only failureCondition: a non-match succeeds.
  EXPECT_EQ(AssessMeasurement(Gate("", "result > 2"), 1, &why), Verdict::kSuccessful);
  // No value: an error.
  EXPECT_EQ(AssessMeasurement(both, std::nullopt, &why), Verdict::kError);
  // failureCondition wins when both match.
  EXPECT_EQ(AssessMeasurement(Gate("result >= 0", "result > 2"), 3, &why), Verdict::kFailed);
}

TEST(rollout_JudgeTest, FailureLimitCountsCumulatively) {
  GateSpec g = Gate("result <= 0.5", "result > 2");
  g.count = 5;
  g.failure_limit = 1;
  GateTally t;
  t.Add(Verdict::kFailed);
  EXPECT_EQ(JudgeGate(g, t), Verdict::kRunning);  // 1 failure: not > 1.
  t.Add(Verdict::kSuccessful);
  t.Add(Verdict::kFailed);  // Not consecutive, still 2 > 1.
  EXPECT_EQ(JudgeGate(g, t), Verdict::kFailed);
}

TEST(rollout_JudgeTest, ConsecutiveErrorsOnly) {
  GateSpec g = Gate("result <= 0.5", "");
  g.count = 10;
  g.consecutive_error_limit = 2;
  GateTally t;
  t.Add(Verdict::kError);
  t.Add(Verdict::kError);
  t.Add(Verdict::kSuccessful);  // Resets the run of errors.
  t.Add(Verdict::kError);
  t.Add(Verdict::kError);
  EXPECT_EQ(JudgeGate(g, t), Verdict::kRunning);
  t.Add(Verdict::kError);  // Three in a row > 2.
  EXPECT_EQ(JudgeGate(g, t), Verdict::kError);
}

TEST(rollout_JudgeTest, InconclusivePausesAndCountCompletes) {
  GateSpec g = Gate("result <= 0.5", "result > 2");
  g.count = 2;
  GateTally t;
  t.Add(Verdict::kSuccessful);
  EXPECT_EQ(JudgeGate(g, t), Verdict::kRunning);
  t.Add(Verdict::kSuccessful);
  EXPECT_EQ(JudgeGate(g, t), Verdict::kSuccessful);
  GateTally i;
  i.Add(Verdict::kInconclusive);  // inconclusiveLimit 0: the first one decides.
  EXPECT_EQ(JudgeGate(g, i), Verdict::kInconclusive);
  // Worst first: a failure beats an inconclusive.
  i.Add(Verdict::kFailed);
  EXPECT_EQ(JudgeGate(g, i), Verdict::kFailed);
}

}  // namespace
}  // namespace steward::rollout

// Gate rules, as Argo Rollouts' analysis judges a metric (docs/rollout.md, "Gates"):
//
//   a measurement is Failed when failureCondition matches, Successful when successCondition
//   matches, otherwise Inconclusive when both are set, Failed when only successCondition is
//   set, Successful when only failureCondition is; a measurement without a value is an Error.
//   The gate is Failed when failed measurements > failureLimit (cumulative, not consecutive),
//   Error when consecutive errors > consecutiveErrorLimit, Inconclusive when inconclusive
//   measurements > inconclusiveLimit (worst first), Successful after `count` measurements.
//
//   GateTally t;  t.Add(AssessMeasurement(spec, 0.97, &why));
//   switch (JudgeGate(spec, t)) { ... }
//
// Conditions: comparisons of `result` with a number (>=, <=, >, <, ==, !=) joined by && (binds
// tighter) and ||, and isNaN(result). Pure functions; no state beyond GateTally.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/status.h"
#include "rollout/plan.h"

namespace steward::rollout {

enum class Verdict : uint8_t { kRunning, kSuccessful, kFailed, kInconclusive, kError };
std::string_view VerdictName(Verdict v);  // "running", "successful", "failed", ...
std::optional<Verdict> ParseVerdict(std::string_view name);

// The condition applied to `result`; InvalidArgument names what could not be read.
Result<bool> EvaluateCondition(std::string_view condition, double result);

// One measurement's verdict; `value` nullopt = the metric could not be measured (Error). `why`
// says which condition decided, for the decision log.
Verdict AssessMeasurement(const GateSpec& gate, std::optional<double> value, std::string* why);

struct GateTally {
  int measurements = 0, successful = 0, failed = 0, inconclusive = 0, errors = 0;
  int consecutive_errors = 0;
  void Add(Verdict measurement);
};

// The gate's state after the measurements so far (kRunning: more measurements are due).
Verdict JudgeGate(const GateSpec& gate, const GateTally& tally);

}  // namespace steward::rollout

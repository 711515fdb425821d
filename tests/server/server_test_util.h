// Fixtures for server tests: a LiveTwin on a small scenario, driven step by step (no thread).
#pragma once

#include <memory>
#include <string>

#include "../twin/twin_test_util.h"
#include "health/remediation/twin_remediation.h"
#include "server/live_twin.h"

namespace steward::server::testing {

// Two nodes x 8 H100 in one rack; team a (quota 16) and b (quota 0); one 8-GPU batch job of
// team a at t = 0 for 2 h (busy 0.8, SM-active 0.5).
inline std::string TwoNodeYaml() {
  return twin::testing::SmallScenarioYaml(
      2, "a:16,b:0",
      "generators:\n"
      "  - {name: job, team: a, kind: batch, arrival: {process: once, count: 1}, gpus_per_pod: 8,"
      " duration_hours: 2, usage: {busy: 0.8, sm_active: 0.5}}\n");
}

// With `remediation`, the scenario's remediation loop runs on the twin (in memory).
inline std::unique_ptr<LiveTwin> MakeLive(const std::string& yaml, LiveTwinOptions options = {},
                                          bool remediation = false,
                                          const twin::TwinOptions& twin_options = {}) {
  auto t = twin::Twin::Create(twin::testing::MustParse(yaml), twin_options);
  if (!t.ok()) throw std::runtime_error(t.status().message());
  if (remediation) {
    auto r = health::AttachRemediation(**t);
    if (!r.ok()) throw std::runtime_error(r.status().message());
    options.remediation = *r;
  }
  return std::make_unique<LiveTwin>(std::move(t).value(), std::move(options));
}

// Four nodes x 8 H100 in racks of 2 with the remediation loop (repairs always hold); team a
// runs one 8-GPU batch job (on p-0000) from t = 0 for 10 h.
inline std::string FourNodeYaml() {
  return twin::testing::SmallScenarioYaml(
      4, "a:32",
      "remediation: {repair_failure_probability: 0}\n"
      "generators:\n"
      "  - {name: job, team: a, kind: batch, arrival: {process: once, count: 1}, gpus_per_pod: 8,"
      " duration_hours: 10}\n");
}

// Two nodes x 8 H100 under a Kueue policy: ClusterQueues team-a and team-b (nominal 8 each,
// cohort org, reclaimWithinCohort Any); team-a submits two 8-GPU jobs at t = 0 (the second
// borrows team-b's quota).
inline std::unique_ptr<LiveTwin> MakeKueueLive(LiveTwinOptions options = {}) {
  twin::TwinOptions o;
  o.policy_files = {twin::testing::WriteTempFile(
      "server-kueue.yaml", twin::testing::TwoTeamPolicyYaml(8, 8, "{reclaimWithinCohort: Any}"))};
  return MakeLive(twin::testing::SmallScenarioYaml(
                      2, "team-a:0,team-b:0",
                      "generators:\n  - {name: job, team: team-a, kind: batch, arrival: {process: "
                      "once, count: 2}, gpus_per_pod: 8, duration_hours: 2}\n"),
                  std::move(options), false, o);
}

}  // namespace steward::server::testing

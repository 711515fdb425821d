// The lifecycle records (twin/lifecycle.h) tell each workload's story in order, and agree with
// the report's totals.
#include "twin/lifecycle.h"

#include <gtest/gtest.h>

#include <map>

#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

using testing::MustParse;
using testing::SmallScenarioYaml;

struct Logged {
  double hours;
  LifecycleKind kind;
  std::string workload;
  int gpus;
  double lost;
  std::string detail;
  bool service;
};

std::vector<Logged> RunLogged(const Scenario& s, TwinOptions o, Report* report) {
  std::vector<Logged> out;
  o.on_lifecycle = [&](const LifecycleRecord& r) {
    out.push_back({r.at.ToHours(), r.kind, r.spec->name, r.gpus, r.lost_gpu_hours, r.detail,
                   r.spec->kind == model::WorkloadKind::kInference});
  };
  auto t = Twin::Create(s, o);
  if (!t.ok()) throw std::runtime_error(t.status().message());
  *report = (*t)->Run();
  return out;
}

TEST(LifecycleTest, OneCheckpointingJobFromArrivalToFinish) {
  const Scenario s = MustParse(SmallScenarioYaml(
      2, "a:16",
      "generators:\n  - {name: job, team: a, kind: training, arrival: {process: once, count: 1, "
      "start_hours: 1}, pods: 2, gpus_per_pod: 8, duration_hours: 3, "
      "checkpoint_interval_minutes: 60}\n"));
  Report r;
  const std::vector<Logged> log = RunLogged(s, {}, &r);
  const double startup = 90.0 / 3600;
  // Checkpoints every hour of work after the 90 s start; the one due at the finish is not taken.
  const std::vector<std::pair<LifecycleKind, double>> want = {
      {LifecycleKind::kArrive, 1},
      {LifecycleKind::kAdmit, 1},
      {LifecycleKind::kPlace, 1},
      {LifecycleKind::kStart, 1 + startup},
      {LifecycleKind::kCheckpoint, 2 + startup},
      {LifecycleKind::kCheckpoint, 3 + startup},
      {LifecycleKind::kFinish, 4 + startup}};
  ASSERT_EQ(log.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(log[i].kind, want[i].first) << i;
    EXPECT_NEAR(log[i].hours, want[i].second, 1e-9) << i;
    EXPECT_EQ(log[i].gpus, 16) << i;
  }
  // Two pods of 8 on the two nodes.
  EXPECT_EQ(log[2].detail, "p-0000:8,p-0001:8");
}

TEST(LifecycleTest, AQueuedJobIsAdmittedWhenTheFirstFinishes) {
  const Scenario s = MustParse(SmallScenarioYaml(
      2, "a:8",
      "generators:\n  - {name: job, team: a, kind: batch, arrival: {process: once, count: 2, "
      "start_hours: 0}, gpus_per_pod: 8, duration_hours: 2}\n"));
  Report r;
  const std::vector<Logged> log = RunLogged(s, {}, &r);
  std::map<std::string, double> admitted;
  for (const Logged& l : log)
    if (l.kind == LifecycleKind::kAdmit) admitted[l.workload] = l.hours;
  ASSERT_EQ(admitted.size(), 2u);
  EXPECT_NEAR(admitted.at("job-000000"), 0, 1e-9);
  EXPECT_NEAR(admitted.at("job-000001"), 2 + 90.0 / 3600, 1e-9);  // Quota 8: one at a time.
}

// Every workload of the built-in default (faults, preemptions, services, notebooks) follows the
// lifecycle's state machine, and the records add up to the report.
TEST(LifecycleTest, TheDefaultScenarioFollowsTheStateMachine) {
  TwinOptions o;
  o.days = 2;
  Report r;
  const std::vector<Logged> log = RunLogged(DefaultScenario(), o, &r);
  enum State { kNone, kPending, kPlacedState, kRunningState, kDone };
  std::map<std::string, State> state;
  int finished = 0, interruptions = 0;
  double lost = 0, last = 0;
  for (const Logged& l : log) {
    ASSERT_GE(l.hours, last) << "records are in time order";
    last = l.hours;
    State& st = state[l.workload];
    switch (l.kind) {
      case LifecycleKind::kArrive:
        ASSERT_EQ(st, kNone) << l.workload;
        st = kPending;
        break;
      case LifecycleKind::kAdmit:
        ASSERT_EQ(st, kPending) << l.workload;
        st = kPlacedState;
        break;
      case LifecycleKind::kPlace:
        // A job's pods are placed at admission; a service places replicas while it runs.
        ASSERT_TRUE(st == kPlacedState || (l.service && st != kDone)) << l.workload;
        break;
      case LifecycleKind::kStart:
        ASSERT_TRUE(st == kPlacedState || st == kRunningState) << l.workload;
        st = kRunningState;
        break;
      case LifecycleKind::kCheckpoint:
        ASSERT_EQ(st, kRunningState) << l.workload;
        break;
      case LifecycleKind::kFinish:
        ASSERT_EQ(st, kRunningState) << l.workload;
        st = kDone;
        ++finished;
        break;
      case LifecycleKind::kFail:
      case LifecycleKind::kDrain:
      case LifecycleKind::kPreempt:
        ASSERT_TRUE(st == kPlacedState || st == kRunningState) << l.workload;
        st = kPending;
        ++interruptions;
        lost += l.lost;
        break;
      case LifecycleKind::kStop:
        ASSERT_TRUE(st == kPlacedState || st == kRunningState) << l.workload;
        st = kDone;
        break;
      case LifecycleKind::kScale:
        ASSERT_TRUE(l.service) << l.workload;
        break;
      case LifecycleKind::kResize:  // An elastic job goes on running, with fewer workers.
        ASSERT_EQ(st, kRunningState) << l.workload;
        lost += l.lost;
        break;
    }
  }
  EXPECT_EQ(finished, r.workloads_completed);
  EXPECT_GT(interruptions, 0);
  EXPECT_NEAR(lost, r.lost_gpu_hours, 1e-6);
}

}  // namespace
}  // namespace steward::twin

// Gang admission under heavy load: many 4-worker jobs on a small quota, with pods that
// sometimes fail to become ready (waitForPodsReady timeout -> release -> backoff requeue).
// Invariants checked at every step: usage never exceeds quota, a job holds quota for all of
// its 4 workers or for none, and every job eventually finishes (no deadlock).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "govern/pods_ready_tracker.h"
#include "test_util.h"

namespace steward::govern {
namespace {

TEST(GangStressTest, NoPartialAdmissionAndNoDeadlock) {
  auto e =
      testing::MustEngine(testing::TwoTeams(32, 32, "", "{withinClusterQueue: LowerPriority}"));
  PodsReadyOptions o;
  o.timeout = Seconds(60);
  o.block_admission = false;
  o.backoff_base = Seconds(10);
  o.backoff_max = Seconds(80);
  PodsReadyTracker tracker(o);
  std::mt19937 rng(7);
  constexpr int kJobs = 600;
  struct Job {
    WorkloadRequest req;
    bool done = false;
    SimTime finish = SimTime::Never();
    bool ready = false;
  };
  std::vector<Job> jobs(kJobs);
  for (int i = 0; i < kJobs; ++i) {
    const char* cq = i % 2 ? "team-a" : "team-b";
    jobs[i].req = testing::WorkloadBuilder(i, cq).Gpus(2, 4).Priority(i % 3).Build();  // 4 x 2.
    jobs[i].req.queue_timestamp = kSimStart + Seconds(i / 10);
  }
  std::set<int> admitted;
  int done = 0, timeouts = 0;
  SimTime now = kSimStart;
  for (int step = 0; step < 100000 && done < kJobs; ++step) {
    now = now + Seconds(5);
    for (const auto& ev : tracker.Expire(now)) {
      ASSERT_TRUE(e->Release(ev.workload_id).ok());
      admitted.erase(static_cast<int>(ev.workload_id));
      jobs[ev.workload_id].req.requeue_at = ev.requeue_at;
      jobs[ev.workload_id].req.queue_timestamp = now;
      ++timeouts;
    }
    for (int id : std::vector<int>(admitted.begin(), admitted.end())) {
      Job& j = jobs[id];
      if (!j.ready && rng() % 4 == 0) {  // Pods become ready (or not, until the timeout).
        j.ready = true;
        tracker.OnPodsReady(id);
        j.finish = now + Seconds(30 + rng() % 120);
      }
      if (j.ready && j.finish <= now) {
        ASSERT_TRUE(e->Release(id).ok());
        tracker.OnRemoved(id);
        admitted.erase(id);
        j.done = true;
        ++done;
      }
    }
    for (auto& j : jobs) {
      if (j.done || admitted.count(static_cast<int>(j.req.id))) continue;
      Decision d = e->TryAdmit(j.req, now);
      if (d.mode != AdmissionMode::kFit) continue;
      ASSERT_TRUE(e->Admit(j.req, d, now).ok());
      admitted.insert(static_cast<int>(j.req.id));
      j.ready = false;
      tracker.OnAdmitted(j.req.id, now);
    }
    Amount a = e->Usage("team-a", "h100", "nvidia.com/gpu");
    Amount b = e->Usage("team-b", "h100", "nvidia.com/gpu");
    ASSERT_LE(a + b, 64);
    ASSERT_EQ((a + b) % 8, 0);  // Whole gangs only: 4 workers x 2 GPUs.
    ASSERT_EQ(a + b, 8 * static_cast<Amount>(admitted.size()));
  }
  EXPECT_EQ(done, kJobs);
  EXPECT_GT(timeouts, 0);  // The timeout path was exercised.
}

}  // namespace
}  // namespace steward::govern

// examples/governed.yaml against examples/default.yaml: the workloads' own usage profiles are
// the same in both runs, so the governed run's lift comes from governance alone (issue 19,
// item 5; docs/outcomes.md).
//
// What must be equal, per workload present in both runs (same name = same generator and index):
//  - arrival (submit time), duration, checkpoint interval and restore, kind and team;
//  - the job's usage: stall period and fraction, active hours (notebooks), and its work —
//    the GPUs it drives (pods x GPUs per pod x used_gpu_fraction) and, on each of them, its
//    SM-active and idle GPU_UTIL in whole-GPU units (a MIG k/7 instance reads x 7/k, as DCGM
//    reports it per instance, so the value times k/7 is compared). Busy (GPU_UTIL) is compared
//    the same way where no MIG instance saturates it (a reading cannot pass 100 %).
// What may differ is governance's: GPUs per pod and MIG instance (right-sizing), and a
// service's replica count (its autoscaler instead of the hourly curve).
#include <gtest/gtest.h>

#include <map>

#include "place/mig.h"
#include "twin/twin.h"

namespace steward::twin {
namespace {

std::string Example(const std::string& f) {
  return std::string(STEWARD_SOURCE_DIR) + "/examples/" + f;
}

// The workloads that arrived in the first `days` of `file` at `seed`, by name.
std::map<std::string, model::Workload> Arrivals(const std::string& file, int64_t seed,
                                                double days) {
  Result<Scenario> s = LoadScenario(Example(file));
  EXPECT_TRUE(s.ok()) << s.status().message();
  TwinOptions o;
  o.seed = seed;
  o.days = days;
  o.memory_limit_bytes = -1;
  o.finished_runs_kept = -1;  // Every arrival's spec, finished or not.
  auto t = Twin::Create(std::move(s).value(), o);
  EXPECT_TRUE(t.ok()) << t.status().message();
  (*t)->RunUntil((*t)->horizon());
  std::map<std::string, model::Workload> out;
  for (const WorkloadRun& r : (*t)->runs()) out.emplace(r.spec.name, r.spec);
  return out;
}

// The share of a GPU one pod of `ps` computes on: k/7 on a MIG instance, else 1.
double Share(const model::PodSet& ps) {
  if (ps.mig_profile.empty()) return 1.0;
  return place::MigInfo(place::ParseMigProfile(ps.mig_profile)).compute_slices /
         static_cast<double>(place::kMigComputeSlices);
}

TEST(GovernedUsageTest, EveryWorkloadDoesTheSameWorkInTheNaiveAndTheGovernedRun) {
  for (int64_t seed : {1, 2}) {
    const auto naive = Arrivals("default.yaml", seed, 1.0);
    const auto governed = Arrivals("governed.yaml", seed, 1.0);
    ASSERT_GT(naive.size(), 1000u);
    // The same arrivals: every default workload has its twin.
    EXPECT_EQ(naive.size(), governed.size()) << "seed " << seed;
    int right_sized = 0, on_mig = 0;
    for (const auto& [name, a] : naive) {
      auto it = governed.find(name);
      ASSERT_NE(it, governed.end()) << name;
      const model::Workload& b = it->second;
      SCOPED_TRACE(name);
      EXPECT_EQ(a.submit_time, b.submit_time);
      EXPECT_EQ(a.duration, b.duration);
      EXPECT_EQ(a.kind, b.kind);
      EXPECT_EQ(a.team, b.team);
      EXPECT_EQ(a.checkpoint_interval, b.checkpoint_interval);
      EXPECT_EQ(a.restore_time, b.restore_time);
      EXPECT_EQ(a.usage.stall_period, b.usage.stall_period);
      EXPECT_DOUBLE_EQ(a.usage.stall_fraction, b.usage.stall_fraction);
      EXPECT_EQ(a.usage.active_duration, b.usage.active_duration);
      ASSERT_EQ(a.pod_sets.size(), 1u);
      ASSERT_EQ(b.pod_sets.size(), 1u);
      const model::PodSet &pa = a.pod_sets[0], &pb = b.pod_sets[0];
      // GPUs driven per pod (a service's replica count is its autoscaler's; a job's pods stay).
      EXPECT_NEAR(pa.gpus_per_pod * a.usage.used_gpu_fraction,
                  pb.gpus_per_pod * b.usage.used_gpu_fraction, 1e-9);
      if (a.kind != model::WorkloadKind::kInference) {
        EXPECT_EQ(pa.count, pb.count);
      }
      // SM work on each driven GPU, in whole-GPU units.
      const double sa = Share(pa), sb = Share(pb);
      EXPECT_NEAR(a.usage.sm_active * sa, b.usage.sm_active * sb, 1e-9);
      EXPECT_NEAR(a.usage.idle_busy * sa, b.usage.idle_busy * sb, 1e-9);
      if (b.usage.busy < 1) {
        EXPECT_NEAR(a.usage.busy * sa, b.usage.busy * sb, 1e-9);
      }
      right_sized += pb.gpus_per_pod < pa.gpus_per_pod;
      on_mig += !pb.mig_profile.empty();
    }
    // Governance did change what they ask for: right-sized finetunes, MIG notebooks/CI/embed.
    EXPECT_GT(right_sized, 10) << "seed " << seed;
    EXPECT_GT(on_mig, 100) << "seed " << seed;
  }
}

}  // namespace
}  // namespace steward::twin

// The twin's Kueue admission and `steward policy simulate` on the same state (issue 17): the
// same ClusterQueues and the same workloads, all submitted at once, must end with the same
// workloads admitted. The twin's workloads are written out as the Workload objects
// `kubectl get workloads -o yaml` would show and handed to govern::Simulate, which runs Kueue's
// cycles until nothing changes; the twin runs five simulated minutes (nothing finishes).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "govern/simulate.h"
#include "govern/workload_import.h"
#include "twin/twin.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

std::string Timestamp(int second) {
  return std::string("\"2024-01-01T00:00:") + (second < 10 ? "0" : "") + std::to_string(second) +
         "Z\"";
}

// Kueue Workload objects of every run of the twin, created in submit order (one second apart, so
// the queue order is the twin's); those in `holding` hold quota (status.admission, reserved in
// the same order). A partially admitted run asks for its submitted counts with minCount; the
// count it holds is in status.admission.
std::string WorkloadObjects(const Twin& t, const std::map<std::string, bool>& holding) {
  std::string y;
  int second = 0;
  for (const WorkloadRun& r : t.runs()) {
    const model::Workload& w = r.spec;
    y += "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: " + w.name +
         ", namespace: " + w.namespace_name + ", creationTimestamp: " + Timestamp(second) +
         "}\nspec:\n  queueName: " + w.queue + "\n  podSets:\n";
    for (size_t i = 0; i < w.pod_sets.size(); ++i) {
      const model::PodSet& ps = w.pod_sets[i];
      const int asked = i < r.requested_counts.size() ? r.requested_counts[i] : ps.count;
      y += "  - name: " + ps.name + "\n    count: " + std::to_string(asked) +
           (ps.min_count > 0 ? "\n    minCount: " + std::to_string(ps.min_count) : "") +
           "\n    template:\n      spec:\n        containers:\n        - resources: {requests: "
           "{nvidia.com/gpu: \"" +
           std::to_string(ps.gpus_per_pod) + "\"";
      if (ps.cpu_milli > 0) y += ", cpu: " + std::to_string(ps.cpu_milli) + "m";
      if (ps.memory_mib > 0) y += ", memory: " + std::to_string(ps.memory_mib) + "Mi";
      for (const auto& [name, count] : ps.extended_resources)
        y += ", " + name + ": \"" + std::to_string(count) + "\"";
      y += "}}\n";
    }
    if (auto h = holding.find(w.name); h != holding.end() && h->second) {
      y += "status:\n  admission:\n    clusterQueue: " + w.queue + "\n    podSetAssignments:\n";
      for (const model::PodSet& ps : w.pod_sets)
        y += "    - {name: " + ps.name + ", flavors: {nvidia.com/gpu: h100" +
             (ps.cpu_milli > 0 ? ", cpu: h100" : "") + (ps.memory_mib > 0 ? ", memory: h100" : "") +
             "}, count: " + std::to_string(ps.count) + "}\n";
      y += "  conditions:\n  - {type: QuotaReserved, status: \"True\", lastTransitionTime: " +
           Timestamp(second) + "}\n";
    }
    ++second;
  }
  return y;
}

struct Outcome {
  std::map<std::string, bool> holding_before;  // Who held quota in the state simulate starts from.
  std::map<std::string, bool> twin_admitted, simulate_admitted;
  // Admitted workloads: pods per pod set (fewer than asked under partial admission).
  std::map<std::string, std::vector<int>> twin_counts, simulate_counts;
};

// The twin runs to `before` (the state handed to simulate: who holds quota then) and on to five
// minutes past `after`; simulate starts from the `before` state with every workload the twin
// has by the end.
// `pool_fields` are added to the one pool's fields.
Outcome RunBoth(const std::string& policy, int nodes, const std::string& generators,
                SimDuration before = SimDuration(), SimDuration after = SimDuration(),
                const std::string& pool_fields = "") {
  const std::string policy_file = testing::WriteTempFile("agreement-policy.yaml", policy);
  TwinOptions o;
  o.policy_files = {policy_file};
  auto t =
      Twin::Create(testing::MustParse(testing::SmallScenarioYaml(
                       nodes, "team-a:0,team-b:0", "generators:\n" + generators, 1, pool_fields)),
                   o);
  EXPECT_TRUE(t.ok()) << t.status().message();
  Outcome out;
  if (!t.ok()) return out;
  std::map<std::string, bool> holding;
  if (before > SimDuration()) {
    (*t)->RunUntil(kSimStart + before);
    for (const WorkloadRun& r : (*t)->runs()) holding[r.spec.name] = r.state != RunState::kPending;
  }
  out.holding_before = holding;
  (*t)->RunUntil(kSimStart + after + Minutes(5));
  for (const WorkloadRun& r : (*t)->runs()) {
    out.twin_admitted[r.spec.name] = r.state != RunState::kPending;
    if (r.state != RunState::kPending)
      for (const model::PodSet& ps : r.spec.pod_sets)
        out.twin_counts[r.spec.name].push_back(ps.count);
  }

  auto input = govern::LoadSimulationFiles(
      {policy_file,
       testing::WriteTempFile("agreement-workloads.yaml", WorkloadObjects(**t, holding))});
  EXPECT_TRUE(input.ok()) << input.status().message();
  if (!input.ok()) return out;
  auto result = govern::Simulate(*input, {});
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok()) return out;
  for (const govern::SimulatedWorkload& w : result->workloads) {
    out.simulate_admitted[w.name] = w.state == "admitted";
    for (const auto& f : w.flavors) out.simulate_counts[w.name].push_back(f.count);
  }
  return out;
}

std::string Gen(const std::string& name, const std::string& team, int pods, int gpus,
                double start_hours = 0, const std::string& extra = "") {
  return testing::Once(name, team, "batch", 1, start_hours,
                       "pods: " + std::to_string(pods) + ", gpus_per_pod: " + std::to_string(gpus) +
                           ", duration_hours: 10" + extra);
}

// Two ClusterQueues in cohort org covering GPUs and `others` (8 GPUs each and, per other
// resource, the nominal quota given), no preemption.
std::string CoveringPolicyYaml(const std::map<std::string, std::string>& others) {
  std::string covered = "nvidia.com/gpu", quotas;
  for (const auto& [name, nominal] : others) {
    covered += ", " + name;
    quotas += "      - {name: " + name + ", nominalQuota: " + nominal + "}\n";
  }
  auto cq = [&](const std::string& name) {
    return "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: " + name +
           "}\nspec:\n  cohort: org\n  namespaceSelector: {}\n  resourceGroups:\n"
           "  - coveredResources: [" +
           covered +
           "]\n    flavors:\n    - name: h100\n"
           "      resources:\n      - {name: nvidia.com/gpu, nominalQuota: 8}\n" +
           quotas +
           "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: " + name +
           ", namespace: " + name + "}\nspec: {clusterQueue: " + name + "}\n";
  };
  return "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: h100}\n" +
         cq("team-a") + cq("team-b");
}

// 16 GPUs, team-a and team-b 8 each (team-b 0 where a case says). Every workload fits on its own;
// the borrows and who must wait.
TEST(SimulateAgreementTest, TwinAndPolicySimulateAdmitTheSameWorkloads) {
  struct Case {
    std::string name;
    std::string generators;
    std::map<std::string, bool> admitted;  // Hand-worked expectation for both.
    int nominal_b = 8;
  };
  const std::vector<Case> cases = {
      // team-a borrows team-b's idle 8.
      {"borrow idle quota",
       Gen("a1", "team-a", 1, 8) + Gen("a2", "team-a", 1, 8),
       {{"a1-000000", true}, {"a2-000000", true}}},
      // a2 would borrow the 8 team-b needs for b1: within nominal goes first, a2 waits.
      {"nominal before borrowing",
       Gen("a1", "team-a", 1, 8) + Gen("a2", "team-a", 1, 8) + Gen("b1", "team-b", 1, 8),
       {{"a1-000000", true}, {"a2-000000", false}, {"b1-000000", true}}},
      // Two pod sets (a launcher of 1 GPU and workers 2 x 4) count as 9 GPUs, one more than the
      // 8 left after a1 and solo: pending in both (counting one pod set would admit it).
      {"pod sets",
       Gen("a1", "team-a", 1, 4) + Gen("solo", "team-b", 1, 4) +
           testing::Once("mp", "team-a", "training", 1, 0,
                         "duration_hours: 10, pod_sets: [{name: launcher, count: 1, "
                         "gpus_per_pod: 1}, {name: worker, count: 2, gpus_per_pod: 4}]"),
       {{"a1-000000", true}, {"solo-000000", true}, {"mp-000000", false}}},
      // The same 9-GPU workload where the cohort holds 8 (team-b 0): it fails, and the 4-GPU
      // jobs queued behind it (training's priority is above batch's) still fit: a failed
      // workload of several pod sets says nothing about one that asks for less in all.
      {"after a failed pod-sets workload",
       Gen("a1", "team-a", 1, 4) +
           testing::Once("mp", "team-a", "training", 1, 0,
                         "duration_hours: 10, pod_sets: [{name: launcher, count: 1, "
                         "gpus_per_pod: 1}, {name: worker, count: 2, gpus_per_pod: 4}]") +
           Gen("a3", "team-a", 1, 4),
       {{"a1-000000", true}, {"mp-000000", false}, {"a3-000000", true}},
       0},
      // 24 GPUs exceed the whole cohort: never admitted; the 4-GPU jobs are.
      {"larger than the cohort",
       Gen("big", "team-a", 3, 8) + Gen("s1", "team-a", 1, 4) + Gen("s2", "team-b", 1, 4),
       {{"big-000000", false}, {"s1-000000", true}, {"s2-000000", true}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Outcome o = RunBoth(testing::TwoTeamPolicyYaml(8, c.nominal_b, "{}"), 2, c.generators);
    EXPECT_EQ(o.twin_admitted, c.admitted);
    EXPECT_EQ(o.simulate_admitted, c.admitted);
  }
}

// CPU and memory requests count against quota in both, as Kueue counts them; by GPUs alone (12
// of 16) every case would admit all three.
TEST(SimulateAgreementTest, CpuAndMemoryCountAgainstQuota) {
  struct Case {
    std::string name;
    std::string policy;
    std::string generators;
    std::map<std::string, bool> admitted;  // Hand-worked expectation for both.
  };
  const std::string cpu = ", cpu_milli: 12000",
                    memory = ", memory_mib: 196608";  // 12 cores, 192 GiB.
  const std::vector<Case> cases = {
      // a1 and b1 (heads, within nominal) take 12 of their 16 cores each; a2 would borrow 8 of
      // the 4 cores team-b leaves unused: pending.
      {"cpu",
       CoveringPolicyYaml({{"cpu", "16"}, {"memory", "256Gi"}}),
       Gen("a1", "team-a", 1, 4, 0, cpu) + Gen("a2", "team-a", 1, 4, 0, cpu) +
           Gen("b1", "team-b", 1, 4, 0, cpu),
       {{"a1-000000", true}, {"a2-000000", false}, {"b1-000000", true}}},
      // The same with memory: 192 of 256 GiB each; a2 would need 128 GiB borrowed of 64.
      {"memory",
       CoveringPolicyYaml({{"cpu", "16"}, {"memory", "256Gi"}}),
       Gen("a1", "team-a", 1, 4, 0, memory) + Gen("a2", "team-a", 1, 4, 0, memory) +
           Gen("b1", "team-b", 1, 4, 0, memory),
       {{"a1-000000", true}, {"a2-000000", false}, {"b1-000000", true}}},
      // ClusterQueues covering GPUs only: a workload asking for CPU is blocked (Kueue's
      // BlockUndeclared), one without a CPU request is admitted.
      {"cpu not covered",
       testing::TwoTeamPolicyYaml(8, 8, "{}"),
       Gen("a1", "team-a", 1, 4, 0, cpu) + Gen("a2", "team-a", 1, 4),
       {{"a1-000000", false}, {"a2-000000", true}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Outcome o = RunBoth(c.policy, 2, c.generators);
    EXPECT_EQ(o.twin_admitted, c.admitted);
    EXPECT_EQ(o.simulate_admitted, c.admitted);
  }
}

// Extended resources count as Kueue counts them: each ClusterQueue holds one FPGA, so the
// second FPGA job of team-a waits though GPUs (12 of 16) and nodes (4 FPGAs each) have room.
TEST(SimulateAgreementTest, ExtendedResourcesCountAgainstQuota) {
  const std::string fpga = ", extended_resources: {example.com/fpga: 1}";
  const std::string nodes = " extended_resources: {example.com/fpga: 4},";
  Outcome o = RunBoth(CoveringPolicyYaml({{"example.com/fpga", "1"}}), 2,
                      Gen("a1", "team-a", 1, 4, 0, fpga) + Gen("a2", "team-a", 1, 4, 0, fpga) +
                          Gen("b1", "team-b", 1, 4, 0, fpga),
                      SimDuration(), SimDuration(), nodes);
  const std::map<std::string, bool> want = {
      {"a1-000000", true}, {"a2-000000", false}, {"b1-000000", true}};
  EXPECT_EQ(o.twin_admitted, want);
  EXPECT_EQ(o.simulate_admitted, want);
  // ClusterQueues covering GPUs only block an FPGA job (BlockUndeclared), not the others.
  o = RunBoth(testing::TwoTeamPolicyYaml(8, 8, "{}"), 2,
              Gen("a1", "team-a", 1, 4, 0, fpga) + Gen("a2", "team-a", 1, 4), SimDuration(),
              SimDuration(), nodes);
  const std::map<std::string, bool> blocked = {{"a1-000000", false}, {"a2-000000", true}};
  EXPECT_EQ(o.twin_admitted, blocked);
  EXPECT_EQ(o.simulate_admitted, blocked);
}

// Partial admission (minCount): team-a and team-b have 8 GPUs each in cohort org; a1 (8, team-a)
// and b1 (4, team-b) are admitted first (heads within nominal), leaving 4 GPUs that team-a may
// borrow. Both sides run the same search (govern/partial_admission.h) and must agree on the
// counts too.
TEST(SimulateAgreementTest, PartialAdmission) {
  struct Case {
    std::string name;
    std::string generators;
    std::map<std::string, bool> admitted;            // Hand-worked expectation for both.
    std::map<std::string, std::vector<int>> counts;  // Of the admitted ones.
  };
  const std::string first = Gen("a1", "team-a", 1, 8) + Gen("b1", "team-b", 1, 4);
  auto sets = [](const std::string& pod_sets) {
    return testing::Once("el", "team-a", "batch", 1, 0,
                         "duration_hours: 10, pod_sets: [" + pod_sets + "]");
  };
  const std::vector<Case> cases = {
      // 4 x 2 GPUs, minCount 1: D = 3; keep 1 → 1 + 3/3 = 2 pods (4 GPUs, fits), keep 2 → 3
      // pods (6 GPUs, does not): 2 pods, borrowing team-b's 4.
      {"one pod set",
       first + sets("{name: worker, count: 4, gpus_per_pod: 2, min_count: 1}"),
       {{"a1-000000", true}, {"b1-000000", true}, {"el-000000", true}},
       {{"a1-000000", {1}}, {"b1-000000", {1}}, {"el-000000", {2}}}},
      // minCount 3 = 6 GPUs > 4: even the minimum does not fit, pending in both.
      {"minimum does not fit",
       first + sets("{name: worker, count: 4, gpus_per_pod: 2, min_count: 3}"),
       {{"a1-000000", true}, {"b1-000000", true}, {"el-000000", false}},
       {{"a1-000000", {1}}, {"b1-000000", {1}}}},
      // A launcher (1 x 1, no minimum) and workers 6 x 1 with minCount 2: 7 > 4. D = 4 (the
      // workers'); keep 1 → 2 + 4/4 = 3 workers (4 GPUs with the launcher, fits), keep 2 → 4
      // workers (5, does not): launcher 1, workers 3.
      {"two pod sets, one reducible",
       first + sets("{name: launcher, count: 1, gpus_per_pod: 1}, "
                    "{name: worker, count: 6, gpus_per_pod: 1, min_count: 2}"),
       {{"a1-000000", true}, {"b1-000000", true}, {"el-000000", true}},
       {{"a1-000000", {1}}, {"b1-000000", {1}}, {"el-000000", {1, 3}}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Outcome o = RunBoth(testing::TwoTeamPolicyYaml(8, 8, "{}"), 2, c.generators);
    EXPECT_EQ(o.twin_admitted, c.admitted);
    EXPECT_EQ(o.simulate_admitted, c.admitted);
    EXPECT_EQ(o.twin_counts, c.counts);
    EXPECT_EQ(o.simulate_counts, c.counts);
  }
}

// A partially admitted workload handed over to simulate holding quota: status.admission says
// the count it holds (1 of 4 pods, spec count 4 with minCount 1), and simulate must count that,
// not the spec. a1 (8, team-a) and b1 (2, team-b) are admitted first; el asks 4 x 4 GPUs with
// 6 left in the cohort: D = 3, keep 1 → 2 pods (8, no), keep 0 → 1 pod (4, fits, borrowing):
// 1 pod. At 1 h b2 (2, team-b, within its nominal) fits in the 2 left — it would not if el
// counted as its full 16.
TEST(SimulateAgreementTest, PartiallyAdmittedWorkloadIsHandedOverWithItsAdmittedCount) {
  Outcome o = RunBoth(testing::TwoTeamPolicyYaml(8, 8, "{}"), 2,
                      Gen("a1", "team-a", 1, 8) + Gen("b1", "team-b", 1, 2) +
                          testing::Once("el", "team-a", "batch", 1, 0,
                                        "duration_hours: 10, pod_sets: [{name: worker, count: 4, "
                                        "gpus_per_pod: 4, min_count: 1}]") +
                          Gen("b2", "team-b", 1, 2, 1),
                      Minutes(59), Hours(1));
  const std::map<std::string, bool> before = {
      {"a1-000000", true}, {"b1-000000", true}, {"el-000000", true}};
  EXPECT_EQ(o.holding_before, before);
  const std::map<std::string, bool> want = {
      {"a1-000000", true}, {"b1-000000", true}, {"b2-000000", true}, {"el-000000", true}};
  EXPECT_EQ(o.twin_admitted, want);
  EXPECT_EQ(o.simulate_admitted, want);
  const std::map<std::string, std::vector<int>> counts = {
      {"a1-000000", {1}}, {"b1-000000", {1}}, {"b2-000000", {1}}, {"el-000000", {1}}};
  EXPECT_EQ(o.twin_counts, counts);
  EXPECT_EQ(o.simulate_counts, counts);
}

// Reclaim: team-a borrows team-b's idle 8 (a2, admitted after a1); at 1 h b1 asks for team-b's
// nominal 8 and its queue reclaims (reclaimWithinCohort: Any). Both sides evict the newest
// borrower, a2, and admit b1. The state simulate starts from is the twin's at 59 minutes.
TEST(SimulateAgreementTest, ReclaimEvictsTheSameBorrower) {
  Outcome o = RunBoth(
      testing::TwoTeamPolicyYaml(8, 8, "{reclaimWithinCohort: Any}"), 2,
      Gen("a1", "team-a", 1, 8) + Gen("a2", "team-a", 1, 8, 0.1) + Gen("b1", "team-b", 1, 8, 1),
      Minutes(59), Hours(1));
  const std::map<std::string, bool> before = {{"a1-000000", true}, {"a2-000000", true}};
  EXPECT_EQ(o.holding_before, before);  // a2 borrowed before b1 came.
  const std::map<std::string, bool> want = {
      {"a1-000000", true}, {"a2-000000", false}, {"b1-000000", true}};
  EXPECT_EQ(o.twin_admitted, want);
  EXPECT_EQ(o.simulate_admitted, want);
}

}  // namespace
}  // namespace steward::twin

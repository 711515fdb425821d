// Elastic training in the twin (twin/twin_elastic.cc): a scenario marks a job elastic, a running
// elastic job shrinks toward its min_count, frees exactly the surplus workers' GPUs, and finishes
// later in proportion (linear scaling) after its regroup pause; it grows back when its quota and
// the nodes allow. Expectations by hand.
#include <gtest/gtest.h>

#include "twin/build_cluster.h"
#include "twin/trace.h"
#include "twin/twin.h"
#include "twin/twin_cluster_control.h"
#include "twin_test_util.h"

namespace steward::twin {
namespace {

using testing::MakeTwin;
using testing::MustParse;
using testing::SmallScenarioYaml;

// One elastic job: 4 workers x 2 GPUs (min 1), 10 hours of work, checkpoints hourly, restores
// (and regroups) in 6 minutes; and a fixed 2-GPU batch job.
std::string ElasticYaml(bool elastic = true) {
  return SmallScenarioYaml(
      2, "a:16",
      "generators:\n"
      "  - {name: train, team: a, kind: training, arrival: {process: once, count: 1},"
      " pod_sets: [{name: worker, count: 4, gpus_per_pod: 2, min_count: 1}],"
      " duration_hours: 10, checkpoint_interval_minutes: 60, restore_minutes: 6, elastic: " +
          std::string(elastic ? "true" : "false") +
          "}\n"
          "  - {name: batch, team: a, kind: batch, arrival: {process: once, count: 1},"
          " gpus_per_pod: 2, duration_hours: 30}\n");
}

struct Fixture : testing::ProbedTwin {
  model::WorkloadId train = -1, batch = -1;
};

Fixture Make(bool elastic = true) {
  Fixture f;
  static_cast<testing::ProbedTwin&>(f) = testing::MakeProbedTwin(ElasticYaml(elastic));
  for (const WorkloadRun& r : f.twin->runs())
    (r.spec.kind == model::WorkloadKind::kTraining ? f.train : f.batch) = r.spec.id;
  return f;
}

TEST(ElasticTest, ScenarioMarksTrainingElastic) {
  Fixture f = Make();
  const WorkloadRun* run = f.twin->FindRun(f.twin->runs()[f.train].spec.name);
  ASSERT_NE(run, nullptr);
  EXPECT_TRUE(run->spec.elastic);
  EXPECT_EQ(run->spec.ElasticPodSet(), 0);
  EXPECT_FALSE(f.twin->runs()[f.batch].spec.elastic);
  EXPECT_EQ(f.twin->runs()[f.batch].spec.ElasticPodSet(), -1);
}

TEST(ElasticTest, BadElasticFieldsNameFileLineAndField) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      // Not training.
      {"  - {name: b, team: a, kind: batch, arrival: {process: once, count: 1},"
       " pod_sets: [{name: w, count: 4, gpus_per_pod: 2, min_count: 1}], elastic: true}\n",
       "generators[0].elastic: only training is elastic"},
      // No min_count: nothing to shrink to.
      {"  - {name: t, team: a, kind: training, arrival: {process: once, count: 1},"
       " pods: 4, gpus_per_pod: 2, elastic: true}\n",
       "generators[0].elastic: needs pod_sets whose first min_count is below its count"},
      {"  - {name: t, team: a, kind: training, arrival: {process: once, count: 1},"
       " pod_sets: [{name: w, count: 4, gpus_per_pod: 2, min_count: 4}], elastic: true}\n",
       "generators[0].elastic: needs pod_sets whose first min_count is below its count"},
      {"  - {name: t, team: a, kind: training, arrival: {process: once, count: 1},"
       " pod_sets: [{name: w, count: 4, gpus_per_pod: 2, min_count: 1}], elastic: maybe}\n",
       "generators[0].elastic"},
  };
  for (const auto& [generator, want] : bad) {
    Result<Scenario> s =
        ParseScenario(SmallScenarioYaml(2, "a:16", "generators:\n" + generator), "test.yaml");
    ASSERT_FALSE(s.ok()) << generator;
    EXPECT_NE(s.status().message().find("test.yaml:"), std::string::npos) << s.status().message();
    EXPECT_NE(s.status().message().find(want), std::string::npos) << s.status().message();
  }
}

TEST(ElasticTest, TraceColumnMarksElasticAndRejectsBadRows) {
  Scenario s = MustParse(SmallScenarioYaml(2, "a:16", ""));
  auto cluster = BuildCluster(s);
  ASSERT_TRUE(cluster.ok());
  TraceSpec spec;
  const std::string header = "submit_seconds,name,team,kind,pod_sets,elastic,duration_seconds\n";
  spec.path = testing::WriteTempFile("elastic.csv", header +
                                                        "0,e,a,training,w:4:2:1,true,60\n"
                                                        "0,f,a,training,w:4:2:1,,60\n");
  Result<TraceLoad> load = LoadTrace(spec, s, *cluster);
  ASSERT_TRUE(load.ok()) << load.status().message();
  EXPECT_TRUE(load->workloads.at(0).elastic);
  EXPECT_FALSE(load->workloads.at(1).elastic);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"0,e,a,training,w:4:2:1,yes,60", "2:6: elastic: 'yes' is not true or false"},
      {"0,e,a,training,w:4:2,true,60", "2:6: elastic: needs pod_sets whose first min_count"},
      {"0,e,a,batch,w:4:2:1,true,60", "2:6: elastic: only training is elastic"},
  };
  for (const auto& [row, want] : bad) {
    spec.path = testing::WriteTempFile("bad_elastic.csv", header + row + "\n");
    load = LoadTrace(spec, s, *cluster);
    ASSERT_FALSE(load.ok()) << row;
    EXPECT_NE(load.status().message().find("bad_elastic.csv:" + want), std::string::npos)
        << load.status().message();
  }
}

TEST(ElasticTest, AShrinkFreesTheSurplusWorkersAndStretchesTheRest) {
  Fixture f = Make();
  TwinOps& ops = *f.probe->ops_;
  const WorkloadRun& train = f.twin->runs()[f.train];
  ASSERT_EQ(train.state, RunState::kRunning);
  ASSERT_EQ(train.GpusHeld(), 8);
  ASSERT_EQ(f.twin->team_used_gpus(0), 10);  // 8 + the batch job's 2.
  const SimTime started = train.started;     // The startup after arrival at 0.
  EXPECT_EQ(started, kSimStart + Seconds(90));

  // 4 -> 2 workers at 1 h: 2 x 2 GPUs go, now.
  ASSERT_TRUE(ops.Resize(f.train, 2).ok());
  EXPECT_EQ(train.GpusHeld(), 4);
  EXPECT_EQ(train.pods.size(), 2u);
  EXPECT_EQ(f.twin->team_used_gpus(0), 6);
  EXPECT_EQ(train.spec.pod_sets[0].count, 2);
  ASSERT_EQ(train.requested_counts, std::vector<int>{4});  // As submitted.
  // Work left at 1 h: 10 h - (1 h - 90 s) = 9 h 1.5 min; at half the workers 18 h 3 min,
  // after a 6-minute regroup: the job ends at 1 h + 6 min + 18 h 3 min = 19 h 9 min.
  const SimTime finish = kSimStart + Hours(19) + Minutes(9);
  EXPECT_EQ(train.started + train.remaining, finish);
  // The regroup pause is the lost work: 6 min x 4 GPUs = 0.4 GPU-hours.
  f.twin->RunUntil(kSimStart + Hours(19) + Minutes(9) + Seconds(-1));
  EXPECT_EQ(f.twin->runs()[f.train].state, RunState::kRunning);
  f.twin->RunUntil(finish + Seconds(1));
  EXPECT_EQ(f.twin->runs()[f.train].state, RunState::kDone);
  const Report r = f.twin->BuildReport();
  EXPECT_NEAR(r.faults.lost_gpu_hours_by_cause.at("resize"), 0.4, 1e-9);
}

TEST(ElasticTest, AGrowTakesQuotaAndNodesAndShortensTheRest) {
  Fixture f = Make();
  TwinOps& ops = *f.probe->ops_;
  ASSERT_TRUE(ops.Resize(f.train, 2).ok());  // At 1 h: ends at 19 h 9 min (above).
  f.twin->RunUntil(kSimStart + Hours(2));
  // 2 -> 4 workers at 2 h: 4 GPUs from the team's quota (6 of 16 used, nothing queued).
  ASSERT_TRUE(ops.Resize(f.train, 4).ok());
  const WorkloadRun& train = f.twin->runs()[f.train];
  EXPECT_EQ(train.GpusHeld(), 8);
  EXPECT_EQ(f.twin->team_used_gpus(0), 10);
  // Work left at 2 h: 19 h 9 min - 2 h = 17 h 9 min; at twice the workers 8 h 34.5 min, after
  // the new workers' 90 s start and a 6-minute regroup: ends at 10 h 42 min.
  const SimTime finish = kSimStart + Hours(10) + Minutes(42);
  EXPECT_EQ(train.started + train.remaining, finish);
  // The ordinals stay contiguous: the new workers are 2 and 3.
  TwinClusterControl c(ops);
  int workers = 0;
  for (const control::NodeInfo& n : c.Nodes())
    for (const control::PodInfo& p : c.PodsOnNode(n.name))
      if (p.min_workers > 0) {
        ++workers;
        EXPECT_TRUE(p.ref.name.find("-worker-0-") != std::string::npos ||
                    p.ref.name.find("-worker-1-") != std::string::npos ||
                    p.ref.name.find("-worker-2-") != std::string::npos ||
                    p.ref.name.find("-worker-3-") != std::string::npos)
            << p.ref.name;
      }
  EXPECT_EQ(workers, 4);
  f.twin->RunUntil(kSimStart + Hours(10) + Minutes(42) + Seconds(1));
  EXPECT_EQ(f.twin->runs()[f.train].state, RunState::kDone);
  // Lost to the grow: the 4 kept GPUs wait 90 s, then 8 regroup for 6 min: 0.1 + 0.8.
  EXPECT_NEAR(f.twin->BuildReport().faults.lost_gpu_hours_by_cause.at("regrow"), 0.9, 1e-9);
}

TEST(ElasticTest, AGrowWaitsForQuota) {
  Fixture f = Make();
  TwinOps& ops = *f.probe->ops_;
  ASSERT_TRUE(ops.Resize(f.train, 2).ok());
  ASSERT_TRUE(f.twin->SetTeamQuota(0, 8).ok());  // 6 used: room for one worker, not two.
  EXPECT_EQ(ops.Resize(f.train, 4).code(), Status::Code::kUnavailable);
  EXPECT_EQ(f.twin->team_used_gpus(0), 6);  // Nothing taken.
  EXPECT_TRUE(ops.Resize(f.train, 3).ok());
  EXPECT_EQ(f.twin->team_used_gpus(0), 8);
  EXPECT_EQ(f.twin->runs()[f.train].GpusHeld(), 6);
}

TEST(ElasticTest, ResizeRefusesWhatItCannotDo) {
  Fixture f = Make();
  TwinOps& ops = *f.probe->ops_;
  EXPECT_EQ(ops.Resize(f.train, 0).code(), Status::Code::kInvalidArgument);  // Below min.
  EXPECT_EQ(ops.Resize(f.train, 5).code(), Status::Code::kInvalidArgument);  // Above submitted.
  EXPECT_EQ(ops.Resize(f.batch, 1).code(), Status::Code::kInvalidArgument);  // Not elastic.
  EXPECT_TRUE(ops.Resize(f.train, 4).ok());                                  // Unchanged.
  ASSERT_TRUE(ops.Resize(f.train, 3).ok());
  EXPECT_EQ(f.twin->runs()[f.train].GpusHeld(), 6);
  // A fixed-size run of the same job cannot shrink.
  Fixture fixed = Make(/*elastic=*/false);
  EXPECT_EQ(fixed.probe->ops_->Resize(fixed.train, 2).code(), Status::Code::kInvalidArgument);
}

TEST(ElasticTest, ClusterControlResizesByWorkloadNameAndShowsMinWorkers) {
  Fixture f = Make();
  TwinClusterControl c(*f.probe->ops_);
  std::string workload;
  std::vector<std::string> workers;
  for (const control::NodeInfo& n : c.Nodes())
    for (const control::PodInfo& p : c.PodsOnNode(n.name)) {
      if (p.kind != model::WorkloadKind::kTraining) {
        EXPECT_EQ(p.min_workers, 0);
        continue;
      }
      workload = p.workload;
      EXPECT_EQ(p.min_workers, 1);
      EXPECT_EQ(p.gpus, 2);
      workers.push_back(p.ref.name);
    }
  ASSERT_EQ(workers.size(), 4u);
  EXPECT_EQ(c.ResizeWorkload("a/nope", 1, "test").code(), Status::Code::kNotFound);
  ASSERT_TRUE(c.ResizeWorkload(workload, 1, "test").ok());
  // The lowest ordinal stays, under its name.
  std::vector<std::string> left;
  for (const control::NodeInfo& n : c.Nodes())
    for (const control::PodInfo& p : c.PodsOnNode(n.name))
      if (p.workload == workload) left.push_back(p.ref.name);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_NE(left[0].find("-worker-0-"), std::string::npos) << left[0];
}

}  // namespace
}  // namespace steward::twin

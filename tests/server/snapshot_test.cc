#include "server/snapshot.h"

#include <gtest/gtest.h>

#include "server_test_util.h"

namespace steward::server {
namespace {

using testing::MakeLive;
using testing::TwoNodeYaml;

TEST(SnapshotTest, CountsPartitionTheGpus) {
  LiveTwinOptions opt;
  opt.price_per_gpu_hour = [](const std::string& model) { return model == "H100" ? 2.0 : 0.0; };
  auto live = MakeLive(TwoNodeYaml(), opt);
  live->Step(Hours(1));
  auto s = live->snapshot();
  const Overview& o = s->overview;
  EXPECT_DOUBLE_EQ(o.sim_seconds, 3600);
  EXPECT_EQ(o.gpus_total, 16);
  EXPECT_EQ(o.gpus_in_use, 8);
  EXPECT_EQ(o.gpus_idle, 8);
  EXPECT_EQ(o.gpus_faulty, 0);
  EXPECT_EQ(o.gpus_cordoned, 0);
  EXPECT_EQ(o.workloads_running, 1);
  EXPECT_EQ(o.workloads_pending, 0);
  EXPECT_EQ(o.workloads_submitted, 1);
  // 8 of 16 GPUs allocated; busy 0.8 and SM-active 0.5 on each of them.
  EXPECT_DOUBLE_EQ(o.allocation_rate, 0.5);
  EXPECT_DOUBLE_EQ(o.busy_utilization, 8 * 0.8 / 16);
  EXPECT_DOUBLE_EQ(o.sm_active_utilization, 8 * 0.5 / 16);
  // Over the first hour: allocated all of it, SM-active after the 90 s startup.
  EXPECT_NEAR(o.allocation_rate_cumulative, 8.0 / 16, 1e-9);
  EXPECT_NEAR(o.sm_active_utilization_cumulative, 8 * 0.5 * (1 - 90.0 / 3600) / 16, 1e-9);
  ASSERT_EQ(s->nodes.size(), 2u);
  EXPECT_EQ(s->nodes[0].gpus, "uuuuuuuu");
  EXPECT_EQ(s->nodes[1].gpus, "iiiiiiii");
  EXPECT_DOUBLE_EQ(s->nodes[0].sm_active, 4.0);
  ASSERT_EQ(s->nodes[0].workloads.size(), 1u);
  ASSERT_EQ(s->queues.size(), 2u);
  EXPECT_EQ(s->queues[0].team, "a");
  EXPECT_EQ(s->queues[0].used_gpus, 8);
  EXPECT_EQ(s->queues[0].running, 1);
  EXPECT_NEAR(s->queues[0].allocated_gpu_hours, 8.0, 1e-9);
  EXPECT_NEAR(s->queues[0].sm_active_gpu_hours, 8 * 0.5 * (1 - 90.0 / 3600), 1e-9);
  EXPECT_NEAR(s->queues[0].cost, 16.0, 1e-9);  // 8 GPU-hours at 2.0.
  EXPECT_EQ(s->currency, "USD");
  EXPECT_TRUE(s->incidents.empty());
  ASSERT_TRUE(s->series);
  EXPECT_EQ(s->series->size(), 2u);  // t = 0 and t = 1 h.
}

TEST(SnapshotTest, CordonAndPendingReasons) {
  auto live = MakeLive(TwoNodeYaml());
  live->Step(Minutes(10));
  ASSERT_TRUE(live->Control([](twin::Twin& t) { return t.SetNodeCordoned(1, true); }).ok());
  auto s = live->snapshot();
  EXPECT_EQ(s->overview.gpus_cordoned, 8);
  EXPECT_EQ(s->overview.gpus_idle, 0);
  EXPECT_EQ(s->overview.nodes_cordoned, 1);
  EXPECT_EQ(s->nodes[1].gpus, "cccccccc");
  EXPECT_TRUE(s->nodes[1].cordoned);
  EXPECT_FALSE(s->nodes[1].schedulable);
  // A job that no schedulable node can hold (it would fit on the cordoned one) waits for
  // unhealthy capacity; one of team b for quota.
  model::Workload w;
  w.pod_sets = {{"worker", 1, 4}};
  w.duration = Hours(1);
  ASSERT_TRUE(live->Control([&](twin::Twin& t) { return t.Submit(w).status(); }).ok());
  w.team = 1;
  ASSERT_TRUE(live->Control([&](twin::Twin& t) { return t.Submit(w).status(); }).ok());
  live->Step(Minutes(1));
  s = live->snapshot();
  EXPECT_EQ(s->overview.workloads_pending, 2);
  EXPECT_EQ(s->overview.pending_by_reason.at("unhealthy_capacity"), 1);
  EXPECT_EQ(s->overview.pending_by_reason.at("quota_exhausted"), 1);
  EXPECT_EQ(s->queues[0].pending_by_reason.at("unhealthy_capacity"), 1);
  EXPECT_EQ(s->queues[1].pending_by_reason.at("quota_exhausted"), 1);
  EXPECT_EQ(s->queues[1].pending_gpus, 4);
  EXPECT_NEAR(s->workloads.back().pending_seconds, 60, 1e-6);
  EXPECT_EQ(s->workloads.back().state, "pending");
}

TEST(SnapshotTest, SeriesIsThinnedWhenFull) {
  LiveTwinOptions opt;
  opt.max_series_points = 8;
  opt.series_interval_seconds = 60;
  auto live = MakeLive(TwoNodeYaml(), opt);
  for (int i = 0; i < 20; ++i) live->Step(Minutes(1));
  auto s = live->snapshot();
  ASSERT_TRUE(s->series);
  EXPECT_LE(s->series->size(), 8u);
  EXPECT_DOUBLE_EQ(s->series->front().hours, 0);
  EXPECT_NEAR(s->series->back().hours, 20.0 / 60, 1e-9);  // The latest point is kept.
}

}  // namespace
}  // namespace steward::server

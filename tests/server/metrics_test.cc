#include "server/metrics.h"

#include <gtest/gtest.h>

#include <map>
#include <thread>
#include <vector>

#include "health/stack_health.h"
#include "server/api.h"
#include "server_test_util.h"
#include "telemetry/dcgm_writer.h"
#include "telemetry/exposition.h"

namespace steward::server {
namespace {

using testing::MakeLive;
using testing::TwoNodeYaml;

// Value of the sample `name` whose labels are exactly `labels`; NaN if absent.
double Value(const telemetry::Scrape& s, std::string_view name,
             const std::map<std::string, std::string>& labels = {}) {
  for (const auto& sample : s.samples) {
    if (sample.name != name || sample.label_count != labels.size()) continue;
    bool match = true;
    for (const auto& [k, v] : labels) match = match && s.LabelValue(sample, k, "\x01") == v;
    if (match) return sample.value;
  }
  return std::nan("");
}

TEST(MetricsTest, ParsesCleanlyWithTheProjectsParser) {
  LiveTwinOptions opt;
  opt.price_per_gpu_hour = [](const std::string&) { return 2.0; };
  auto live = MakeLive(TwoNodeYaml(), opt);
  live->Step(Hours(1));
  const std::string text = RenderMetrics(*live->snapshot());
  telemetry::ParseOptions po;
  po.dialect = telemetry::Dialect::kPrometheusText;
  const telemetry::Scrape s = telemetry::ParseExposition(text, po);
  for (const auto& e : s.errors) ADD_FAILURE() << e.ToString();
  EXPECT_TRUE(s.ok());
  for (const auto& f : s.families) {
    EXPECT_TRUE(f.name.starts_with("steward_")) << f.name;
    EXPECT_NE(f.type, telemetry::MetricType::kUntyped) << f.name;
    EXPECT_FALSE(f.help.empty()) << f.name;
  }
  EXPECT_EQ(Value(s, "steward_gpus", {{"state", "in_use"}}), 8);
  EXPECT_EQ(Value(s, "steward_gpus", {{"state", "idle"}}), 8);
  EXPECT_EQ(Value(s, "steward_gpus", {{"state", "faulty"}}), 0);
  EXPECT_EQ(Value(s, "steward_gpus", {{"state", "cordoned"}}), 0);
  EXPECT_EQ(Value(s, "steward_gpus_total"), 16);
  EXPECT_EQ(Value(s, "steward_allocation_ratio"), 0.5);
  EXPECT_EQ(Value(s, "steward_sm_active_ratio"), 0.25);
  EXPECT_EQ(Value(s, "steward_workloads", {{"state", "running"}}), 1);
  EXPECT_EQ(Value(s, "steward_pending_workloads", {{"reason", "quota_exhausted"}}), 0);
  EXPECT_EQ(Value(s, "steward_queue_quota_gpus", {{"team", "a"}}), 16);
  EXPECT_EQ(Value(s, "steward_queue_used_gpus", {{"team", "a"}}), 8);
  EXPECT_NEAR(Value(s, "steward_team_gpu_hours_total", {{"team", "a"}, {"kind", "allocated"}}), 8,
              1e-9);
  EXPECT_NEAR(Value(s, "steward_team_cost_total", {{"team", "a"}, {"currency", "USD"}}), 16, 1e-9);
  EXPECT_EQ(Value(s, "steward_sim_time_seconds"), 3600);
}

TEST(MetricsTest, PendingByTeamAndReasonAndEscapedLabels) {
  auto live = MakeLive(twin::testing::SmallScenarioYaml(1, "a\\\"x:0", ""));
  model::Workload w;
  w.pod_sets = {{"worker", 1, 2}};
  w.duration = Hours(1);
  ASSERT_TRUE(live->Control([&](twin::Twin& t) { return t.Submit(w).status(); }).ok());
  live->Step(Minutes(1));
  const std::string text = RenderMetrics(*live->snapshot());
  const telemetry::Scrape s = telemetry::ParseExposition(text);
  EXPECT_TRUE(s.ok()) << (s.errors.empty() ? "" : s.errors[0].ToString());
  const std::string team = live->snapshot()->queues[0].team;
  EXPECT_EQ(
      Value(s, "steward_queue_pending_workloads", {{"team", team}, {"reason", "quota_exhausted"}}),
      1);
  EXPECT_EQ(Value(s, "steward_queue_pending_gpus", {{"team", team}}), 2);
  // No cost model: no cost series.
  EXPECT_TRUE(
      std::isnan(Value(s, "steward_team_cost_total", {{"team", team}, {"currency", "USD"}})));
}

TEST(MetricsTest, KueueSchedulerMetricsUnderTheKueueAdmitter) {
  auto live = testing::MakeKueueLive();
  live->Step(Minutes(10));
  const telemetry::Scrape s = telemetry::ParseExposition(RenderMetrics(*live->snapshot()));
  EXPECT_TRUE(s.ok()) << (s.errors.empty() ? "" : s.errors[0].ToString());
  const std::map<std::string, std::string> a = {{"cluster_queue", "team-a"}};
  const std::map<std::string, std::string> a_gpu = {{"cohort", "org"},
                                                    {"cluster_queue", "team-a"},
                                                    {"flavor", "h100"},
                                                    {"resource", "nvidia.com/gpu"}};
  EXPECT_EQ(Value(s, "steward_kueue_pending_workloads",
                  {{"cluster_queue", "team-a"}, {"status", "active"}}),
            0);
  EXPECT_EQ(Value(s, "steward_kueue_reserving_active_workloads", a), 2);
  EXPECT_EQ(Value(s, "steward_kueue_admitted_workloads_total", a), 2);
  EXPECT_EQ(Value(s, "steward_kueue_cluster_queue_nominal_quota", a_gpu), 8);
  EXPECT_EQ(Value(s, "steward_kueue_cluster_queue_resource_usage", a_gpu), 16);
  EXPECT_EQ(Value(s, "steward_kueue_cluster_queue_borrowed", a_gpu), 8);
  EXPECT_TRUE(std::isnan(Value(s, "steward_kueue_cluster_queue_borrowing_limit", a_gpu)));
  // Both admitted with no wait: the histogram's first bucket (le 1) holds both.
  EXPECT_EQ(Value(s, "steward_kueue_admission_wait_time_seconds_bucket",
                  {{"cluster_queue", "team-a"}, {"le", "1"}}),
            2);
  EXPECT_EQ(Value(s, "steward_kueue_admission_wait_time_seconds_bucket",
                  {{"cluster_queue", "team-a"}, {"le", "+Inf"}}),
            2);
  EXPECT_EQ(Value(s, "steward_kueue_admission_wait_time_seconds_count", a), 2);
  EXPECT_EQ(Value(s, "steward_kueue_cluster_queue_weighted_share", a), 500);
  // The fifo-quota twin has no ClusterQueues and no steward_kueue_ series.
  auto fifo = MakeLive(TwoNodeYaml());
  EXPECT_EQ(RenderMetrics(*fifo->snapshot()).find("steward_kueue_"), std::string::npos);
}

}  // namespace
}  // namespace steward::server

namespace steward::server {
namespace {

TEST(MetricsTest, RemediationSeriesFollowAnInjectedFault) {
  auto live = testing::MakeLive(testing::FourNodeYaml(), {}, /*remediation=*/true);
  live->Step(Hours(1));
  ASSERT_TRUE(live->Control([](twin::Twin& t) { return t.InjectXid(1, 0, 48); }).ok());
  telemetry::ParseOptions po;
  po.dialect = telemetry::Dialect::kPrometheusText;
  const telemetry::Scrape s = telemetry::ParseExposition(RenderMetrics(*live->snapshot()), po);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(Value(s, "steward_gpus", {{"state", "faulty"}}), 1);
  EXPECT_EQ(Value(s, "steward_gpus", {{"state", "cordoned"}}), 7);
  EXPECT_EQ(Value(s, "steward_incidents_open"), 1);
  EXPECT_EQ(Value(s, "steward_remediation_nodes", {{"state", "in-repair"}}), 1);
  EXPECT_EQ(Value(s, "steward_remediation_nodes", {{"state", "suspect"}}), 0);
  EXPECT_EQ(Value(s, "steward_remediation_tickets_total"), 0);
}

// The dcgm page (54 MB at 10,240 GPUs) is rendered once per exporter refresh, however many
// scrapers ask at once, and shared by the snapshots until the next refresh.
TEST(MetricsTest, DcgmPageIsRenderedOncePerRefreshForConcurrentScrapers) {
  auto live = MakeLive(TwoNodeYaml());  // dcgm_interval_seconds: 30 by default.
  live->Step(Hours(1));
  HttpRequest r;
  r.method = "GET";
  r.path = "/metrics/dcgm";
  std::vector<HttpReply> replies(8);
  std::vector<std::thread> scrapers;
  for (size_t i = 0; i < replies.size(); ++i)
    scrapers.emplace_back([&, i] { replies[i] = HandleRequest(*live, r); });
  for (auto& t : scrapers) t.join();
  for (const HttpReply& reply : replies) {
    ASSERT_EQ(reply.status, 200);
    EXPECT_EQ(reply.shared_body.get(), replies[0].shared_body.get());
  }
  ASSERT_TRUE(replies[0].shared_body);
  EXPECT_EQ(*replies[0].shared_body,
            telemetry::RenderDcgmExposition(*live->snapshot()->dcgm_records, *live->dcgm_writer()));
  live->Step(Seconds(20));  // No refresh yet: a newer snapshot, the same page.
  EXPECT_EQ(HandleRequest(*live, r).shared_body.get(), replies[0].shared_body.get());
  live->Step(Seconds(10));  // Refreshed: a new page.
  EXPECT_NE(HandleRequest(*live, r).shared_body.get(), replies[0].shared_body.get());
}

// Above LiveTwinOptions::dcgm_shared_page_max_gpus the page is not held: each scrape streams
// the same bytes in bounded pieces, and stops writing as soon as the client has gone.
TEST(MetricsTest, DcgmPageOfALargeClusterIsStreamedInBoundedPieces) {
  LiveTwinOptions options;
  options.dcgm_shared_page_max_gpus = 8;  // The scenario's 16 GPUs are "large".
  auto live = MakeLive(TwoNodeYaml(), options);
  live->Step(Hours(1));
  HttpRequest r;
  r.method = "GET";
  r.path = "/metrics/dcgm";
  const HttpReply reply = HandleRequest(*live, r);
  ASSERT_EQ(reply.status, 200);
  EXPECT_FALSE(reply.shared_body);
  ASSERT_TRUE(reply.stream);
  const std::string whole =
      telemetry::RenderDcgmExposition(*live->snapshot()->dcgm_records, *live->dcgm_writer());
  live->Step(Hours(1));  // A newer refresh: the stream keeps the records it was answered with.
  std::string streamed;
  int pieces = 0;
  reply.stream([&](std::string_view piece) {
    streamed.append(piece);
    ++pieces;
    return true;
  });
  EXPECT_EQ(streamed, whole);
  EXPECT_GE(pieces, 1);
  // Pieces are bounded: at most 256 KB plus one GPU's lines. The page of 16 GPUs is far below,
  // so the writer is checked directly with a small piece size.
  std::vector<size_t> sizes;
  std::string again;
  EXPECT_TRUE(telemetry::StreamDcgmExposition(*live->snapshot()->dcgm_records, *live->dcgm_writer(),
                                              1000, [&](std::string_view piece) {
                                                sizes.push_back(piece.size());
                                                again.append(piece);
                                                return true;
                                              }));
  EXPECT_EQ(again,
            telemetry::RenderDcgmExposition(*live->snapshot()->dcgm_records, *live->dcgm_writer()));
  ASSERT_GT(sizes.size(), 10u);
  for (size_t s : sizes) EXPECT_LT(s, 1000u + 4096u);
  // A client that goes away after the first piece gets no second one.
  int written = 0;
  EXPECT_FALSE(telemetry::StreamDcgmExposition(*live->snapshot()->dcgm_records,
                                               *live->dcgm_writer(), 1000, [&](std::string_view) {
                                                 ++written;
                                                 return false;
                                               }));
  EXPECT_EQ(written, 1);
}

// GET /metrics/dcgm: the twin's dcgm-exporter page, one record per GPU, refreshed at the
// exporter's cadence in simulated time.
TEST(MetricsTest, DcgmPageCarriesEveryGpuAtTheExportersCadence) {
  auto live = MakeLive(TwoNodeYaml());  // dcgm_interval_seconds: 30 by default.
  live->Step(Hours(1));
  HttpRequest r;
  r.method = "GET";
  r.path = "/metrics/dcgm";
  const HttpReply reply = HandleRequest(*live, r);
  ASSERT_EQ(reply.status, 200) << reply.body;
  telemetry::ParseOptions po;
  po.dialect = telemetry::Dialect::kPrometheusText;
  const telemetry::Scrape s = telemetry::ParseExposition(reply.Body(), po);
  for (const auto& e : s.errors) ADD_FAILURE() << e.ToString();
  int gpus = 0;
  double util = 0, sm = 0;
  for (const auto& sample : s.samples) {
    if (sample.name == "DCGM_FI_DEV_GPU_UTIL") ++gpus, util += sample.value;
    if (sample.name == "DCGM_FI_PROF_SM_ACTIVE") sm += sample.value;
  }
  EXPECT_EQ(gpus, 16);
  // The one job: 8 GPUs at busy 0.8 and SM-active 0.5; the other 8 are free.
  EXPECT_NEAR(util, 8 * 80, 1e-9);
  EXPECT_NEAR(sm, 8 * 0.5, 1e-6);
  EXPECT_DOUBLE_EQ(live->snapshot()->dcgm_sim_hours, 1);
  live->Step(Seconds(20));  // Less than 30 s: the same records.
  EXPECT_DOUBLE_EQ(live->snapshot()->dcgm_sim_hours, 1);
  live->Step(Seconds(10));
  EXPECT_DOUBLE_EQ(live->snapshot()->dcgm_sim_hours, 1 + 30.0 / 3600);
  live->Step(Hours(2));                             // The job has finished: nothing is busy.
  const HttpReply later = HandleRequest(*live, r);  // The scrape points into its body.
  const telemetry::Scrape after = telemetry::ParseExposition(later.Body(), po);
  double util_after = 0;
  for (const auto& sample : after.samples)
    if (sample.name == "DCGM_FI_DEV_GPU_UTIL") util_after += sample.value;
  EXPECT_EQ(util_after, 0);

  LiveTwinOptions off;
  off.dcgm_interval_seconds = 0;
  auto quiet = MakeLive(TwoNodeYaml(), off);
  EXPECT_EQ(HandleRequest(*quiet, r).status, 404);
}

}  // namespace
}  // namespace steward::server

namespace steward::server {
namespace {

// Holder waste comes from the twin's rates: 8 GPUs requested, a quarter driven, so 6 are
// over-requested; the idle node's GPUs are free with nothing waiting (no cluster waste).
TEST(MetricsTest, WasteByCauseFromTheTwinsRates) {
  auto live = testing::MakeLive(twin::testing::SmallScenarioYaml(
      2, "a:16",
      "generators:\n"
      "  - {name: job, team: a, kind: batch, arrival: {process: once, count: 1}, gpus_per_pod: 8,"
      " duration_hours: 2, usage: {used_gpu_fraction: 0.25, busy: 0.8, sm_active: 0.5}}\n"));
  live->Step(Hours(1));
  const telemetry::Scrape s = telemetry::ParseExposition(RenderMetrics(*live->snapshot()));
  EXPECT_TRUE(s.ok()) << (s.errors.empty() ? "" : s.errors[0].ToString());
  EXPECT_DOUBLE_EQ(Value(s, "steward_waste_gpus", {{"team", "a"}, {"cause", "over_request"}}), 6);
  EXPECT_EQ(Value(s, "steward_waste_gpus", {{"team", "a"}, {"cause", "zombie"}}), 0);
  EXPECT_EQ(Value(s, "steward_waste_gpus", {{"team", "a"}, {"cause", "startup"}}), 0);
  EXPECT_EQ(Value(s, "steward_waste_gpus", {{"team", "a"}, {"cause", "dataloader_stall"}}), 0);
  EXPECT_EQ(Value(s, "steward_waste_gpus", {{"cause", "fragmentation"}}), 0);
  EXPECT_EQ(Value(s, "steward_waste_gpus", {{"cause", "queueing"}}), 0);
  // The fifo-quota admitter has no ClusterQueues: the info series names none.
  EXPECT_EQ(Value(s, "steward_queue_info", {{"team", "a"}, {"cluster_queue", ""}}), 1);
  EXPECT_EQ(Value(s, "steward_tenant_share_threshold"), 0.5);  // The scenario default.
  // One info series per node, named as dcgm-exporter's Hostname.
  for (const NodeView& n : live->snapshot()->nodes)
    EXPECT_EQ(Value(s, "steward_node_info",
                    {{"node", n.name}, {"pool", "p"}, {"rack", "rack-0"}, {"gpu_model", "H100"}}),
              1)
        << n.name;
}

// A job waiting for quota while all 8 GPUs are free: its 2 GPUs are queueing waste; the team
// holds nothing, so no holder waste.
TEST(MetricsTest, QueueingWasteIsFreeGpusUpToWhatQuotaBlockedWorkWants) {
  auto live = MakeLive(twin::testing::SmallScenarioYaml(1, "a:0", ""));
  model::Workload w;
  w.pod_sets = {{"worker", 1, 2}};
  w.duration = Hours(1);
  ASSERT_TRUE(live->Control([&](twin::Twin& t) { return t.Submit(w).status(); }).ok());
  live->Step(Minutes(1));
  const telemetry::Scrape s = telemetry::ParseExposition(RenderMetrics(*live->snapshot()));
  EXPECT_EQ(Value(s, "steward_pending_workloads", {{"reason", "quota_exhausted"}}), 1);
  EXPECT_EQ(Value(s, "steward_waste_gpus", {{"cause", "queueing"}}), 2);
  EXPECT_EQ(Value(s, "steward_waste_gpus", {{"cause", "fragmentation"}}), 0);
  EXPECT_EQ(Value(s, "steward_waste_gpus", {{"team", "a"}, {"cause", "over_request"}}), 0);
}

// Under Kueue, steward_queue_info joins each team to its ClusterQueue.
TEST(MetricsTest, QueueInfoNamesTheClusterQueue) {
  auto live = testing::MakeKueueLive();
  live->Step(Minutes(10));
  const telemetry::Scrape s = telemetry::ParseExposition(RenderMetrics(*live->snapshot()));
  EXPECT_EQ(Value(s, "steward_queue_info", {{"team", "team-a"}, {"cluster_queue", "team-a"}}), 1);
  EXPECT_EQ(Value(s, "steward_queue_info", {{"team", "team-b"}, {"cluster_queue", "team-b"}}), 1);
}

// A broken GPU lowers its node's allocatable: the stack checks find it at their next run (a
// simulated minute later), every check has a count, and the finding names its node.
TEST(MetricsTest, StackFindingsFollowTheTwinsNodes) {
  auto live = MakeLive(TwoNodeYaml());
  live->Step(Hours(1));
  telemetry::Scrape s = telemetry::ParseExposition(RenderMetrics(*live->snapshot()));
  for (const health::StackCheck& c : health::StackChecks())
    EXPECT_EQ(Value(s, "steward_stack_findings", {{"check", std::string(c.name)}}), 0) << c.name;
  ASSERT_TRUE(live->Control([](twin::Twin& t) { return t.InjectXid(1, 0, 48); }).ok());
  live->Step(Minutes(2));
  const std::string node = live->snapshot()->nodes[1].name;
  s = telemetry::ParseExposition(RenderMetrics(*live->snapshot()));
  EXPECT_TRUE(s.ok()) << (s.errors.empty() ? "" : s.errors[0].ToString());
  EXPECT_EQ(Value(s, "steward_stack_findings", {{"check", "gpus-unallocatable"}}), 1);
  EXPECT_EQ(Value(s, "steward_stack_findings", {{"check", "device-plugin-down"}}), 0);
  EXPECT_EQ(Value(s, "steward_stack_finding",
                  {{"node", node}, {"check", "gpus-unallocatable"}, {"severity", "warning"}}),
            1);

  LiveTwinOptions off;
  off.stack_health_interval_seconds = 0;
  auto quiet = MakeLive(TwoNodeYaml(), off);
  EXPECT_EQ(RenderMetrics(*quiet->snapshot()).find("steward_stack_findings"), std::string::npos);
}

}  // namespace
}  // namespace steward::server

// operate::HealthEndpoint: probes and metrics of `steward operate --health-port`.
#include "operate/health_endpoint.h"

#include <gtest/gtest.h>

#include <string>

namespace steward::operate {
namespace {

using std::chrono::seconds;

http::Request Get(std::string path) {
  http::Request r;
  r.path = std::move(path);
  return r;
}

// The value of an unlabelled or labelled sample line "NAME VALUE" in Prometheus text.
std::string Sample(const std::string& text, const std::string& name) {
  const std::string prefix = "\n" + name + " ";
  const size_t at = ("\n" + text).find(prefix);
  if (at == std::string::npos) return "absent";
  const size_t begin = at + prefix.size() - 1;
  return text.substr(begin, text.find('\n', begin) - begin);
}

Operator::Stats Passes(int64_t passes, int64_t xids = 0, int64_t errors = 0) {
  Operator::Stats s;
  s.passes = passes;
  s.xids = xids;
  s.errors = errors;
  return s;
}

struct FakeClock {
  std::chrono::steady_clock::time_point t{};
  std::function<std::chrono::steady_clock::time_point()> Fn() {
    return [this] { return t; };
  }
};

TEST(HealthEndpoint, ReadyOnlyOnceTheCacheHasSynced) {
  HealthEndpoint h({});
  EXPECT_EQ(h.Handle(Get("/readyz")).status, 503);
  EXPECT_EQ(h.Handle(Get("/healthz")).status, 200);  // Syncing is alive.
  h.SetReady();
  EXPECT_EQ(h.Handle(Get("/readyz")).status, 200);
  EXPECT_EQ(Sample(h.Handle(Get("/metrics")).body, "steward_operate_ready"), "1");
}

TEST(HealthEndpoint, LivenessFailsWhenPassesStopFinishing) {
  FakeClock clock;
  HealthEndpointOptions o;
  o.stall_after = seconds(90);
  o.now = clock.Fn();
  HealthEndpoint h(o);
  clock.t += seconds(1000);  // Before SetReady, however long the sync takes: alive.
  EXPECT_EQ(h.Handle(Get("/healthz")).status, 200);
  h.SetReady();
  clock.t += seconds(60);
  EXPECT_EQ(h.Handle(Get("/healthz")).status, 200);
  h.RecordPass(Passes(1), true);
  clock.t += seconds(89);
  EXPECT_EQ(h.Handle(Get("/healthz")).status, 200);
  clock.t += seconds(2);
  EXPECT_EQ(h.Handle(Get("/healthz")).status, 503);
  h.RecordPass(Passes(2), true);
  EXPECT_EQ(h.Handle(Get("/healthz")).status, 200);
}

TEST(HealthEndpoint, MetricsCountPassesActionsByModeAndLeadership) {
  HealthEndpoint h({});
  auto forwarded = std::make_shared<int>(0);
  auto record = h.Counting([forwarded](const store::AuditRow&) { ++*forwarded; });
  for (const char* mode : {"planned", "planned", "applied", "failed", "server-dry-run"}) {
    store::AuditRow row;
    row.mode = mode;
    row.action = "cordon";
    record(row);
  }
  h.RecordPass(Passes(3, 1, 2), true);
  h.RecordPass(Passes(4, 1, 2), false);
  bool leader = false;
  h.SetLeaderCheck([&leader] { return leader; });
  http::Reply m = h.Handle(Get("/metrics"));
  EXPECT_EQ(m.status, 200);
  EXPECT_NE(m.content_type.find("text/plain; version=0.0.4"), std::string::npos);
  EXPECT_EQ(*forwarded, 5);
  EXPECT_EQ(Sample(m.body, "steward_operate_actions_total{mode=\"planned\"}"), "2");
  EXPECT_EQ(Sample(m.body, "steward_operate_actions_total{mode=\"applied\"}"), "1");
  EXPECT_EQ(Sample(m.body, "steward_operate_actions_total{mode=\"failed\"}"), "1");
  EXPECT_EQ(Sample(m.body, "steward_operate_actions_total{mode=\"server-dry-run\"}"), "1");
  EXPECT_EQ(Sample(m.body, "steward_operate_passes_total"), "4");
  EXPECT_EQ(Sample(m.body, "steward_operate_pass_failures_total"), "1");
  EXPECT_EQ(Sample(m.body, "steward_operate_errors_total"), "2");
  EXPECT_EQ(Sample(m.body, "steward_operate_is_leader"), "0");
  leader = true;
  EXPECT_EQ(Sample(h.Handle(Get("/metrics")).body, "steward_operate_is_leader"), "1");
}

// Tidal lending's figures appear only when it is configured; the lent GPUs from its first step
// (a hold from the start is visible, an unknown loan is not shown as 0).
TEST(HealthEndpoint, TidalFiguresOnlyWhenConfigured) {
  HealthEndpoint h({});
  h.RecordPass(Passes(1), true);
  EXPECT_EQ(Sample(h.Handle(Get("/metrics")).body, "steward_operate_tidal_holds_total"), "absent");
  Operator::Stats s = Passes(2);
  s.tidal = true;
  s.tidal_holds = 2;
  h.RecordPass(s, false);
  std::string m = h.Handle(Get("/metrics")).body;
  EXPECT_EQ(Sample(m, "steward_operate_tidal_holds_total"), "2");
  EXPECT_EQ(Sample(m, "steward_operate_tidal_steps_total"), "0");
  EXPECT_EQ(Sample(m, "steward_operate_tidal_lent_gpus"), "absent");
  s.tidal_steps = 1;
  s.tidal_lent_gpus = 16;
  h.RecordPass(s, true);
  m = h.Handle(Get("/metrics")).body;
  EXPECT_EQ(Sample(m, "steward_operate_tidal_steps_total"), "1");
  EXPECT_EQ(Sample(m, "steward_operate_tidal_lent_gpus"), "16");
}

// The stack findings of the latest pass, in the shape the StewardGPUStackFinding rule reads;
// absent until the operator has checked once, and replaced (not accumulated) by each pass.
TEST(HealthEndpoint, MetricsCarryTheLatestStackFindings) {
  HealthEndpoint h({});
  EXPECT_EQ(Sample(h.Handle(Get("/metrics")).body,
                   "steward_stack_findings{check=\"device-plugin-down\"}"),
            "absent");
  h.SetStackFindings({{"gpu-7", "device-plugin-down", "critical", "no GPUs", "restart it"},
                      {"gpu-8", "device-plugin-down", "critical", "no GPUs", "restart it"}});
  std::string body = h.Handle(Get("/metrics")).body;
  EXPECT_EQ(Sample(body, "steward_stack_findings{check=\"device-plugin-down\"}"), "2");
  EXPECT_EQ(Sample(body, "steward_stack_findings{check=\"driver-version-drift\"}"), "0");
  EXPECT_EQ(Sample(body,
                   "steward_stack_finding{node=\"gpu-7\",check=\"device-plugin-down\","
                   "severity=\"critical\"}"),
            "1");
  h.SetStackFindings({});
  body = h.Handle(Get("/metrics")).body;
  EXPECT_EQ(Sample(body, "steward_stack_findings{check=\"device-plugin-down\"}"), "0");
  EXPECT_EQ(body.find("steward_stack_finding{"), std::string::npos);
}

TEST(HealthEndpoint, WithoutLeaderElectionThisReplicaLeads) {
  HealthEndpoint h({});
  EXPECT_EQ(Sample(h.Handle(Get("/metrics")).body, "steward_operate_is_leader"), "1");
}

TEST(HealthEndpoint, RefusesWritesAndUnknownPaths) {
  HealthEndpoint h({});
  http::Request post = Get("/metrics");
  post.method = "POST";
  EXPECT_EQ(h.Handle(post).status, 405);
  EXPECT_EQ(h.Handle(Get("/")).status, 404);
}

}  // namespace
}  // namespace steward::operate

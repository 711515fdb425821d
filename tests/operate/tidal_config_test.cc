// `steward operate --tidal FILE`: the scenario's tidal section through the twin's parser, the
// static split and the services; every mistake names file, line and field.
#include "operate/tidal_config.h"

#include <gtest/gtest.h>

#include <string>

namespace steward::operate {
namespace {

const char* kConfig = R"(tidal:
  lend_from: serving
  lend_to: training
  reserve: 16
  forecast: {days: 2, bucket_minutes: 30}
  lead_time: {save_seconds: 60}
  period_minutes: 2
static_split: {lend_from_gpus: 96, lend_to_gpus: 32}
services:
  - name: serving/chat
    query: sum(rate(http_requests_total{service="chat"}[1m]))
    capacity_per_replica: 20
    gpus_per_replica: 2
    min_replicas: 2
    max_replicas: 24
    autoscaler: {target_utilization: 0.5, scale_up_pods: 2}
)";

TEST(TidalConfigTest, ReadsTheScenarioSectionTheSplitAndTheServices) {
  Result<LiveTidalConfig> c = ParseTidalConfig(kConfig, "t.yaml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const tidal::TidalOptions& o = c->options;
  EXPECT_TRUE(c->enabled);
  EXPECT_EQ(o.lend_from, "serving");
  EXPECT_EQ(o.lend_to, "training");
  EXPECT_EQ(o.borrower_namespace, "training");
  EXPECT_EQ(o.reserve_gpus, 16);
  EXPECT_EQ(o.forecast.days, 2);
  EXPECT_EQ(o.forecast.bucket, Minutes(30));
  EXPECT_EQ(o.save, Seconds(60));
  EXPECT_EQ(o.restart, Seconds(90));  // A live default: no scenario startup to take it from.
  EXPECT_EQ(o.period, Minutes(2));
  EXPECT_EQ(o.serving_quota, 96);
  EXPECT_EQ(o.borrower_quota, 32);
  EXPECT_TRUE(c->prime_from_history);
  EXPECT_EQ(c->reclaim_after_hold, SimDuration());  // A hold keeps the loan by default.
  ASSERT_EQ(c->services.size(), 1u);
  const LiveService& s = c->services[0];
  EXPECT_EQ(s.name, "serving/chat");
  EXPECT_EQ(s.query, R"(sum(rate(http_requests_total{service="chat"}[1m])))");
  EXPECT_EQ(s.gpus_per_replica, 2);
  EXPECT_EQ(s.max_replicas, 24);
  EXPECT_DOUBLE_EQ(s.autoscaler.target_utilization, 0.5);
  EXPECT_EQ(s.autoscaler.scale_up_pods, 2);
  EXPECT_EQ(s.line, 10);
}

// The lendingLimit form on a live cluster: the same key as a scenario's; nominal by default.
TEST(TidalConfigTest, ReadsHowTheLoanIsMade) {
  Result<LiveTidalConfig> c = ParseTidalConfig(kConfig, "t.yaml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->options.lend_by, tidal::LendBy::kNominal);
  std::string text = kConfig;
  const std::string reserve = "  reserve: 16";
  text.replace(text.find(reserve), reserve.size(), "  lend_by: lending-limit");
  c = ParseTidalConfig(text, "t.yaml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->options.lend_by, tidal::LendBy::kLendingLimit);
  text.replace(text.find("lending-limit"), 13, "quota");
  c = ParseTidalConfig(text, "t.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("t.yaml:4:12: tidal.lend_by: must be 'nominal' or "
                                      "'lending-limit'"),
            std::string::npos)
      << c.status().message();
}

TEST(TidalConfigTest, TheExampleReads) {
  Result<LiveTidalConfig> c = LoadTidalConfig(STEWARD_SOURCE_DIR "/examples/tidal/operate.yaml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->services.size(), 2u);
  EXPECT_EQ(c->options.reserve_gpus, -1);  // hpa-step.
}

// Replaces the first `from` in kConfig by `to` and returns the parse error.
std::string ErrorOf(const std::string& from, const std::string& to) {
  std::string text = kConfig;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  Result<LiveTidalConfig> c = ParseTidalConfig(text, "t.yaml");
  EXPECT_FALSE(c.ok()) << text;
  return c.ok() ? "" : c.status().message();
}

// The hold's fail-safe: minutes without a demand reading before the loan is taken back.
TEST(TidalConfigTest, ReadsTheHoldsFailSafe) {
  Result<LiveTidalConfig> c =
      ParseTidalConfig(std::string(kConfig) + "reclaim_after_hold_minutes: 2.5\n", "t.yaml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->reclaim_after_hold, Seconds(150));
  Result<LiveTidalConfig> bad =
      ParseTidalConfig(std::string(kConfig) + "reclaim_after_hold_minutes: -1\n", "t.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("t.yaml:17:29: reclaim_after_hold_minutes: must lie in"),
            std::string::npos)
      << bad.status().message();
}

TEST(TidalConfigTest, MistakesNameFileLineAndField) {
  // The twin's own checks, through the shared parser.
  EXPECT_EQ(ErrorOf("reserve: 16", "reserve: lots"),
            "t.yaml:4:12: tidal.reserve: must be 'hpa-step' or a whole number of GPUs >= 0");
  EXPECT_NE(
      ErrorOf("period_minutes: 2", "period: 2").find("t.yaml:7:3: tidal.period: unknown field"),
      std::string::npos);
  EXPECT_NE(
      ErrorOf("scale_up_pods: 2", "scale_up_pod: 2").find("services[0].autoscaler.scale_up_pod"),
      std::string::npos);
  // What only a live configuration asks.
  EXPECT_NE(ErrorOf("  lend_from: serving\n", "").find("tidal.lend_from: is required"),
            std::string::npos);
  EXPECT_NE(ErrorOf("static_split: {lend_from_gpus: 96, lend_to_gpus: 32}\n", "")
                .find("static_split: is required"),
            std::string::npos);
  EXPECT_NE(ErrorOf("name: serving/chat", "name: chat")
                .find("t.yaml:10:11: services[0].name: must be NAMESPACE/NAME"),
            std::string::npos);
  EXPECT_NE(ErrorOf("    query: sum(rate(http_requests_total{service=\"chat\"}[1m]))\n", "")
                .find("services[0].query: is required"),
            std::string::npos);
  EXPECT_NE(ErrorOf("max_replicas: 24", "max_replicas: 1").find("services[0].max_replicas"),
            std::string::npos);
  EXPECT_NE(ErrorOf("capacity_per_replica: 20", "capacity_per_replica: 0")
                .find("services[0].capacity_per_replica"),
            std::string::npos);
  EXPECT_NE(ErrorOf("lend_to_gpus: 32", "lend_to_gpus: -1").find("static_split.lend_to_gpus"),
            std::string::npos);
  EXPECT_NE(ErrorOf("tidal:", "tidal: 3\nx:").find("t.yaml"), std::string::npos);
}

}  // namespace
}  // namespace steward::operate

#include "rollout/plan.h"

#include <gtest/gtest.h>

namespace steward::rollout {
namespace {

constexpr char kPlan[] = R"(kind: Rollout
name: d
component: driver
version: "570"
previousVersion: "550"
maxParallel: 2
maxUnavailable: 25%
soak: 2h
batches:
  - {name: canary, nodes: [a, b], soak: 30m}
  - {name: rest, rest: true}
gates:
  - name: xids
    metric: xid_rate_delta
    successCondition: "result <= 0.5"
    failureCondition: "result > 2"
    count: 3
    interval: 15m
    failureLimit: 1
)";

TEST(rollout_PlanTest, ParsesEveryField) {
  Result<RolloutPlan> p = ParsePlan(kPlan, "plan.yaml");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->component, Component::kDriver);
  EXPECT_EQ(p->VersionLabel(), "steward.io/gpu-driver-version");
  EXPECT_EQ(p->max_parallel, 2);
  EXPECT_EQ(p->MaxUnavailable(16), 4);
  EXPECT_EQ(p->soak, Hours(2));
  ASSERT_EQ(p->batches.size(), 2u);
  EXPECT_EQ(*p->batches[0].soak, Minutes(30));
  ASSERT_EQ(p->gates.size(), 1u);
  EXPECT_EQ(p->gates[0].count, 3);
  EXPECT_EQ(p->gates[0].interval, Minutes(15));
  EXPECT_EQ(p->gates[0].failure_limit, 1);
  EXPECT_EQ(p->gates[0].consecutive_error_limit, 4);  // Argo's default.
}

// Each bad input names file:line and the field.
TEST(rollout_PlanTest, ErrorsNameFileLineField) {
  auto error = [](std::string from, std::string to) {
    std::string text = kPlan;
    text.replace(text.find(from), from.size(), to);
    Result<RolloutPlan> p = ParsePlan(text, "plan.yaml");
    return p.ok() ? std::string("ok") : p.status().message();
  };
  EXPECT_NE(error("component: driver", "component: kernel").find("plan.yaml:3"), std::string::npos);
  EXPECT_NE(error("maxUnavailable: 25%", "maxUnavailable: 125%").find("plan.yaml:7"),
            std::string::npos);
  EXPECT_NE(
      error("{name: rest, rest: true}", "{name: rest, size: 2, rest: true}").find("batches[1]"),
      std::string::npos);
  EXPECT_NE(error("metric: xid_rate_delta", "metric: temperature").find("gates[0].metric"),
            std::string::npos);
  EXPECT_NE(error("\"result > 2\"", "\"result >> 2\"").find("failureCondition"), std::string::npos);
  EXPECT_NE(error("interval: 15m", "interval: soon").find("plan.yaml:18"), std::string::npos);
  EXPECT_NE(error("soak: 2h", "soak: 2h\nsurprise: 1").find("surprise"), std::string::npos);
}

TEST(rollout_PlanTest, Durations) {
  EXPECT_EQ(*ParsePlanDuration("90s"), Seconds(90));
  EXPECT_EQ(*ParsePlanDuration("1d"), Hours(24));
  EXPECT_EQ(*ParsePlanDuration("120"), Minutes(2));
  EXPECT_FALSE(ParsePlanDuration("2 hours").ok());
}

}  // namespace
}  // namespace steward::rollout

// The remediation loop's evictions through control::ClusterControl: a retry after a disruption
// budget held back some of a workload's pods evicts only those still running, not the ones
// already terminating from the first attempt.
#include "health/remediation/control_actuator.h"

#include <gtest/gtest.h>

#include "../rollout/fake_control.h"

namespace steward::health {
namespace {

// The node actions under test; tickets and diagnostics are the twin's or the live side's.
class Actuator final : public ControlActuator {
 public:
  using ControlActuator::ControlActuator;
  Result<std::string> OpenTicket(const Ticket&) override { return std::string("t"); }
  Status RunDiagnostic(std::string_view) override { return Status::Ok(); }
};

TEST(ControlActuatorTest, EvictSkipsPodsAlreadyTerminating) {
  rollout::testing::FakeControl control;
  control.AddNode("n1");
  control.AddPod("n1", "chat-a", false);
  control.AddPod("n1", "chat-b", false);
  control.AddPod("n1", "other", false);
  for (control::PodInfo& p : control.pods["n1"])
    p.workload = p.ref.name == "other" ? "training/other" : "training/chat";
  control.pods["n1"][0].terminating = true;  // chat-a: evicted by the first attempt.

  Actuator actuator(control);
  NodeWorkload chat;
  chat.id = "training/chat";
  ASSERT_TRUE(actuator.Evict("n1", chat, Seconds(30)).ok());
  ASSERT_EQ(control.evictions.size(), 1u);
  EXPECT_EQ(control.evictions[0].pod, "chat-b");
  EXPECT_EQ(control.evictions[0].grace, Seconds(30));
}

}  // namespace
}  // namespace steward::health

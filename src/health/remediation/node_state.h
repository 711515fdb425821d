// NodeState: where a node is in the remediation loop.
//
//   healthy -> suspect -> cordoned -> draining -> in-repair -> validating -> healthy
//                                          \-> quarantined (flapping; a human releases it)
//
// suspect   a fault was seen; the node still runs work. It waits here (queued, FIFO per pool)
//           while the pool's disruption budget is used up.
// cordoned  unschedulable; the drain has not started yet (it starts at once unless listing the
//           node's workloads fails, then it is retried).
// draining  workloads are being evicted: checkpointing jobs first with time to save, then the
//           rest by tier, dev -> training -> production.
// in-repair empty; a ticket (the node's, or its rack/leaf incident's) is open.
// validating the repair is done; a diagnostic runs. Pass -> uncordon -> healthy.
// quarantined failed twice within the flap window; stays cordoned until ReleaseQuarantine().
#pragma once

#include <cstdint>
#include <string_view>

namespace steward::health {

enum class NodeState : uint8_t {
  kHealthy = 0,
  kSuspect = 1,
  kCordoned = 2,
  kDraining = 3,
  kInRepair = 4,
  kValidating = 5,
  kQuarantined = 6,
};
inline constexpr int kNumNodeStates = 7;

// "healthy", "suspect", "cordoned", "draining", "in-repair", "validating", "quarantined".
std::string_view NodeStateName(NodeState state);
bool ParseNodeState(std::string_view text, NodeState* state);

// True for states that take the node's capacity away and so count against the pool budget.
inline bool IsOut(NodeState s) { return s != NodeState::kHealthy && s != NodeState::kSuspect; }

}  // namespace steward::health

// Steward's checkpoint-aware order. Deliberate difference from Kueue (docs/governance.md):
// among the candidates Kueue's policies allow, the one whose preemption throws away the least
// work goes first, instead of the lowest priority. Kueue's first two keys are kept (evicted
// first, other queues before the own queue) so reclaiming lent quota still precedes hurting
// the preemptor's own team; priority and recency only break ties in lost work.
#include "govern/victim_ordering.h"

namespace steward::govern {
namespace {

class CheckpointAwareOrdering final : public VictimOrdering {
 public:
  std::string_view Name() const override { return "checkpoint-aware"; }
  bool Before(const VictimCandidate& a, const VictimCandidate& b) const override {
    if (a.evicting != b.evicting) return a.evicting;
    if (a.same_queue != b.same_queue) return !a.same_queue;
    if (a.lost_gpu_hours != b.lost_gpu_hours) return a.lost_gpu_hours < b.lost_gpu_hours;
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.admit_time != b.admit_time) return a.admit_time > b.admit_time;
    return a.workload_id < b.workload_id;
  }
};

}  // namespace

std::unique_ptr<VictimOrdering> NewCheckpointAwareOrdering() {
  return std::make_unique<CheckpointAwareOrdering>();
}

}  // namespace steward::govern

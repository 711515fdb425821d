// Kueue's candidate order (pkg/scheduler/preemption/common/ordering.go CandidatesOrdering):
// already-evicted first; other ClusterQueues before the preemptor's own; lower priority first;
// most recently admitted first; then a stable id (Kueue: UID).
#include "govern/victim_ordering.h"

namespace steward::govern {
namespace {

class KueueClassicOrdering final : public VictimOrdering {
 public:
  std::string_view Name() const override { return "kueue-classic"; }
  bool Before(const VictimCandidate& a, const VictimCandidate& b) const override {
    if (a.evicting != b.evicting) return a.evicting;
    if (a.same_queue != b.same_queue) return !a.same_queue;
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.admit_time != b.admit_time) return a.admit_time > b.admit_time;
    return a.workload_id < b.workload_id;
  }
};

}  // namespace

std::unique_ptr<VictimOrdering> NewKueueClassicOrdering() {
  return std::make_unique<KueueClassicOrdering>();
}

}  // namespace steward::govern

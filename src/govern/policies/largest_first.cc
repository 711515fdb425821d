// Fewest victims: try the candidates holding the most GPUs first, so one eviction frees as
// much as possible; ties fall back to Kueue's classic keys.
#include "govern/victim_ordering.h"

namespace steward::govern {
namespace {

class LargestFirstOrdering final : public VictimOrdering {
 public:
  std::string_view Name() const override { return "largest-first"; }
  bool Before(const VictimCandidate& a, const VictimCandidate& b) const override {
    if (a.evicting != b.evicting) return a.evicting;
    if (a.same_queue != b.same_queue) return !a.same_queue;
    if (a.gpus != b.gpus) return a.gpus > b.gpus;
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.admit_time != b.admit_time) return a.admit_time > b.admit_time;
    return a.workload_id < b.workload_id;
  }
};

}  // namespace

std::unique_ptr<VictimOrdering> NewLargestFirstOrdering() {
  return std::make_unique<LargestFirstOrdering>();
}

}  // namespace steward::govern

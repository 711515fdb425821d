// First-fit: the lowest-numbered node that fits (every feasible node scores the same, so the
// Placer's tie-break by rank — the node index unless ranks are set — decides). The naive
// default of a scheduler without a placement policy, and the twin's calibrated baseline.
#include "place/policies/policies.h"

namespace steward::place::internal {
namespace {

class FirstFitPolicy final : public PlacementPolicy {
 public:
  std::string_view Name() const override { return "first-fit"; }
  int64_t Score(const NodeState&, const PodRequest&) override { return 0; }
  bool PacksGroups() const override { return false; }
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewFirstFitPolicy() { return std::make_unique<FirstFitPolicy>(); }

}  // namespace steward::place::internal

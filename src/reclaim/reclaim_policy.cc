#include "reclaim/reclaim_policy.h"

#include <fmt/format.h>

#include <algorithm>

namespace steward::reclaim {

int KindRank(const twin::ReclaimSpec& spec, model::WorkloadKind kind) {
  auto it = std::find(spec.kinds.begin(), spec.kinds.end(), kind);
  return it == spec.kinds.end() ? -1 : static_cast<int>(it - spec.kinds.begin());
}

bool IsExempt(const twin::ReclaimSpec& spec, const std::map<std::string, std::string>& labels) {
  for (const auto& [key, value] : spec.exempt_labels) {
    auto it = labels.find(key);
    if (it != labels.end() && (value == "*" || it->second == value)) return true;
  }
  return false;
}

bool IsIdle(const twin::ReclaimSpec& spec, double sm_active_sum, double gpus) {
  return gpus > 0 && sm_active_sum < spec.idle_sm_active_below * gpus;
}

SimDuration NotifyAfter(const twin::ReclaimSpec& spec) {
  return SecondsF(spec.notify_after_minutes * 60);
}
SimDuration ReclaimAfter(const twin::ReclaimSpec& spec) {
  return SecondsF(spec.reclaim_after_minutes * 60);
}

Status CheckReclaimSpec(const twin::ReclaimSpec& spec) {
  if (!(ReclaimAfter(spec) > NotifyAfter(spec)))
    return Status::InvalidArgument(fmt::format(
        "reclaim: reclaim_after_minutes {} must be greater than notify_after_minutes {}",
        spec.reclaim_after_minutes, spec.notify_after_minutes));
  if (spec.kinds.empty()) return Status::InvalidArgument("reclaim: no kinds to reclaim");
  return Status::Ok();
}

}  // namespace steward::reclaim

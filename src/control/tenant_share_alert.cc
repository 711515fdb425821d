#include "control/tenant_share_alert.h"

#include <algorithm>

namespace steward::control {

bool TenantShareAlert::Observe(size_t index, std::string_view name, double share, double at_hours,
                               double step_hours) {
  if (index >= alerts_.size()) alerts_.resize(index + 1);
  Alert& a = alerts_[index];
  const bool was_over = a.over_now;
  a.over_now = share > threshold_;
  if (!a.over_now) return false;
  if (a.tenant.empty()) {
    a.tenant = std::string(name);
    a.first_hours = at_hours;
  }
  a.peak_share = std::max(a.peak_share, share);
  a.hours_over += step_hours;
  return !was_over;
}

}  // namespace steward::control

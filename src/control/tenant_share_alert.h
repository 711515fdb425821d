// TenantShareAlert: the guide's "one tenant holds more than X% of the cluster's GPUs" alert,
// one piece of logic for the twin (sampled at each report sample) and `steward operate`
// (sampled each pass from the live cluster's running GPU pods).
//
//   TenantShareAlert alert(0.5);
//   if (alert.Observe(team_index, "research", 0.62, /*at_hours=*/36, /*step_hours=*/1))
//     ...;   // crossed above the threshold at this sample: raise it once
//   alert.alerts()[team_index].peak_share;
//
// A tenant is "over" at a sample when its share exceeds the threshold (strictly). Observe
// returns true only at the sample where it goes from not over to over, so a caller raising an
// Event raises one per episode. Cost: O(1) per observation. Not thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace steward::control {

class TenantShareAlert {
 public:
  struct Alert {
    std::string tenant;      // "" until it first went over.
    double first_hours = 0;  // When it first went over.
    double peak_share = 0;   // Highest share seen while over.
    double hours_over = 0;   // Sum of step_hours of the samples it was over at.
    bool over_now = false;   // Over at its latest sample.
  };

  explicit TenantShareAlert(double threshold) : threshold_(threshold) {}

  // One sample of tenant `index` (dense, chosen by the caller) named `name`.
  bool Observe(size_t index, std::string_view name, double share, double at_hours,
               double step_hours);

  double threshold() const { return threshold_; }
  // Indexed like Observe's `index`; entries of tenants never over have an empty name.
  const std::vector<Alert>& alerts() const { return alerts_; }

 private:
  double threshold_;
  std::vector<Alert> alerts_;
};

}  // namespace steward::control

// ChartMarkers finds the changes the dashboard marks on its time-series charts by comparing
// each published snapshot with the one before: nodes that gained faulty GPUs ("fault"), nodes
// cordoned or uncordoned ("cordon", "uncordon"), and queue quotas that changed ("quota").
// Comparing snapshots rather than hooking each source catches every one of them: random and
// injected faults, the remediation loop's cordons, controllers, and the API's controls.
//
//   ChartMarkers markers;
//   markers.Observe(previous, next, now_hours);   // After every publish.
//   snapshot.markers = markers.list();
//
// One marker per kind per publish, naming up to 8 subjects (count has them all), so a rack
// event is one marker. Times are at publish granularity (a step: 6 simulated seconds at the
// default speed; during serve's warm-up, a warm-up chunk). At most `max_markers` are kept; the
// oldest go first.
// Cost: O(nodes + teams) per Observe; the list is copied only when a marker is added.
// Thread-safety: owned by the simulation thread; list() hands out an immutable copy.
#pragma once

#include <memory>
#include <vector>

#include "server/snapshot.h"

namespace steward::server {

class ChartMarkers {
 public:
  explicit ChartMarkers(size_t max_markers = 1000);

  void Observe(const Snapshot& before, const Snapshot& after, double hours);
  std::shared_ptr<const std::vector<ChartMarker>> list() const { return list_; }

 private:
  size_t max_markers_;
  std::shared_ptr<const std::vector<ChartMarker>> list_;
};

}  // namespace steward::server

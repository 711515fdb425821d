// Options for grouping node faults into rack and leaf incidents.
#pragma once

#include "model/time.h"

namespace steward::health {

struct IncidentOptions {
  // Faults of one family count together only when they fall within this sliding window.
  // Unit: SimDuration. Default 10 min: shared-component failures (a PDU, a ToR or NVLink
  // switch) hit every node behind it within seconds to minutes, while independent node
  // faults arrive at ~0.0038 per node per day (Llama 3 report: 0.47 per 1,000 GPUs per day,
  // 8 GPUs per node), so two in one rack within 10 min by chance is ~1e-4 per rack-day.
  // Longer windows merge unrelated faults; shorter ones split a slow cascade.
  SimDuration window = Minutes(10);

  // Distinct nodes of one rack with same-family faults inside `window` that make a rack
  // incident. Default 3: two can be coincidence on a busy rack, three almost never is (see
  // above). Raise it for racks with many nodes per shared component; 0 disables rack grouping.
  int rack_min_nodes = 3;

  // Distinct nodes under one leaf switch, spread over at least `leaf_min_racks` racks, that
  // make a leaf incident (suspect the leaf switch or its uplinks). Default 4 nodes in 2 racks:
  // one rack alone is explained by the rack; a second rack sharing the fault is what points
  // at the switch both hang off. 0 disables leaf grouping.
  int leaf_min_nodes = 4;
  int leaf_min_racks = 2;
};

}  // namespace steward::health

// The physical share of one GPU that a fractional allocation holds.
//
// OpenCost charges MIG slices and HAMi percentages as whole GPUs or, for shared GPUs, 0
// (util-cost-facts.md §6 items 4-5). Steward charges by physical share: a MIG 1g slice of an
// H100 is 1/7 of the GPU (7 compute slices), a time-slicing replica of a GPU advertised as N
// replicas is 1/N, a HAMi `nvidia.com/gpucores: 25` is 1/4. The share multiplies held hours into
// GPU-hours, so a fractional allocation is always charged a positive amount.
#pragma once

#include <string_view>

#include "model/status.h"

namespace steward::cost {

// Compute slices of a MIG-capable GPU (A100, H100, H200, B200 all have 7).
inline constexpr int kMigComputeSlices = 7;

// Parses a share written any of these ways, into (0, 1]:
//   "1", "0.25"          a plain fraction of one GPU
//   "1/7"                a ratio
//   "250m"               milli-GPUs (Kubernetes quantity style): 0.25
//   "25%"                a percentage (HAMi gpucores style)
//   "1g.10gb", "mig-3g.40gb", "nvidia.com/mig-2g.20gb"  a MIG profile: slices / 7
Result<double> ParseGpuShare(std::string_view text);

// Share of a MIG profile such as "1g.10gb" or "mig-3g.40gb": its compute slices / 7.
Result<double> MigProfileShare(std::string_view profile);

}  // namespace steward::cost

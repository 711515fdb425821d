// Factories of the built-in placement policies, one .cc each; used only by the registry.
#pragma once

#include <memory>

#include "place/placement_policy.h"

namespace steward::place::internal {

std::unique_ptr<PlacementPolicy> NewRandomPolicy();
std::unique_ptr<PlacementPolicy> NewDotProductPolicy();
std::unique_ptr<PlacementPolicy> NewGpuClusteringPolicy();
std::unique_ptr<PlacementPolicy> NewGpuPackingPolicy();
std::unique_ptr<PlacementPolicy> NewBestFitPolicy();
std::unique_ptr<PlacementPolicy> NewFgdPolicy();
std::unique_ptr<PlacementPolicy> NewFgdBestFitPolicy();
std::unique_ptr<PlacementPolicy> NewFgdCpuPolicy();
std::unique_ptr<PlacementPolicy> NewFgdCpuOnlinePolicy();
std::unique_ptr<PlacementPolicy> NewFgdOnlinePolicy();
std::unique_ptr<PlacementPolicy> NewFirstFitPolicy();
std::unique_ptr<PlacementPolicy> NewBinpackPolicy();

}  // namespace steward::place::internal

// The twin's nodes as `kubectl get nodes -o json` prints them: a v1 List of Node objects with
// the labels GPU feature discovery and the GPU Operator put on GPU nodes (product, driver
// version, ...), nvidia.com/gpu in status.capacity and status.allocatable, spec.unschedulable
// and the Ready condition. Injected faults show the way a real cluster shows them: a broken
// GPU lowers allocatable, a device plugin that advertises nothing sets it to 0, a driver
// rollout changes the driver label. `steward health nodes` reads the result (docs/telemetry.md).
#pragma once

#include <nlohmann/json.hpp>

#include "twin/twin.h"

namespace steward::twin {

// Container-toolkit and device-plugin versions go to Steward's own labels (neither GFD nor the
// GPU Operator publishes one; health::StackHealthOptions reads the same names).
inline constexpr char kToolkitVersionLabel[] = "steward.io/container-toolkit-version";
inline constexpr char kDevicePluginVersionLabel[] = "steward.io/device-plugin-version";

// O(nodes x labels).
nlohmann::json NodeListJson(const Twin& twin);

}  // namespace steward::twin

// The GPU stack checks (health/stack_health.h) over a running twin: its nodes as `kubectl get
// nodes -o json` would show them (twin/node_list_export.h), so /metrics reports exactly what
// `steward health nodes` would find on that node list.
//
// Usage: auto findings = TwinStackFindings(twin);  // on the twin's thread
// Cost: O(nodes x labels) plus one JSON round trip (tens of ms at 1,280 nodes); LiveTwin runs it
// at most once per simulated minute, and only when StackInputsFingerprint changed. Reads the twin
// only; not thread-safe against a twin that is advancing.
#pragma once

#include <cstdint>
#include <vector>

#include "health/stack_health.h"
#include "twin/twin.h"

namespace steward::server {

std::vector<health::StackFinding> TwinStackFindings(const twin::Twin& twin);

// A hash of everything on the twin's nodes that the stack checks read (labels, versions,
// allocatable GPUs, cordon, device plugin): equal values mean TwinStackFindings would return the
// same findings, so callers skip the rebuild. O(nodes x labels), no allocation.
uint64_t StackInputsFingerprint(const twin::Twin& twin);

}  // namespace steward::server

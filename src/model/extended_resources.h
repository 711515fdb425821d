// Extended resources: what a device plugin advertises on a node besides GPUs (RDMA / InfiniBand
// HCAs, FPGAs, NICs, ...), which pods request as whole counts and Kueue counts as quota.
//
// A cluster names at most kMaxExtendedResources of them; each name has a slot, so a node's
// allocatable and a pod's request are a flat array the placement layer compares in four loads.
//
//   model::ExtendedAmounts node_free = cluster.node(id).extended;  // By the cluster's slots.
//   const int slot = cluster.ExtendedSlot("rdma/ib");                // -1: no node has it.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace steward::model {

inline constexpr int kMaxExtendedResources = 4;
using ExtendedAmounts = std::array<int32_t, kMaxExtendedResources>;

// Whether `name` may be declared as an extended resource: a Kubernetes resource name with a
// domain ("example.com/foo"), not one the twin models itself (cpu, memory, pods, ephemeral
// storage, nvidia.com/gpu, the MIG and HAMi resources).
bool IsExtendedResourceName(std::string_view name);

}  // namespace steward::model

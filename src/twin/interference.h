// The noisy neighbour (issue 19 item 3, docs/tidal.md "Sharing a GPU"): how much an inference
// replica slows down when a training (or any non-serving) pod computes on the same GPU, and how
// much the neighbour slows down in turn, by the GPU's sharing mode.
//
//   InterferenceSpec spec;                          // the scenario's cluster.interference
//   ReplicaEffect e = ReplicaInterference(spec, GpuSharingMode::kMps, /*mig=*/false, neighbours);
//   double mu = e.rate_factor * capacity_per_replica;   // the replica's service rate now
//   double speed = NeighbourSpeed(spec, GpuSharingMode::kMps, false, replicas);
//
// The model, per mode (the vocabulary of nvidia.com/gpu.sharing-strategy):
// - MIG (a replica or neighbour on a MIG instance, whatever the pool's mode): hardware
//   isolation of SMs, memory and bandwidth. Factor 1 whatever the neighbour does.
// - none: the twin does not model interference (fractional pods behave as before this model).
// - MPS: per-client compute limits keep the clients on their own SMs; what they still share is
//   memory bandwidth, L2 and the copy engines. The replica's service time stretches by
//   min(1 + mps_slowdown_per_load x L, mps_max_slowdown), L = sum over the others of their
//   SM-active load on the whole GPU (SM-active share while computing x compute share). Bounded.
// - time-slicing: no isolation; the GPU's contexts take turns. With K other contexts having work
//   (each independently with probability its duty: the share of time it has kernels to run),
//   a context with work gets 1/(1 + K) of the GPU, so its rate factor is E[1/(1 + K)]; a
//   request that arrives while another context holds the GPU (probability P(K >= 1)) also waits
//   for the slices ahead of it, E[K | K >= 1] x time_slice_ms. Large.
// The coefficients are assumptions (no measured figures were available), configurable, with the
// defaults argued in docs/tidal.md. Pure functions, O(neighbours^2) for time-slicing (a GPU
// holds a handful of pods), O(neighbours) otherwise.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace steward::twin {

// The node label GPU feature discovery sets to the sharing strategy (the audit reads it too).
inline constexpr std::string_view kSharingStrategyLabel = "nvidia.com/gpu.sharing-strategy";

// A node pool's GPU sharing strategy (GPU feature discovery's nvidia.com/gpu.sharing-strategy).
enum class GpuSharingMode : uint8_t { kNone, kMps, kTimeSlicing };
std::string_view GpuSharingModeName(GpuSharingMode mode);
// "none" | "mps" | "time-slicing"; false if unknown.
bool ParseGpuSharingMode(std::string_view text, GpuSharingMode* mode);

// The model's coefficients (scenario: cluster.interference).
struct InterferenceSpec {
  double mps_slowdown_per_load = 0.5;  // Service-time stretch per unit of neighbours' SM load.
  double mps_max_slowdown = 1.3;       // Cap on that stretch (>= 1).
  double time_slice_ms = 2;            // One context's time slice under time-slicing.
};

// What another context on the GPU does: its SM-active load on the whole GPU while it runs
// (SM-active share x compute share), and its duty, the share of time it has work.
struct GpuLoad {
  double sm_load = 0;  // In [0, 1].
  double duty = 0;     // In [0, 1].
};

// What the neighbours do to one replica: its service rate is rate_factor x its capacity, and
// wait_share of its requests wait wait_ms more (time-slicing's slices ahead of them).
struct ReplicaEffect {
  double rate_factor = 1;  // In (0, 1].
  double wait_ms = 0;
  double wait_share = 0;  // In [0, 1].
};

// The effect on a replica of `neighbours` (the other contexts of its GPU that compute) under
// `mode`; `mig`: the replica is a MIG instance (isolated).
ReplicaEffect ReplicaInterference(const InterferenceSpec& spec, GpuSharingMode mode, bool mig,
                                  std::span<const GpuLoad> neighbours);

// The speed factor, in (0, 1], of a neighbour (training) that shares its GPU with `replicas`
// (their load: duty = a replica's utilization, sm_load = utilization x its compute share):
// MIG or none 1; MPS 1 / min(1 + coefficient x L, cap); time-slicing E[1/(1 + K)].
double NeighbourSpeed(const InterferenceSpec& spec, GpuSharingMode mode, bool mig,
                      std::span<const GpuLoad> replicas);

}  // namespace steward::twin

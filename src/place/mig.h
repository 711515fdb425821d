// MIG: NVIDIA Multi-Instance GPU profiles of the H100 80GB, as a sharing granularity.
//
// A MIG-capable GPU is carved into GPU instances made of 7 compute slices and 8 memory slices.
// Which instance may start at which memory slice is fixed by the hardware (the "placements"
// nvidia-smi mig -lgipp prints); the placement layer keeps one 8-bit mask of used memory slices
// per GPU and places an instance at a free start. Sources (docs/placement.md, "MIG"): NVIDIA MIG
// User Guide, "Supported MIG Profiles" (memory and SM fractions, instances per GPU) and its
// placement listings; H100 80GB uses the A100 80GB geometry.
#pragma once

#include <cstdint>
#include <string_view>

namespace steward::place {

inline constexpr int kMigComputeSlices = 7;
inline constexpr int kMigMemorySlices = 8;

// Profile ids; 0 = not a MIG pod.
enum MigProfile : int8_t {
  kNoMig = 0,
  kMig1g10gb,
  kMig1g20gb,
  kMig2g20gb,
  kMig3g40gb,
  kMig4g40gb,
  kMig7g80gb,
};
inline constexpr int kNumMigProfiles = 7;  // Including kNoMig.

struct MigProfileInfo {
  std::string_view name;
  int compute_slices = 0;  // Of 7: the SM share.
  int memory_slices = 0;   // Of 8.
  int memory_gb = 0;
  int max_instances = 0;  // Per GPU, when the GPU holds only this profile.
  uint8_t starts = 0;     // Bit s set: an instance may start at memory slice s.
};

// REQUIRES: kMig1g10gb <= profile <= kMig7g80gb.
const MigProfileInfo& MigInfo(int profile);
// "1g.10gb" -> kMig1g10gb; kNoMig for an unknown name.
MigProfile ParseMigProfile(std::string_view name);
// The profile names, comma separated, for error messages.
std::string_view MigProfileNames();

// The memory-slice mask an instance of `profile` takes when it starts at slice `start`.
uint8_t MigMask(int profile, int start);
// The highest free start for `profile` on a GPU whose used memory slices are `used`, or -1.
// Highest first: the big profiles can only start low (4g.40gb and 7g.80gb at 0), so small
// instances fill from the top and leave the low slices whole.
int MigStart(uint8_t used, int profile);
// How many more instances of `profile` fit on a GPU with `used` slices (placing greedily).
int MigInstancesThatFit(uint8_t used, int profile);
// The physical GPU share of an instance: compute slices / 7 (1g.10gb = 1/7 GPU).
inline double MigGpuShare(int profile) {
  return static_cast<double>(MigInfo(profile).compute_slices) / kMigComputeSlices;
}
// The same in milli-GPU, rounded down (142 for 1g.10gb), for scores that think in milli.
inline int MigMilli(int profile) { return 1000 * MigInfo(profile).compute_slices / 7; }

}  // namespace steward::place

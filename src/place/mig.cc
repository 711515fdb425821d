#include "place/mig.h"

#include "model/status.h"

namespace steward::place {
namespace {

// NVIDIA MIG User Guide, "Supported MIG Profiles" (H100 80GB): memory and SM fractions and
// instances per GPU; starts are the memory-slice placements (-lgipp): 1-slice instances at
// 0..6, 2-slice ones at even slices (1g.20gb also at 6), 4-slice 3g at 0 or 4, 4g and 7g at 0.
constexpr MigProfileInfo kProfiles[kNumMigProfiles] = {
    {"", 0, 0, 0, 0, 0},
    {"1g.10gb", 1, 1, 10, 7, 0b0111'1111},
    {"1g.20gb", 1, 2, 20, 4, 0b0101'0101},
    {"2g.20gb", 2, 2, 20, 3, 0b0001'0101},
    {"3g.40gb", 3, 4, 40, 2, 0b0001'0001},
    {"4g.40gb", 4, 4, 40, 1, 0b0000'0001},
    {"7g.80gb", 7, 8, 80, 1, 0b0000'0001},
};

}  // namespace

const MigProfileInfo& MigInfo(int profile) {
  STEWARD_CHECK(profile > kNoMig && profile < kNumMigProfiles);
  return kProfiles[profile];
}

MigProfile ParseMigProfile(std::string_view name) {
  for (int p = 1; p < kNumMigProfiles; ++p)
    if (kProfiles[p].name == name) return static_cast<MigProfile>(p);
  return kNoMig;
}

std::string_view MigProfileNames() {
  return "1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb";
}

uint8_t MigMask(int profile, int start) {
  const int size = MigInfo(profile).memory_slices;
  return static_cast<uint8_t>(((1u << size) - 1) << start);
}

int MigStart(uint8_t used, int profile) {
  const MigProfileInfo& p = MigInfo(profile);
  for (int s = kMigMemorySlices - 1; s >= 0; --s)
    if ((p.starts >> s & 1) && (used & MigMask(profile, s)) == 0) return s;
  return -1;
}

int MigInstancesThatFit(uint8_t used, int profile) {
  int n = 0;
  for (int s = MigStart(used, profile); s >= 0; s = MigStart(used, profile)) {
    used |= MigMask(profile, s);
    ++n;
  }
  return n;
}

}  // namespace steward::place

// Rng: the one deterministic random source of a placement experiment.
//
// Every random choice of a run (pod shuffle, tuning clones, node tie-break order, the Random
// policy's picks) is drawn from one Rng seeded with the run's seed, in that order, mirroring
// the FGD simulator's single seeded math/rand stream (docs/placement.md, "Random numbers").
// The generator is SplitMix64 with unbiased bounded draws (Lemire's method), so a run is
// byte-identical on every platform and standard library. It is NOT Go's math/rand, so single
// runs differ from the authors' runs; the distribution over seeds is the same.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace steward::place {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, n). REQUIRES: n > 0.
  uint64_t Uniform(uint64_t n) {
    unsigned __int128 m = static_cast<unsigned __int128>(Next()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = -n % n;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(Next()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  // Fisher-Yates, the same walk as Go's rand.Shuffle (from the end down).
  template <typename T>
  void Shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) {
      size_t j = Uniform(i);
      std::swap(v[i - 1], v[j]);
    }
  }

 private:
  uint64_t state_;
};

}  // namespace steward::place

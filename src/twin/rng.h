// Deterministic random numbers for the twin. std:: distributions are implementation-defined,
// so a report would change with the standard library; these are written out, so the same seed
// gives the same workloads everywhere. SplitMix64 seeds xoshiro256**.
#pragma once

#include <cmath>
#include <cstdint>

namespace steward::twin {

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& s : s_) s = SplitMix(seed);
  }
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1]: safe for log().
  double UniformPositive() { return 1.0 - Uniform(); }
  double Exponential(double mean) { return -mean * std::log(UniformPositive()); }
  double Normal() {
    // Box-Muller; one value per call keeps the stream simple to reason about.
    const double u1 = UniformPositive(), u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  double LogNormal(double median, double sigma) { return median * std::exp(sigma * Normal()); }
  bool Bernoulli(double p) { return Uniform() < p; }
  // An independent stream for a named purpose, so adding draws in one place does not shift
  // every other random choice of the run.
  Rng Fork(uint64_t salt) { return Rng(Next() ^ (salt * 0x9e3779b97f4a7c15ULL)); }

 private:
  static uint64_t SplitMix(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// Derives the seed of an independent stream (`salt` names its purpose) from a scenario seed.
inline uint64_t MixSeed(uint64_t seed, uint64_t salt) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (salt + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace steward::twin
